// `npm run bench:compare -- --old <rev> [--rounds N]`: this checkout against an older build,
// on the five figures a change of the house must keep within 5 % (issue 20): GET /partner/me
// and /partner/users/me req/s, happy-path flows/s, writes/s at 100k users (memory) and the
// restart from a 100k-user data file. The old rev is checked out in a temporary git worktree
// (sharing this node_modules), both are built, then each figure is measured on both builds
// alternately, round after round (old first in odd rounds, new first in even ones, so drift
// favours neither), with the same measuring code as `npm run bench` and the same load
// generators for both. Each build's own CLI, bench server and data writer run its side, a new
// process of it in every round (see `throughput`).
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { RESTART_RUNS, restartOnce } from './cold-start.mjs'
import { flowsAgainst } from './happy-path.mjs'
import { cardHolder, measuredRun, prepareTarget, routeHeaders, routes } from './http-throughput.mjs'
import { LARGE, startWriter, window } from './http-writes.mjs'
import {
  fmt,
  killAllChildren,
  killChild,
  median,
  printTable,
  root,
  startSandboxCli,
} from './lib.mjs'

const TOLERANCE = 0.05

const { values } = parseArgs({
  options: { old: { type: 'string' }, rounds: { type: 'string', default: '2' } },
})
const ROUNDS = Number(values.rounds)
if (!values.old || !Number.isInteger(ROUNDS) || ROUNDS < 1) {
  console.error('usage: npm run bench:compare -- --old <git rev> [--rounds N (default 2)]')
  process.exit(2)
}

const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim()
let oldSha
try {
  oldSha = git('rev-parse', '--verify', '--quiet', `${values.old}^{commit}`)
} catch {
  console.error(`--old ${values.old}: not a commit of this repository`)
  process.exit(2)
}
const newSha = git('rev-parse', 'HEAD')
const dirty = git('status', '--porcelain', '--untracked-files=no') !== ''
const work = mkdtempSync(join(tmpdir(), 'partner-sandbox-compare-'))
const oldRoot = join(work, 'old')

let removed = false
/** Removes the old build's worktree and the data sets; synchronous, so it also runs on exit. */
function cleanUp() {
  if (removed) return
  removed = true
  const removal = spawnSync('git', ['worktree', 'remove', '--force', oldRoot], { cwd: root })
  if (removal.status !== 0 && !/is not a working tree/.test(String(removal.stderr)))
    console.error(`could not remove the worktree ${oldRoot}: ${removal.stderr}(git worktree prune)`)
  rmSync(work, { recursive: true, force: true })
}
process.once('exit', cleanUp)

/**
 * The old build's node_modules: this checkout's when both lock files agree (fast, nothing
 * fetched); else its own, installed from its lock file (a dependency added or dropped since,
 * such as sonic-boom, which the old sources import and this checkout no longer has).
 */
function oldModules() {
  const lock = (rev) => git('show', `${rev}:package-lock.json`)
  if (lock(oldSha) === lock('HEAD')) {
    symlinkSync(realpathSync(join(root, 'node_modules')), join(oldRoot, 'node_modules'), 'dir')
    return
  }
  console.log(`\nthe old build's lock file differs: npm ci in ${oldRoot}`)
  const result = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: oldRoot,
    stdio: 'inherit',
  })
  if (result.status !== 0) throw new Error(`npm ci failed in ${oldRoot}`)
}

function npmBuild(cwd) {
  console.log(`\nnpm run build in ${cwd}`)
  const result = spawnSync('npm', ['run', 'build'], { cwd, stdio: 'inherit' })
  if (result.status !== 0) throw new Error(`npm run build failed in ${cwd}`)
}

/** The 100k-user data file and fixtures file of `build`, written by that build's own writer. */
function dataSets(build) {
  const files = {
    data: join(work, `${build.name}.data.json`),
    fixtures: join(work, `${build.name}.fixtures.json`),
  }
  const script =
    'const m = await import(process.env.MODULE);' +
    'await m.writeDataFile(process.env.DATA, Number(process.env.USERS));' +
    'm.writeFixturesFile(process.env.FIXTURES, Number(process.env.USERS))'
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    stdio: 'inherit',
    env: {
      ...process.env,
      MODULE: pathToFileURL(join(build.root, 'bench', 'data.mjs')).href,
      DATA: files.data,
      FIXTURES: files.fixtures,
      USERS: String(LARGE),
    },
  })
  if (result.status !== 0) throw new Error(`building the ${build.name} data sets failed`)
  return files
}

const builds = [
  { name: 'old', root: oldRoot, label: `old (${oldSha.slice(0, 10)})` },
  { name: 'new', root, label: `new (${newSha.slice(0, 10)}${dirty ? ' + changes' : ''})` },
]
/** The builds in this round's order: old first in odd rounds (1, 3, …), new first in even ones. */
const inOrder = (round) => (round % 2 === 0 ? builds : [...builds].reverse())

const throughputRoutes = routes.filter((r) => r.name === 'me' || r.name === 'usersMe')
/** Per figure, per build, the figure of each round. */
const figures = [
  ...throughputRoutes.map((r) => ({ key: r.name, label: `${r.label.split(' (')[0]} req/s` })),
  { key: 'flows', label: 'Happy-path flows/s' },
  { key: 'writes', label: `Writes/s at ${fmt(LARGE)} users (memory, register)` },
  {
    key: 'restart',
    label: `Restart from ${fmt(LARGE)} users to first 200, ms`,
    lowerIsBetter: true,
  },
].map((f) => ({ ...f, rounds: { old: [], new: [] } }))
const figure = (key) => figures.find((f) => f.key === key)
const warnings = []
const suspect = (build, what, run) => {
  if (run.non2xx > 0 || run.errors > 0 || run.timeouts > 0)
    warnings.push(
      `WARNING: ${build.name} ${what} had non-2xx answers or errors; its figure is suspect`,
    )
}

/**
 * Each round measures a new process of each build: two processes of one build differ by 15-20%
 * in throughput here (where V8 puts and optimises things differs from start to start), so one
 * process per build for every round compared two draws, not two builds.
 */
async function throughput() {
  for (let round = 0; round < ROUNDS; round++) {
    for (const b of inOrder(round)) {
      const server = await startSandboxCli([], b.root)
      try {
        const bearer = await cardHolder(server.url)
        for (const r of throughputRoutes) {
          const url = server.url + r.path
          const headers = routeHeaders(r, bearer)
          await prepareTarget(url, headers)
          const run = await measuredRun(url, headers)
          suspect(b, r.path, run)
          figure(r.name).rounds[b.name].push(run.rps)
        }
      } finally {
        await killChild(server.child)
      }
    }
  }
}

async function happyPath() {
  for (let round = 0; round < ROUNDS; round++) {
    for (const b of inOrder(round)) {
      const server = await startSandboxCli([], b.root)
      try {
        figure('flows').rounds[b.name].push((await flowsAgainst(server.url)).rate)
      } finally {
        await killChild(server.child)
      }
    }
  }
}

/** A new writer process of each build per round, as `throughput` says why. */
async function writes(files) {
  for (let round = 0; round < ROUNDS; round++) {
    for (const b of inOrder(round)) {
      const c = { b, key: `${b.name}.large.memory.${round}`, users: LARGE, data: false }
      try {
        await startWriter(c, { fixtures: files[b.name].fixtures }, b.root)
        const run = await window(c, `${c.key}.run`, false)
        suspect(b, 'writes', run)
        figure('writes').rounds[b.name].push(run.rps)
      } finally {
        if (c.server) await killChild(c.server.child, 10_000)
      }
    }
  }
}

async function restart(files) {
  for (let round = 0; round < ROUNDS; round++) {
    const times = { old: [], new: [] }
    for (let i = 0; i < RESTART_RUNS; i++) {
      for (const b of inOrder(round + i))
        times[b.name].push(await restartOnce(files[b.name].data, b.root))
    }
    for (const b of builds) figure('restart').rounds[b.name].push(median(times[b.name]))
  }
}

try {
  console.log(`comparing ${builds[0].label} with ${builds[1].label}, ${ROUNDS} round(s)`)
  git('worktree', 'add', '--detach', oldRoot, oldSha)
  oldModules()
  npmBuild(oldRoot)
  npmBuild(root)
  const files = Object.fromEntries(builds.map((b) => [b.name, dataSets(b)]))
  const started = performance.now()
  const loadAtStart = loadavg()
  await throughput()
  await happyPath()
  await writes(files)
  await restart(files)

  const rows = figures.map((f) => {
    const old = median(f.rounds.old)
    const now = median(f.rounds.new)
    const ratio = now / old
    const pass = f.lowerIsBetter ? ratio <= 1 + TOLERANCE : ratio >= 1 - TOLERANCE
    return { ...f, old, new: now, ratio, pass }
  })
  printTable(
    `Old build vs new build (${ROUNDS} alternating round(s); each value the median of the rounds)`,
    ['figure', builds[0].label, builds[1].label, 'new/old', 'verdict'],
    rows.map((r) => [
      r.label,
      fmt(r.old),
      fmt(r.new),
      `${fmt(r.ratio, 3)}x`,
      r.pass ? 'PASS' : 'MISS',
    ]),
    [
      `PASS: throughput new >= ${1 - TOLERANCE}x old; restart time new <= ${1 + TOLERANCE}x old`,
      ...rows.map(
        (r) =>
          `${r.label} by round: old ${r.rounds.old.map((v) => fmt(v)).join(', ')}; new ${r.rounds.new.map((v) => fmt(v)).join(', ')}`,
      ),
      `measuring took ${fmt((performance.now() - started) / 1000, 1)} s; load average ${loadAtStart.map((n) => n.toFixed(2)).join(' ')} at the start, ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')} at the end`,
      ...warnings,
    ],
  )
  const date = new Date().toISOString()
  const dir = join(root, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `compare-${date.slice(0, 19).replaceAll(':', '-')}Z.json`)
  const result = {
    date,
    node: process.version,
    loadAverage: { start: loadAtStart, end: loadavg() },
    old: { rev: values.old, sha: oldSha },
    new: { sha: newSha, uncommittedChanges: dirty },
    rounds: ROUNDS,
    tolerance: TOLERANCE,
    figures: rows.map((r) => ({
      key: r.key,
      label: r.label,
      lowerIsBetter: Boolean(r.lowerIsBetter),
      old: r.old,
      new: r.new,
      ratio: r.ratio,
      pass: r.pass,
      rounds: r.rounds,
    })),
    warnings,
  }
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`)
  console.log(`\nfigures written to ${file}`)
} finally {
  await killAllChildren()
  cleanUp()
}
