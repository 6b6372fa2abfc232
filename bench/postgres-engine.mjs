// The PostgreSQL engine beside the memory engine (issue 21, item 10): authenticated reads/s of
// GET /partner/me and /partner/users/me, happy-path flows/s and webhook deliveries/s, for the
// memory engine (reference), PostgreSQL with 1 replica and with 2. Every sandbox is the CLI
// with default flags (startSandboxCli) plus `--database`, each replica its own process, all on
// one throwaway PostgreSQL server on this machine (bench/postgres-server.mjs). With 2
// replicas the load is spread over both as a round-robin load balancer would: autocannon's
// connections alternate between them, and the flows' and events' requests go to each in turn.
// Reads are measured in interleaved rounds (every target once a round, the order rotating) so
// machine drift favours none. Every non-2xx answer is counted and printed; a 5xx is a MISS.
// Then committed writes beside pgbench (issue 38): pgbench's simple-update script on a database
// of its own on the same server, and the one replica's POST /cards/simulate-fund (each 2xx one
// committed transaction), the same client count and duration, in interleaved rounds; the
// sandbox's write tx/s as a fraction of pgbench's tps. Last, alone on the server, the control
// plane with 1,000 partners beside 10 (bench/partner-count.mjs).

import { cpus } from 'node:os'
import { flow } from './flow.mjs'
import { flowsAgainst, fmtFailed } from './happy-path.mjs'
import {
  fmt,
  fmtRatio,
  isMain,
  killAllChildren,
  killChild,
  loadTest,
  median,
  partnerHeaders,
  printTable,
  spread,
  startBenchServer,
  startSandboxCli,
  verdict,
} from './lib.mjs'
import { run as partnerCount, partnersRows } from './partner-count.mjs'
import { initPgbench, PGBENCH_DATABASE, pgbenchMissing, psql, runPgbench } from './pgbench.mjs'
import { SKIP_NO_POSTGRES, startBenchPostgres } from './postgres-server.mjs'
import {
  FAN_OUT_HEADER,
  fanOut,
  fanOutClean,
  fanOutRefusals,
  fanOutRows,
  fmtFanOutErrors,
} from './webhook-fanout.mjs'

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const SECONDS = Number(process.env.BENCH_PG_SECONDS ?? 3) // per target per round
const ROUNDS = Math.max(3, Number(process.env.BENCH_PG_ROUNDS ?? 3))
const ROUND_WARMUP = Number(process.env.BENCH_ROUND_WARMUP ?? 1)
const EVENT_RATE = Number(process.env.BENCH_PG_EVENT_RATE ?? 440)
const EVENT_SECONDS = Number(process.env.BENCH_PG_EVENT_SECONDS ?? 4)
/** Clients of both pgbench and the sandbox's writes: as many as the flows run at once. */
const WRITE_CLIENTS = Number(process.env.BENCH_PG_WRITE_CLIENTS ?? 16)
const WRITE_SECONDS = Number(process.env.BENCH_PG_WRITE_SECONDS ?? 5) // each, per round
/** Issue 21's targets for one replica on this machine, PostgreSQL on it too. */
export const READS_TARGET = 3000
export const FLOWS_TARGET = 100
/** Issue 38's: one replica's committed write tx/s at least this fraction of pgbench's tps. */
export const WRITES_TARGET = 0.25
const FUNDING = JSON.stringify({ amount: 0.01 })

const ROUTES = [
  { key: 'me', path: '/api/v1/partner/me', label: 'GET /partner/me' },
  {
    key: 'usersMe',
    path: '/api/v1/partner/users/me',
    label: 'GET /partner/users/me',
    session: true,
  },
]

/** The sandboxes measured: the memory engine for reference, then PostgreSQL. */
const CONFIGS = [
  { key: 'memory', label: 'memory (reference)', replicas: 1 },
  { key: 'pg1', label: 'PostgreSQL, 1 replica', replicas: 1, schema: 'bench_one' },
  { key: 'pg2', label: 'PostgreSQL, 2 replicas', replicas: 2, schema: 'bench_two' },
]

/** Starts a configuration's replicas one after the other (the first migrates and seeds). */
async function startConfig(config, database) {
  const args = config.schema ? ['--database', `${database}?schema=${config.schema}`] : []
  const started = []
  for (let i = 0; i < config.replicas; i++) started.push(await startSandboxCli(args))
  return { ...config, children: started.map((s) => s.child), urls: started.map((s) => s.url) }
}

/**
 * A load test whose every answer but a 2xx is tallied into `tally` (warm-ups too); `options`
 * replaces the GET of CONNECTIONS connections (the writes' POSTs).
 */
async function counted(tally, urls, headers, duration, options) {
  const r = await loadTest(urls, options ?? { headers, connections: CONNECTIONS, duration })
  tally.non2xx += r.non2xx
  tally.status5xx += r.status5xx
  tally.errors += r.errors + r.timeouts
  return r
}

/** Interleaved rounds of every configuration × route; answers the figures by target key. */
async function reads(clusters) {
  const targets = []
  for (const c of clusters) {
    const bearer = await flow(c.urls, `pg-bench.${c.key}.${process.pid}`)
    for (const route of ROUTES) {
      targets.push({
        key: `${c.key}.${route.key}`,
        label: `${c.label}  ${route.label}`,
        urls: c.urls.map((url) => url + route.path),
        headers: { ...partnerHeaders, ...(route.session ? bearer : {}) },
        tally: { non2xx: 0, status5xx: 0, errors: 0 },
        runs: [],
      })
    }
  }
  for (const t of targets) await counted(t.tally, t.urls, t.headers, ROUND_WARMUP)
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < targets.length; k++) {
      const t = targets[(k + round) % targets.length]
      if (ROUND_WARMUP > 0) await counted(t.tally, t.urls, t.headers, ROUND_WARMUP)
      t.runs.push(await counted(t.tally, t.urls, t.headers, SECONDS))
    }
  }
  printTable(
    `Authenticated reads, memory and PostgreSQL engines (autocannon in this process: ${CONNECTIONS} connections spread over the replicas, ${ROUNDS} interleaved rounds of ${SECONDS} s per target, each after a ${ROUND_WARMUP} s warm-up run)`,
    [
      'target',
      'median req/s',
      ...Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`),
      'p99 ms',
      'non-2xx',
      '5xx',
      'errors',
    ],
    targets.map((t) => [
      t.label,
      fmt(median(t.runs.map((r) => r.rps))),
      ...t.runs.map((r) => fmt(r.rps)),
      fmt(Math.max(...t.runs.map((r) => r.p99))),
      fmt(t.tally.non2xx),
      fmt(t.tally.status5xx),
      fmt(t.tally.errors),
    ]),
    ['non-2xx, 5xx and errors count every run of the target, warm-ups included'],
  )
  return Object.fromEntries(
    targets.map((t) => [
      t.key,
      { rps: median(t.runs.map((r) => r.rps)), rounds: t.runs.map((r) => r.rps), ...t.tally },
    ]),
  )
}

/** Funding rows committed in a sandbox's schema so far (what a 2xx of simulate-fund adds). */
const fundings = async (server, schema) =>
  Number(
    await psql(
      server,
      'postgres',
      `SELECT count(*) FROM ${schema}.transactions WHERE type = 'funding'`,
    ),
  )

/**
 * Committed write transactions of one replica beside pgbench's simple-update on the same server,
 * in interleaved rounds (who goes first alternates): WRITE_CLIENTS pgbench clients on its own
 * database, then WRITE_CLIENTS autocannon connections each funding its own user's card by $0.01
 * (one user a connection, so no two writes wait on one card), every sandbox run after a warm-up.
 * The sandbox's figure is its 2xx answers a second; the funding rows the database gained in the
 * measured run are counted beside it. Answers the figures, or `{ skipped }` without pgbench.
 */
async function writes(server, cluster) {
  const missing = pgbenchMissing(server)
  if (missing) {
    console.log(`\nCommitted writes against pgbench: ${missing}`)
    return { skipped: missing }
  }
  const threads = Math.min(WRITE_CLIENTS, cpus().length)
  await initPgbench(server)
  const bearers = await Promise.all(
    Array.from({ length: WRITE_CLIENTS }, (_, i) =>
      flow(cluster.urls, `pg-writes.${i}.${process.pid}`),
    ),
  )
  let connection = 0
  const options = (duration) => ({
    method: 'POST',
    headers: { ...partnerHeaders, 'content-type': 'application/json' },
    body: FUNDING,
    connections: WRITE_CLIENTS,
    duration,
    // Connection i is user i's (autocannon calls this once a connection, in order).
    setupClient: (client) =>
      client.setHeaders({
        ...partnerHeaders,
        'content-type': 'application/json',
        ...bearers[connection++ % bearers.length],
      }),
  })
  const url = cluster.urls.map((base) => `${base}/api/v1/partner/cards/simulate-fund`)
  const rounds = []
  for (let round = 0; round < ROUNDS; round++) {
    const tally = { non2xx: 0, status5xx: 0, errors: 0 }
    const sandbox = async () => {
      if (ROUND_WARMUP > 0) await counted(tally, url, {}, ROUND_WARMUP, options(ROUND_WARMUP))
      const before = await fundings(server, cluster.schema)
      const r = await counted(tally, url, {}, WRITE_SECONDS, options(WRITE_SECONDS))
      const committed = (await fundings(server, cluster.schema)) - before
      return { tps: (r.total - r.non2xx) / r.duration, ok: r.total - r.non2xx, committed }
    }
    const pgbench = () =>
      runPgbench(server, { clients: WRITE_CLIENTS, threads, seconds: WRITE_SECONDS })
    const [first, second] = round % 2 ? [sandbox, pgbench] : [pgbench, sandbox]
    const a = await first()
    const b = await second()
    const [pg, own] = round % 2 ? [b, a] : [a, b]
    rounds.push({
      pgbench: pg.tps,
      pgbenchFailed: pg.failed,
      sandbox: own.tps,
      answered2xx: own.ok,
      committed: own.committed,
      fraction: own.tps / pg.tps,
      ...tally,
    })
  }
  const sum = (key) => rounds.reduce((n, r) => n + r[key], 0)
  const result = {
    clients: WRITE_CLIENTS,
    seconds: WRITE_SECONDS,
    pgbench: median(rounds.map((r) => r.pgbench)),
    sandbox: median(rounds.map((r) => r.sandbox)),
    fraction: spread(rounds.map((r) => r.fraction)),
    non2xx: sum('non2xx'),
    status5xx: sum('status5xx'),
    errors: sum('errors'),
    pgbenchFailed: sum('pgbenchFailed'),
    target: WRITES_TARGET,
    rounds,
  }
  result.pass = result.fraction.median >= WRITES_TARGET && result.status5xx === 0
  printTable(
    `Committed writes against pgbench (PostgreSQL ${server.version}, one server): ${WRITE_CLIENTS} clients each, ${ROUNDS} interleaved rounds of ${WRITE_SECONDS} s each; pgbench -b simple-update -c ${WRITE_CLIENTS} -j ${threads} -T ${WRITE_SECONDS} -n on database ${PGBENCH_DATABASE} (scale 1); the sandbox: PostgreSQL, 1 replica, POST /cards/simulate-fund $0.01, one user a connection, autocannon in this process after a ${ROUND_WARMUP} s warm-up`,
    [
      'round',
      'pgbench tps',
      'sandbox write tx/s',
      'fraction',
      '2xx',
      'funding rows committed',
      'non-2xx',
      '5xx',
      'errors',
    ],
    [
      ...rounds.map((r, i) => [
        `round ${i + 1}`,
        fmt(r.pgbench),
        fmt(r.sandbox),
        `${fmt(r.fraction, 2)}x`,
        fmt(r.answered2xx),
        fmt(r.committed),
        fmt(r.non2xx),
        fmt(r.status5xx),
        fmt(r.errors),
      ]),
      [
        'median (counts: sum)',
        fmt(result.pgbench),
        fmt(result.sandbox),
        fmtRatio(result.fraction),
        fmt(sum('answered2xx')),
        fmt(sum('committed')),
        fmt(result.non2xx),
        fmt(result.status5xx),
        fmt(result.errors),
      ],
    ],
    [
      'sandbox write tx/s: 2xx answers a second, each one committed transaction (the card, its funding row, its events); funding rows committed: what the schema gained in the measured run',
      'non-2xx, 5xx and errors count every run, warm-ups included; pgbench failed transactions: ' +
        fmt(result.pgbenchFailed),
      `fraction ${fmtRatio(result.fraction)} (per-round median, min-max; target >= ${WRITES_TARGET}x, no 5xx)   ${verdict(result.pass)}`,
    ],
  )
  return result
}

/**
 * Measures every configuration on one throwaway PostgreSQL server; answers the figures, or
 * `{ skipped }` when PostgreSQL is not installed.
 */
export async function run() {
  const server = await startBenchPostgres()
  if (!server) {
    console.log(`\nPostgreSQL engine benchmark: ${SKIP_NO_POSTGRES}`)
    return { skipped: SKIP_NO_POSTGRES }
  }
  const clusters = []
  let receiver
  try {
    for (const config of CONFIGS) clusters.push(await startConfig(config, server.url))
    const read = await reads(clusters)
    const flows = {}
    for (const c of clusters) {
      const { result, rate, failed5xx } = await flowsAgainst(c.urls)
      flows[c.key] = { rate, flows: result.flows, failed: result.failed, failed5xx }
      flows[c.key].firstFailures = result.firstFailures
    }
    const written = await writes(
      server,
      clusters.find((c) => c.key === 'pg1'),
    )
    receiver = await startBenchServer('receiver')
    const webhooks = {}
    for (const c of clusters) {
      webhooks[c.key] = await fanOut(c.urls, receiver, {
        rate: EVENT_RATE,
        seconds: EVENT_SECONDS,
      })
      printTable(
        `Webhook fan-out, ${c.label}: ${fmt(EVENT_RATE)} events/s asked × 5 endpoints for ${EVENT_SECONDS} s, each ask to the next replica`,
        FAN_OUT_HEADER,
        fanOutRows(webhooks[c.key]),
        [fmtFanOutErrors(webhooks[c.key]), ...fanOutRefusals(webhooks[c.key])],
      )
    }
    // Alone on the machine: the sandboxes above are done.
    for (const c of clusters) for (const child of c.children.splice(0)) await killChild(child)
    const partners = await partnerCount(server.url)
    const figures = CONFIGS.map((config) => ({
      key: config.key,
      label: config.label,
      replicas: config.replicas,
      me: read[`${config.key}.me`],
      usersMe: read[`${config.key}.usersMe`],
      flows: flows[config.key],
      webhooks: webhooks[config.key],
    }))
    printTable(
      `Engines side by side (PostgreSQL ${server.version} on this machine: the tests' throwaway server, fsync and synchronous_commit off; every sandbox the CLI with default flags)`,
      [
        'engine',
        '/partner/me req/s',
        '/users/me req/s',
        'flows/s',
        'failed flows',
        'deliveries/s',
        'p50 ms',
        'webhook errors',
        '5xx',
      ],
      figures.map((f) => [
        f.label,
        fmt(f.me.rps),
        fmt(f.usersMe.rps),
        fmt(f.flows.rate),
        fmtFailed(f.flows.failed),
        fmt(f.webhooks.rate),
        fmt(f.webhooks.p50),
        fanOutClean(f.webhooks) ? 'none' : fmtFanOutErrors(f.webhooks),
        fmt(fivexx(f)),
      ]),
      [
        `targets, one replica: >= ${fmt(READS_TARGET)} reads/s on each route, >= ${FLOWS_TARGET} flows/s; every engine and replica count: no 5xx, each delivery made once`,
        ...figures.flatMap((f) =>
          (f.flows.firstFailures ?? []).map((text) => `${f.label} flow failure: ${text}`),
        ),
      ],
    )
    return { postgres: server.version, figures, writes: written, partners }
  } finally {
    for (const c of clusters) for (const child of c.children) await killChild(child)
    if (receiver) await killChild(receiver.child)
    await killAllChildren()
    server.stop()
  }
}

/** Every 5xx a configuration answered: reads, flows and event asks. */
export const fivexx = (f) =>
  f.me.status5xx + f.usersMe.status5xx + f.flows.failed5xx + f.webhooks.refused5xx

/** The summary rows of run-all (PostgreSQL only: the memory rows are the other benchmarks'). */
export function summaryRows(result) {
  const pg = [
    { key: 'pg1', label: 'PostgreSQL, 1 replica' },
    { key: 'pg2', label: 'PostgreSQL, 2 replicas' },
  ]
  if (result.skipped) {
    return pg.flatMap(({ key, label }) =>
      [
        'authenticated reads/s',
        'happy-path flows/s',
        'webhook deliveries/s',
        ...(key === 'pg1' ? [WRITES_FIGURE] : []),
      ].map((what) => [`${label}: ${what}`, result.skipped, '-', 'SKIP']),
    )
  }
  return pg.flatMap(({ key, label }) => {
    const written =
      key === 'pg1'
        ? [
            writesRow(label, result.writes),
            ...(result.partners ? partnersRows(label, result.partners) : []),
          ]
        : []
    const f = result.figures.find((x) => x.key === key)
    const one = f.replicas === 1
    const reads = (r) => r.rps >= READS_TARGET || !one
    return [
      ...[
        ['GET /partner/me', f.me],
        ['GET /partner/users/me', f.usersMe],
      ].map(([route, r]) => [
        `${label}: ${route} req/s (5xx in brackets)`,
        `${fmt(r.rps)} (${fmt(r.status5xx)})`,
        one ? `>= ${fmt(READS_TARGET)}, no 5xx` : 'no 5xx',
        verdict(reads(r) && r.status5xx === 0),
      ]),
      [
        `${label}: happy-path flows/s (failed flows in brackets)`,
        `${fmt(f.flows.rate)} (${fmtFailed(f.flows.failed)})`,
        one ? `>= ${FLOWS_TARGET}, no 5xx` : 'no 5xx',
        verdict((f.flows.rate >= FLOWS_TARGET || !one) && f.flows.failed5xx === 0),
      ],
      [
        `${label}: webhook deliveries/s and p50 event -> delivery`,
        `${fmt(f.webhooks.rate)}/s, p50 ${fmt(f.webhooks.p50)} ms`,
        'each once, no 5xx',
        verdict(fanOutClean(f.webhooks)),
      ],
      ...written,
    ]
  })
}

const WRITES_FIGURE = 'committed write tx/s / pgbench simple-update tps (5xx in brackets)'

/** The summary row of the writes beside pgbench (SKIP without pgbench). */
function writesRow(label, w) {
  if (!w || w.skipped) return [`${label}: ${WRITES_FIGURE}`, w?.skipped ?? 'not run', '-', 'SKIP']
  return [
    `${label}: ${WRITES_FIGURE}`,
    `${fmtRatio(w.fraction)}: ${fmt(w.sandbox)} / ${fmt(w.pgbench)} (${fmt(w.status5xx)})`,
    `>= ${WRITES_TARGET}x, no 5xx`,
    verdict(w.pass),
  ]
}

if (isMain(import.meta.url)) {
  const result = await run()
  printTable('Summary', ['figure', 'measured', 'target', 'verdict'], summaryRows(result))
}
