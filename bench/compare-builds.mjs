// `npm run bench:compare [-- --old <rev>] [--rounds N]`: this checkout against an older build
// (by default df9b589, the build before issue 39 made the HTTP layer plain hono), on what a
// partner's suite meets: happy-path flows/s with 16 clients, and the p99 of each request of
// the happy path with 1 client and with 16, each within 10% of the old build (PASS or MISS).
// GET /partner/me and /partner/users/me req/s are printed beside them, without a verdict, and
// so is each build's ratio to bare Hono answering the same bytes (a new bare Hono process a
// round, measured beside the builds, as `npm run bench` measures it): issue 39's targets
// (>= 0.5x, >= 0.45x) are held by `npm run bench`; here they show where the old build stands.
// The old rev is checked out in a temporary git worktree (sharing this node_modules), both
// are built, then each figure is measured on both builds alternately, round after round (old
// first in odd rounds, new first in even ones, so drift favours neither; an even number of
// rounds, so each goes second as often: the second of a round tends to measure slower), with
// this checkout's measuring code and load generators for both, and a new process of the build's
// own CLI for every run (see `throughput`).
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { CLIENTS, measureFlows } from './happy-path.mjs'
import { cardHolder, measuredRun, prepareTarget, routeHeaders, routes } from './http-throughput.mjs'
import {
  fmt,
  fmtRatio,
  httpGet,
  killAllChildren,
  killChild,
  median,
  printTable,
  ratios,
  root,
  spread,
  startBenchServer,
  startSandboxCli,
} from './lib.mjs'

const TOLERANCE = 0.1
/** The build before issue 39: the HTTP layer with its speed tricks. */
const BEFORE = 'df9b589'

const { values } = parseArgs({
  options: {
    old: { type: 'string', default: BEFORE },
    rounds: { type: 'string', default: '6' },
  },
})
const ROUNDS = Number(values.rounds)
// Even: in 6 of the 8 comparisons with df9b589 in bench/results, the new build's p99 rows were
// worse in the rounds where it went second (median new/old higher by 0.02-0.22; over all 8, by 0.07),
// so with an odd number of rounds the build that goes second once more is judged worse.
if (!Number.isInteger(ROUNDS) || ROUNDS < 2 || ROUNDS % 2 !== 0) {
  console.error(
    `usage: npm run bench:compare -- [--old <git rev> (default ${BEFORE})] [--rounds N (an even number, default 6: each build goes first in half of them)]`,
  )
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

const builds = [
  { name: 'old', root: oldRoot, label: `old (${oldSha.slice(0, 10)})` },
  { name: 'new', root, label: `new (${newSha.slice(0, 10)}${dirty ? ' + changes' : ''})` },
]
/** The builds in this round's order: old first in odd rounds (1, 3, …), new first in even ones. */
const inOrder = (round) => (round % 2 === 0 ? builds : [...builds].reverse())

const throughputRoutes = routes.filter((r) => r.name === 'me' || r.name === 'usersMe')
/** Per figure, per build, the figure of each round; `verdict: false` is printed for information. */
const figures = [
  { key: 'flows', label: `Happy-path flows/s, ${CLIENTS.at(-1)} clients`, verdict: true },
  ...throughputRoutes.map((r) => ({
    key: r.name,
    label: `${r.label.split(' (')[0]} req/s (50 connections)`,
    verdict: false,
  })),
].map((f) => ({ ...f, rounds: { old: [], new: [] } }))
const figure = (key) => figures.find((f) => f.key === key)
/** Each request's p99 at `clients`, added the first time a run names the request. */
const p99Figure = (step, clients) => {
  const key = `p99 ${step} @${clients}`
  let found = figure(key)
  if (!found) {
    found = {
      key,
      label: `${step} p99 ms, ${clients} client(s)`,
      lowerIsBetter: true,
      verdict: true,
      rounds: { old: [], new: [] },
    }
    figures.push(found)
  }
  return found
}
const warnings = []
const suspect = (build, what, run) => {
  if (run.non2xx > 0 || run.errors > 0 || run.timeouts > 0)
    warnings.push(
      `WARNING: ${build.name} ${what} had non-2xx answers or errors; its figure is suspect`,
    )
}

/** Bare Hono's req/s of each throughput route, a round at a time (the same bytes as the new build's). */
const bareRounds = Object.fromEntries(throughputRoutes.map((r) => [r.name, []]))

/**
 * Each round measures a new process of each build: two processes of one build differ by 15-20%
 * in throughput here (where V8 puts and optimises things differs from start to start), so one
 * process per build for every round compared two draws, not two builds. Bare Hono answers the
 * new build's bytes, after the builds in rounds 1, 3, … and before them in rounds 2, 4, ….
 */
async function throughput() {
  // The new build's answers, taken in round 1 (bare Hono goes last there, first in round 2).
  const pages = {}
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 1) await bareRound(pages)
    for (const b of inOrder(round)) {
      const server = await startSandboxCli([], b.root)
      try {
        const bearer = await cardHolder(server.url)
        for (const r of throughputRoutes) {
          const url = server.url + r.path
          const headers = routeHeaders(r, bearer)
          await prepareTarget(url, headers)
          if (b.name === 'new' && round === 0)
            pages[r.path] = (await httpGet(url, headers, 5_000)).body
          const run = await measuredRun(url, headers)
          suspect(b, r.path, run)
          figure(r.name).rounds[b.name].push(run.rps)
        }
      } finally {
        await killChild(server.child)
      }
    }
    if (round % 2 === 0) await bareRound(pages)
  }
}

/** One round of bare Hono, a new process answering `pages` (path to body). */
async function bareRound(pages) {
  const bare = await startBenchServer('bare-page', { BENCH_PAGES: JSON.stringify(pages) })
  try {
    for (const r of throughputRoutes) {
      const url = bare.url + r.path
      const headers = routeHeaders(r, {})
      await prepareTarget(url, headers)
      bareRounds[r.name].push((await measuredRun(url, headers)).rps)
    }
  } finally {
    await killChild(bare.child)
  }
}

/** Each build's per-round ratio to bare Hono, by route (issue 39's targets beside them). */
const vsBare = () =>
  throughputRoutes.map((r) => ({
    route: r.label,
    target: r.vsBare,
    old: spread(ratios(figure(r.name).rounds.old, bareRounds[r.name])),
    new: spread(ratios(figure(r.name).rounds.new, bareRounds[r.name])),
  }))

/** The happy path at each concurrency: flows/s and each request's p99, a new process a run. */
async function happyPath() {
  for (let round = 0; round < ROUNDS; round++) {
    for (const clients of CLIENTS) {
      for (const b of inOrder(round)) {
        const { result, rate, failed5xx } = await measureFlows(clients, b.root)
        if (failed5xx > 0 || Object.keys(result.failed ?? {}).length > 0)
          warnings.push(
            `WARNING: ${b.name} happy path @${clients} had failed flows (${JSON.stringify(result.failed)})`,
          )
        if (clients === CLIENTS.at(-1)) figure('flows').rounds[b.name].push(rate)
        for (const s of result.steps) p99Figure(s.step, clients).rounds[b.name].push(s.p99)
      }
    }
  }
}

try {
  console.log(`comparing ${builds[0].label} with ${builds[1].label}, ${ROUNDS} round(s)`)
  git('worktree', 'add', '--detach', oldRoot, oldSha)
  oldModules()
  npmBuild(oldRoot)
  npmBuild(root)
  const started = performance.now()
  const loadAtStart = loadavg()
  await happyPath()
  await throughput()

  const byRoute = vsBare()
  const rows = figures.map((f) => {
    const old = median(f.rounds.old)
    const now = median(f.rounds.new)
    const ratio = now / old
    const within = f.lowerIsBetter ? ratio <= 1 + TOLERANCE : ratio >= 1 - TOLERANCE
    // A request only one build's flow sends (the walk, which the old build lacks) has nothing
    // to be compared with: printed without a verdict.
    const compared = f.verdict && f.rounds.old.length > 0 && f.rounds.new.length > 0
    return { ...f, old, new: now, ratio, pass: compared ? within : undefined }
  })
  printTable(
    `Old build vs new build (${ROUNDS} alternating round(s); each value the median of the rounds)`,
    ['figure', builds[0].label, builds[1].label, 'new/old', 'verdict'],
    rows.map((r) => [
      r.label,
      r.rounds.old.length > 0 ? fmt(r.old, r.lowerIsBetter ? 1 : 0) : '-',
      r.rounds.new.length > 0 ? fmt(r.new, r.lowerIsBetter ? 1 : 0) : '-',
      Number.isFinite(r.ratio) ? `${fmt(r.ratio, 3)}x` : '-',
      r.pass === undefined ? '-' : r.pass ? 'PASS' : 'MISS',
    ]),
    [
      `PASS: flows/s new >= ${1 - TOLERANCE}x old; each p99 new <= ${1 + TOLERANCE}x old (req/s rows: no verdict)`,
      ...rows.map(
        (r) =>
          `${r.label} by round: old ${r.rounds.old.map((v) => fmt(v, r.lowerIsBetter ? 1 : 0)).join(', ')}; new ${r.rounds.new.map((v) => fmt(v, r.lowerIsBetter ? 1 : 0)).join(', ')}`,
      ),
      `measuring took ${fmt((performance.now() - started) / 1000, 1)} s; load average ${loadAtStart.map((n) => n.toFixed(2)).join(' ')} at the start, ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')} at the end`,
      ...byRoute.map(
        (v) =>
          `${v.route} vs bare Hono sending the same bytes (target >= ${v.target}x, held by npm run bench): old ${fmtRatio(v.old)}, new ${fmtRatio(v.new)}`,
      ),
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
      verdict: r.verdict,
      old: r.old,
      new: r.new,
      ratio: r.ratio,
      pass: r.pass,
      rounds: r.rounds,
    })),
    bare: { rounds: bareRounds, vsBare: byRoute },
    warnings,
  }
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`)
  console.log(`\nfigures written to ${file}`)
} finally {
  await killAllChildren()
  cleanUp()
}
