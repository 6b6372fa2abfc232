// Writes over HTTP: POST /partner/auth/register (zod validation, scrypt password hashing, the
// uniqueness check, the journal write with a data file) against sandboxes holding 1k and 100k
// users, each with and without a data file. The data sets are built by bench/data.mjs.
// Every sandbox is a child process measuring its own event-loop delay (monitorEventLoopDelay);
// autocannon runs here. Rounds interleave the four sandboxes; the 100k/1k ratio is taken per
// round. After the rounds, each sandbox with a data file is made to compact during a further
// window of writes (the natural trigger, a journal as large as the 70 MB snapshot, would need
// minutes of writes): its stall is the one the "longest event-loop stall" figure must bound.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeDataFile, writeFixturesFile } from './data.mjs'
import {
  ask,
  fmt,
  fmtRatio,
  isMain,
  killAllChildren,
  killChild,
  loadTest,
  median,
  partnerHeaders,
  printTable,
  ratios,
  spread,
  startBenchServer,
  verdict,
  waitForStdout,
} from './lib.mjs'

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const SECONDS = Number(process.env.BENCH_WRITE_SECONDS ?? 2)
const ROUNDS = Math.max(3, Number(process.env.BENCH_WRITE_ROUNDS ?? 3))
export const LARGE = Number(process.env.BENCH_LARGE_USERS ?? 100_000)
const SMALL = 1_000
const RATIO_TARGET = 0.8 // "at most 20 % slower at 100k"
const STALL_TARGET_MS = 50
const RSS_TARGET_MB = 300

const configs = [
  { key: 'small.memory', users: SMALL, data: false },
  { key: 'small.file', users: SMALL, data: true },
  { key: 'large.memory', users: LARGE, data: false },
  { key: 'large.file', users: LARGE, data: true },
]

let written = 0
/** autocannon `requests`: every request registers a new user (a fresh e-mail each time). */
const registrations = (tag) => [
  {
    method: 'POST',
    path: '/api/v1/partner/auth/register',
    headers: { ...partnerHeaders, 'content-type': 'application/json' },
    setupRequest: (req) => ({
      ...req,
      body: JSON.stringify({
        email: `writer.${tag}.${written++}@example.com`,
        phone_number: '+14155550100',
        first_name: 'Bench',
        last_name: 'Writer',
        password: 'Bench-Passw0rd!',
        ssn: '123-45-6789',
        date_of_birth: '1980-01-01',
      }),
    }),
  },
]

/**
 * Starts the sandbox of `config` with these options (its data set already built) from the
 * `build` checkout, then an unmeasured warm-up window of writes.
 */
export async function startWriter(config, options, build) {
  config.server = await startBenchServer(
    'sandbox',
    { BENCH_SANDBOX_OPTIONS: JSON.stringify(options) },
    build,
  )
  config.runs = []
  await loadTest(config.server.url, {
    connections: CONNECTIONS,
    duration: 1,
    requests: registrations(`${config.key}.warm`),
  })
}

/** One measured window of writes (with `compact`, a compaction is started as it opens). */
export async function window(config, tag, compact) {
  await ask(config.server.child, 'ELD RESET', 'ELD')
  const compacted = compact && waitForStdout(config.server.child, /^COMPACTED (.+)\n/m, 120_000)
  if (compact) await ask(config.server.child, 'COMPACT')
  const run = await loadTest(config.server.url, {
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: registrations(tag),
  })
  const eld = await ask(config.server.child, 'ELD')
  const compaction = compacted ? JSON.parse((await compacted).match[1]) : undefined
  return { ...run, eld, compaction }
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-writes-'))
  try {
    for (const c of configs) {
      const t = performance.now()
      const options = {}
      if (c.data) {
        options.data = join(dir, `${c.key}.json`)
        await writeDataFile(options.data, c.users)
      } else {
        options.fixtures = join(dir, `${c.key}.fixtures.json`)
        writeFixturesFile(options.fixtures, c.users)
      }
      c.buildMs = performance.now() - t
      await startWriter(c, options)
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < configs.length; k++) {
        const c = configs[(k + round) % configs.length]
        c.runs.push(await window(c, `${c.key}.${round}`, false))
      }
    }
    for (const c of configs.filter((c) => c.data))
      c.compactRun = await window(c, `${c.key}.compact`, true)
    for (const c of configs) c.stats = await ask(c.server.child, 'STATS')

    const rps = (key) => configs.find((c) => c.key === key).runs.map((r) => r.rps)
    const memoryRatio = spread(ratios(rps('large.memory'), rps('small.memory')))
    const fileRatio = spread(ratios(rps('large.file'), rps('small.file')))
    const large = configs.find((c) => c.key === 'large.file')
    const stall = Math.max(...[...large.runs, large.compactRun].map((r) => r.eld.max))
    const rssMb =
      Math.max(...configs.filter((c) => c.users === LARGE).map((c) => c.stats.rss)) / 2 ** 20
    const mb = (bytes) => fmt(bytes / 2 ** 20)
    printTable(
      `Writes over HTTP: POST /partner/auth/register (validation + scrypt), ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s; each sandbox a child process`,
      [
        'users, store',
        'median writes/s',
        ...Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`),
        'max loop delay ms',
        'with a compaction: writes/s',
        'loop delay max ms',
        'compaction ms',
        'RSS MB',
        'heap MB',
      ],
      configs.map((c) => [
        `${fmt(c.users)}, ${c.data ? 'data file' : 'memory'}`,
        fmt(median(c.runs.map((r) => r.rps))),
        ...c.runs.map((r) => fmt(r.rps)),
        fmt(Math.max(...c.runs.map((r) => r.eld.max)), 1),
        c.compactRun ? fmt(c.compactRun.rps) : '-',
        c.compactRun ? fmt(c.compactRun.eld.max, 1) : '-',
        c.compactRun ? fmt(c.compactRun.compaction.ms) : '-',
        mb(c.stats.rss),
        mb(c.stats.heapUsed),
      ]),
      [
        `100k / 1k writes/s, memory:    ${fmtRatio(memoryRatio)}  (target >= ${RATIO_TARGET}x)  ${verdict(memoryRatio.median >= RATIO_TARGET)}`,
        `100k / 1k writes/s, data file: ${fmtRatio(fileRatio)}  (target >= ${RATIO_TARGET}x)  ${verdict(fileRatio.median >= RATIO_TARGET)}`,
        `longest event-loop stall during writes at ${fmt(LARGE)} users with a data file (compaction included): ${fmt(stall, 1)} ms  (target <= ${STALL_TARGET_MS} ms)  ${verdict(stall <= STALL_TARGET_MS)}`,
        `RSS with ${fmt(LARGE)} users (the larger of memory and data file, after the writes): ${fmt(rssMb)} MB  (target <= ${RSS_TARGET_MB} MB)  ${verdict(rssMb <= RSS_TARGET_MB)}`,
        ...configs
          .filter((c) => [...c.runs, c.compactRun].some((r) => r && (r.non2xx > 0 || r.errors > 0)))
          .map((c) => `WARNING: ${c.key} had non-2xx answers or errors; its figure is suspect`),
      ],
    )
    return {
      configs: configs.map((c) => ({
        key: c.key,
        users: c.users,
        dataFile: c.data,
        rps: c.runs.map((r) => r.rps),
        eldMaxMs: c.runs.map((r) => r.eld.max),
        compaction: c.compactRun && {
          rps: c.compactRun.rps,
          eldMaxMs: c.compactRun.eld.max,
          ms: c.compactRun.compaction.ms,
        },
        rss: c.stats.rss,
        heapUsed: c.stats.heapUsed,
      })),
      memoryRatio,
      fileRatio,
      ratioTarget: RATIO_TARGET,
      stallMs: stall,
      stallTarget: STALL_TARGET_MS,
      rssMb,
      rssTarget: RSS_TARGET_MB,
    }
  } finally {
    for (const c of configs) if (c.server) await killChild(c.server.child, 10_000)
    await killAllChildren()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (isMain(import.meta.url)) await run()
