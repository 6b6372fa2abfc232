// The PostgreSQL engine beside the memory engine (issue 21, item 10): authenticated reads/s of
// GET /partner/me and /partner/users/me, happy-path flows/s and webhook deliveries/s, for the
// memory engine (reference), PostgreSQL with 1 replica and with 2. Every sandbox is the CLI
// with default flags (startSandboxCli) plus `--database`, each replica its own process, all on
// one throwaway PostgreSQL server on this machine (bench/postgres-server.mjs). With 2
// replicas the load is spread over both as a round-robin load balancer would: autocannon's
// connections alternate between them, and the flows' and events' requests go to each in turn.
// Reads are measured in interleaved rounds (every target once a round, the order rotating) so
// machine drift favours none. Every non-2xx answer is counted and printed; a 5xx is a MISS.
import { flow } from './flow.mjs'
import { flowsAgainst, fmtFailed } from './happy-path.mjs'
import {
  fmt,
  isMain,
  killAllChildren,
  killChild,
  loadTest,
  median,
  partnerHeaders,
  printTable,
  startBenchServer,
  startSandboxCli,
  verdict,
} from './lib.mjs'
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
/** Issue 21's targets for one replica on this machine, PostgreSQL on it too. */
export const READS_TARGET = 3000
export const FLOWS_TARGET = 100

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

/** A load test whose every answer but a 2xx is tallied into `tally` (warm-ups too). */
async function counted(tally, urls, headers, duration) {
  const r = await loadTest(urls, { headers, connections: CONNECTIONS, duration })
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
    return { postgres: server.version, figures }
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
    return pg.flatMap(({ label }) =>
      ['authenticated reads/s', 'happy-path flows/s', 'webhook deliveries/s'].map((what) => [
        `${label}: ${what}`,
        result.skipped,
        '-',
        'SKIP',
      ]),
    )
  }
  return pg.flatMap(({ key, label }) => {
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
    ]
  })
}

if (isMain(import.meta.url)) {
  const result = await run()
  printTable('Summary', ['figure', 'measured', 'target', 'verdict'], summaryRows(result))
}
