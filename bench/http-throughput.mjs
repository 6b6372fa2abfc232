// Throughput of three authenticated routes of the sandbox, of the same routes mocked by Prism
// from the sandbox's own /openapi.json, and of the baseline: bare Hono with ONE small JSON
// route and nothing else. Every server is a child process; autocannon runs here. Each round
// runs every target once, in an order that rotates from round to round so machine drift
// favours none; a ratio is taken within each round, and the median of those per-round ratios
// is the figure (min and max beside it). Every measured run follows an unmeasured warm-up run
// on the same target (BENCH_ROUND_WARMUP seconds, bare Hono and Prism alike), so a figure is
// not taken while 50 fresh connections open and the server recovers from serving another.
import { call, flow } from './flow.mjs'
import {
  fmt,
  fmtRatio,
  httpGet,
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
} from './lib.mjs'
import { startPrism } from './prism.mjs'

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2) // per target per round
const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 5))
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1)
// autocannon runs whole seconds: 1 is its shortest run.
const ROUND_WARMUP = Number(process.env.BENCH_ROUND_WARMUP ?? 1)
const TRANSACTIONS = 20

const routes = [
  { name: 'me', path: '/api/v1/partner/me', label: 'GET /partner/me (org auth)', vsBare: 0.6 },
  {
    name: 'usersMe',
    path: '/api/v1/partner/users/me',
    label: 'GET /partner/users/me (org + session)',
    vsBare: 0.5,
    session: true,
  },
  {
    name: 'transactions',
    path: '/api/v1/partner/cards/transactions',
    label: `GET /partner/cards/transactions (${TRANSACTIONS} rows)`,
    vsBare: 0.5,
    session: true,
  },
]
const VS_PRISM = 10

/** A user with an active card holding TRANSACTIONS transactions; answers its Bearer header. */
async function cardHolder(base) {
  const bearer = await flow(base, `throughput.${process.pid}`)
  for (let i = 1; i < TRANSACTIONS; i++) {
    await call(
      base,
      'POST',
      '/api/v1/partner/cards/simulate-purchase',
      { amount: 1, merchant: { name: `Shop ${i}` } },
      bearer,
    )
  }
  return bearer
}

export async function run() {
  const bare = await startBenchServer('bare')
  const sandbox = await startBenchServer('sandbox')
  const prism = await startPrism()
  let barePage
  try {
    const bearer = await cardHolder(sandbox.url)
    const pageRoute = routes.find((r) => r.name === 'transactions')
    const page = await httpGet(
      sandbox.url + pageRoute.path,
      { ...partnerHeaders, ...bearer },
      5_000,
    )
    barePage = await startBenchServer('bare-page', { BENCH_PAGE: page.body })
    const targets = [
      { key: 'bare', label: 'bare Hono  GET /ok (one JSON route)', url: `${bare.url}/ok` },
      {
        key: 'barePage',
        label: `bare Hono  GET /page (the same ${fmt(page.body.length)}-byte page, pre-serialized; context)`,
        url: `${barePage.url}/page`,
      },
      ...routes.flatMap((r) => {
        const headers = { ...partnerHeaders, ...(r.session ? bearer : {}) }
        return [
          {
            key: `sandbox.${r.name}`,
            label: `sandbox    ${r.label}`,
            url: sandbox.url + r.path,
            headers,
          },
          {
            key: `prism.${r.name}`,
            label: `Prism      ${r.label}`,
            url: prism.url + r.path,
            headers,
          },
        ]
      }),
    ]
    for (const t of targets) {
      // One checked request first: a benchmark of 401s would be meaningless.
      const probe = await httpGet(t.url, t.headers, 5_000)
      if (probe.status !== 200)
        throw new Error(`${t.url} answered ${probe.status}: ${probe.body.slice(0, 300)}`)
      await loadTest(t.url, { headers: t.headers, connections: CONNECTIONS, duration: WARMUP })
      t.runs = []
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < targets.length; k++) {
        const t = targets[(k + round) % targets.length]
        if (ROUND_WARMUP > 0) {
          await loadTest(t.url, {
            headers: t.headers,
            connections: CONNECTIONS,
            duration: ROUND_WARMUP,
          })
        }
        t.runs.push(
          await loadTest(t.url, {
            headers: t.headers,
            connections: CONNECTIONS,
            duration: SECONDS,
          }),
        )
      }
    }
    const byKey = Object.fromEntries(targets.map((t) => [t.key, t]))
    const rps = (key) => byKey[key].runs.map((r) => r.rps)
    const figures = routes.map((r) => {
      const vsBare = spread(ratios(rps(`sandbox.${r.name}`), rps('bare')))
      const vsPrism = spread(ratios(rps(`sandbox.${r.name}`), rps(`prism.${r.name}`)))
      return {
        route: r.label,
        rps: median(rps(`sandbox.${r.name}`)),
        prismRps: median(rps(`prism.${r.name}`)),
        vsBare,
        vsBareTarget: r.vsBare,
        vsBarePass: vsBare.median >= r.vsBare,
        vsPrism,
        vsPrismTarget: VS_PRISM,
        vsPrismPass: vsPrism.median >= VS_PRISM,
      }
    })
    const bareRps = median(rps('bare'))
    const samePage = {
      rps: median(rps('barePage')),
      vsBare: spread(ratios(rps('barePage'), rps('bare'))),
      sandboxVsSamePage: spread(ratios(rps('sandbox.transactions'), rps('barePage'))),
    }
    printTable(
      `HTTP throughput (autocannon in this process: ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s per target, each after a ${ROUND_WARMUP} s warm-up run on that target; each server a child process)`,
      [
        'target',
        'median req/s',
        ...Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`),
        'p99 ms',
        'bytes',
        'non-2xx',
        'errors',
      ],
      targets.map((t) => [
        t.label,
        fmt(median(t.runs.map((r) => r.rps))),
        ...t.runs.map((r) => fmt(r.rps)),
        fmt(Math.max(...t.runs.map((r) => r.p99))),
        fmt(t.runs[0].bytes),
        fmt(t.runs.reduce((n, r) => n + r.non2xx, 0)),
        fmt(t.runs.reduce((n, r) => n + r.errors + r.timeouts, 0)),
      ]),
      [
        'ratio = median of the per-round ratios (min-max over the rounds)',
        ...figures.flatMap((f) => [
          `${f.route} vs bare Hono: ${fmtRatio(f.vsBare)}  (target >= ${f.vsBareTarget}x)  ${verdict(f.vsBarePass)}`,
          `${f.route} vs Prism:     ${fmtRatio(f.vsPrism, 1)}  (target >= ${VS_PRISM}x)  ${verdict(f.vsPrismPass)}`,
        ]),
        `context, no target: bare Hono sending the same transactions page runs at ${fmtRatio(samePage.vsBare)} of bare Hono; the sandbox's page at ${fmtRatio(samePage.sandboxVsSamePage)} of that`,
        ...targets
          .filter((t) => t.runs.some((r) => r.non2xx > 0 || r.errors > 0 || r.timeouts > 0))
          .map((t) => `WARNING: ${t.label} had non-2xx answers or errors; its figure is suspect`),
      ],
    )
    return {
      connections: CONNECTIONS,
      rounds: ROUNDS,
      seconds: SECONDS,
      roundWarmup: ROUND_WARMUP,
      bareRps,
      routes: figures,
      samePage,
    }
  } finally {
    for (const child of [bare.child, sandbox.child, prism.child, barePage?.child]) {
      if (child) await killChild(child)
    }
    await killAllChildren()
  }
}

if (isMain(import.meta.url)) await run()
