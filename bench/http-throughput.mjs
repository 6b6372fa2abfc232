// Throughput of three authenticated routes of the sandbox as a user runs it (the CLI with
// default flags: request log at `info` on stderr; see startSandboxCli), beside its peers:
// the baseline, bare Hono answering the same bytes on one route per page (the sandbox's own
// answers, taken once); Prism mocking the sandbox's own /openapi.json; and Mockoon's CLI
// serving the same partner record. Every server is a child process; autocannon runs here.
// Each round runs every target once, in an order that rotates from round to round so
// machine drift favours none; a ratio is taken within each round, and the median of those
// per-round ratios is the figure (min and max beside it). Every measured run follows an
// unmeasured warm-up run on the same target (BENCH_ROUND_WARMUP seconds, every peer alike),
// so a figure is not taken while 50 fresh connections open and the server recovers from
// serving another. Each round has a new sandbox process (and a new bare Hono): two processes
// of one build differ by about 10% for their whole life, so the rounds sample that too.
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
  startSandboxCli,
  verdict,
} from './lib.mjs'
import { startMockoon } from './mockoon.mjs'
import { startPrism } from './prism.mjs'

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2) // per target per round
const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 5))
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1)
// autocannon runs whole seconds: 1 is its shortest run.
const ROUND_WARMUP = Number(process.env.BENCH_ROUND_WARMUP ?? 1)
const TRANSACTIONS = 20

export const routes = [
  { name: 'me', path: '/api/v1/partner/me', label: 'GET /partner/me (org auth)', vsBare: 0.5 },
  {
    name: 'usersMe',
    path: '/api/v1/partner/users/me',
    label: 'GET /partner/users/me (org + session)',
    vsBare: 0.45,
    session: true,
  },
  {
    name: 'transactions',
    path: '/api/v1/partner/cards/transactions',
    label: `GET /partner/cards/transactions (${TRANSACTIONS} rows)`,
    vsBare: 0.45,
    session: true,
  },
]
const VS_PRISM = 10

/** A user with an active card holding TRANSACTIONS transactions; answers its Bearer header. */
export async function cardHolder(base) {
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

/** The headers of a request to `route`: the partner's, and the card holder's session if needed. */
export const routeHeaders = (route, bearer) => ({
  ...partnerHeaders,
  ...(route.session ? bearer : {}),
})

/**
 * Before a target's first round: one checked request (a benchmark of 401s would be
 * meaningless), then an unmeasured warm-up run.
 */
export async function prepareTarget(url, headers) {
  const probe = await httpGet(url, headers, 5_000)
  if (probe.status !== 200)
    throw new Error(`${url} answered ${probe.status}: ${probe.body.slice(0, 300)}`)
  await loadTest(url, { headers, connections: CONNECTIONS, duration: WARMUP })
}

/** One round's figure of a target: the unmeasured warm-up run, then the measured run. */
export async function measuredRun(url, headers) {
  if (ROUND_WARMUP > 0)
    await loadTest(url, { headers, connections: CONNECTIONS, duration: ROUND_WARMUP })
  return loadTest(url, { headers, connections: CONNECTIONS, duration: SECONDS })
}

export async function run() {
  let sandbox = await startSandboxCli()
  const prism = await startPrism()
  let bare
  let mockoon
  try {
    const bearer = await cardHolder(sandbox.url)
    const headersOf = (r) => routeHeaders(r, bearer)
    const pages = {}
    for (const r of routes) {
      const page = await httpGet(sandbox.url + r.path, headersOf(r), 5_000)
      if (page.status !== 200) throw new Error(`${r.path} answered ${page.status}: ${page.body}`)
      pages[r.path] = page.body
      r.bytes = Buffer.byteLength(page.body)
    }
    const startBare = () => startBenchServer('bare-page', { BENCH_PAGES: JSON.stringify(pages) })
    bare = await startBare()
    const me = routes.find((r) => r.name === 'me')
    mockoon = await startMockoon({ [me.path]: pages[me.path] }, me.path)
    const targets = [
      ...routes.flatMap((r) => [
        {
          key: `bare.${r.name}`,
          label: `bare Hono  ${r.label.split(' (')[0]} (the same ${fmt(r.bytes)} bytes)`,
          url: bare.url + r.path,
        },
        { key: `sandbox.${r.name}`, label: `sandbox    ${r.label}`, url: sandbox.url + r.path },
        { key: `prism.${r.name}`, label: `Prism      ${r.label}`, url: prism.url + r.path },
      ]),
      {
        key: 'mockoon.me',
        label: `Mockoon    ${me.label.split(' (')[0]}`,
        url: mockoon.url + me.path,
      },
    ]
    const routeOf = (t) => routes.find((r) => t.key.endsWith(`.${r.name}`))
    for (const t of targets) {
      t.headers = headersOf(routeOf(t))
      await prepareTarget(t.url, t.headers)
      t.runs = []
    }
    /** A new sandbox (with its own card holder) and a new bare Hono for the next round. */
    const renew = async () => {
      await killChild(sandbox.child)
      sandbox = await startSandboxCli()
      const holder = await cardHolder(sandbox.url)
      await killChild(bare.child)
      bare = await startBare()
      for (const t of targets) {
        const r = routeOf(t)
        if (t.key.startsWith('sandbox.')) {
          t.url = sandbox.url + r.path
          t.headers = routeHeaders(r, holder)
        } else if (t.key.startsWith('bare.')) t.url = bare.url + r.path
        else continue
        await prepareTarget(t.url, t.headers)
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      if (round > 0) await renew()
      for (let k = 0; k < targets.length; k++) {
        const t = targets[(k + round) % targets.length]
        t.runs.push(await measuredRun(t.url, t.headers))
      }
    }
    const byKey = Object.fromEntries(targets.map((t) => [t.key, t]))
    const rps = (key) => byKey[key].runs.map((r) => r.rps)
    const figures = routes.map((r) => {
      const vsBare = spread(ratios(rps(`sandbox.${r.name}`), rps(`bare.${r.name}`)))
      const vsPrism = spread(ratios(rps(`sandbox.${r.name}`), rps(`prism.${r.name}`)))
      return {
        route: r.label,
        rps: median(rps(`sandbox.${r.name}`)),
        bareRps: median(rps(`bare.${r.name}`)),
        prismRps: median(rps(`prism.${r.name}`)),
        vsBare,
        vsBareTarget: r.vsBare,
        vsBarePass: vsBare.median >= r.vsBare,
        vsPrism,
        vsPrismTarget: VS_PRISM,
        vsPrismPass: vsPrism.median >= VS_PRISM,
      }
    })
    const vsMockoon = {
      route: me.label,
      rps: median(rps('mockoon.me')),
      ratio: spread(ratios(rps('sandbox.me'), rps('mockoon.me'))),
    }
    printTable(
      `HTTP throughput (autocannon in this process: ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s per target, each after a ${ROUND_WARMUP} s warm-up run on that target; each server a child process; the sandbox is the CLI with default flags)`,
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
        `${me.label} vs Mockoon: ${fmtRatio(vsMockoon.ratio, 1)}  (no target)`,
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
      routes: figures,
      vsMockoon,
    }
  } finally {
    for (const child of [bare?.child, sandbox.child, prism.child, mockoon?.child]) {
      if (child) await killChild(child)
    }
    await killAllChildren()
  }
}

if (isMain(import.meta.url)) await run()
