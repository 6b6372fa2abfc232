// Throughput of authenticated GET /api/v1/partner/me next to a bare Hono route.
// Both servers run as child processes so autocannon, in this process, never shares their
// event loop. Same autocannon settings and request headers for both; the measured time is
// split into rounds that alternate the order (A B, B A, ...) so that drift in the machine's
// background load does not favour either one.
import {
  fmt,
  httpGet,
  isMain,
  killAllChildren,
  killChild,
  loadTest,
  partnerHeaders,
  printTable,
  startBenchServer,
  verdict,
} from './lib.mjs'

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8) // measured, per target
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1)
const TARGET = 0.6
const SESSION_TARGET = 0.5

const targets = [
  { label: 'bare Hono  GET /bare (tiny JSON)', server: 'bare', path: '/bare' },
  { label: 'bare Hono  GET /bare-partner (same body)', server: 'bare', path: '/bare-partner' },
  {
    label: 'sandbox    GET /api/v1/partner/me (org auth)',
    server: 'sandbox',
    path: '/api/v1/partner/me',
  },
  {
    label: 'sandbox    GET /api/v1/partner/users/me (org + session)',
    server: 'sandbox',
    path: '/api/v1/partner/users/me',
    session: true,
  },
]

/** Registers a user on the sandbox and logs in over HTTP; answers the Bearer header. */
async function sessionHeader(baseUrl) {
  const json = { ...partnerHeaders, 'content-type': 'application/json' }
  const post = async (path, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(body),
    })
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
    return res.json()
  }
  const email = `bench.${Date.now()}@example.com`
  const password = 'Bench-Passw0rd!'
  await post('/api/v1/partner/auth/register', {
    email,
    phone_number: '+14155550100',
    first_name: 'Bench',
    last_name: 'Mark',
    password,
    ssn: '123456789',
    date_of_birth: '1980-01-01',
  })
  await post('/api/v1/partner/auth/login', { email, password })
  const inbox = await (
    await fetch(`${baseUrl}/_sandbox/inbox?email=${encodeURIComponent(email)}`)
  ).json()
  const { sessionToken } = await post('/api/v1/partner/auth/verify-otp', {
    email,
    code: inbox.data[0].code,
  })
  return { authorization: `Bearer ${sessionToken}` }
}

/** Folds the rounds of one target into one set of figures (req/s over the whole time). */
function combine(runs) {
  const sum = (key) => runs.reduce((acc, r) => acc + r[key], 0)
  const total = sum('total')
  return {
    rounds: runs.map((r) => r.rps),
    rps: total / sum('duration'),
    total,
    avgLatency: runs.reduce((acc, r) => acc + r.avgLatency * r.total, 0) / total,
    p99: Math.max(...runs.map((r) => r.p99)),
    maxLatency: Math.max(...runs.map((r) => r.maxLatency)),
    non2xx: sum('non2xx'),
    bytes: runs[0]?.bytes,
    errors: sum('errors') + sum('timeouts'),
  }
}

export async function run() {
  const settings = { connections: CONNECTIONS }
  const runs = targets.map(() => [])
  const servers = new Map()
  try {
    for (const target of targets) {
      if (!servers.has(target.server))
        servers.set(target.server, await startBenchServer(target.server))
      const server = servers.get(target.server)
      target.url = `${server.url}${target.path}`
      target.headers = {
        ...partnerHeaders,
        ...(target.session ? await sessionHeader(server.url) : {}),
      }
      // One checked request first: a benchmark of 401s would be meaningless. For the sandbox
      // this is also the one request that pays for scrypt before the credential cache.
      const probe = await httpGet(target.url, target.headers, 5_000)
      if (probe.status !== 200)
        throw new Error(`${target.url} answered ${probe.status}: ${probe.body.slice(0, 300)}`)
    }
    for (const target of targets)
      await loadTest(target.url, { ...settings, headers: target.headers, duration: WARMUP })
    for (let round = 0; round < ROUNDS; round++) {
      const order = targets.map((_, i) => i)
      if (round % 2 === 1) order.reverse()
      for (const i of order) {
        runs[i].push(
          await loadTest(targets[i].url, {
            ...settings,
            headers: targets[i].headers,
            duration: SECONDS / ROUNDS,
          }),
        )
      }
    }
  } finally {
    for (const { child } of servers.values()) await killChild(child)
    await killAllChildren()
  }

  const results = targets.map((target, i) => ({ ...target, ...combine(runs[i]) }))
  const [bareTiny, bare, sandbox, session] = results
  const ratio = sandbox.rps / bare.rps
  const sessionRatio = session.rps / bare.rps
  printTable(
    `HTTP throughput (autocannon: ${CONNECTIONS} connections, ${SECONDS} s per target in ${ROUNDS} alternating rounds, after ${WARMUP} s warm-up; each server a child process)`,
    [
      'target',
      'req/s',
      ...runs[0].map((_, i) => `round ${i + 1}`),
      'avg ms',
      'p99 ms',
      'max ms',
      'requests',
      'non-2xx',
      'errors',
    ],
    results.map((r) => [
      r.label,
      fmt(r.rps),
      ...r.rounds.map((rps) => fmt(rps)),
      fmt(r.avgLatency, 2),
      fmt(r.p99),
      fmt(r.maxLatency),
      fmt(r.total),
      fmt(r.non2xx),
      fmt(r.errors),
    ]),
    [
      `org auth      / bare same body = ${fmt(ratio * 100, 1)} %   (target >= ${TARGET * 100} %)   ${verdict(ratio >= TARGET)}`,
      `org + session / bare same body = ${fmt(sessionRatio * 100, 1)} %   (target >= ${SESSION_TARGET * 100} %)   ${verdict(sessionRatio >= SESSION_TARGET)}`,
      `(for reference: org auth / bare tiny JSON = ${fmt((sandbox.rps / bareTiny.rps) * 100, 1)} %; responses of ${fmt(sandbox.bytes ?? 0)} vs ${fmt(bareTiny.bytes ?? 0)} bytes with headers)`,
      ...results
        .filter((r) => r.non2xx > 0 || r.errors > 0)
        .map((r) => `WARNING: ${r.label} had non-2xx responses or errors; its figure is suspect`),
    ],
  )
  return {
    bare: bare.rps,
    bareTiny: bareTiny.rps,
    sandbox: sandbox.rps,
    session: session.rps,
    ratio,
    sessionRatio,
  }
}

if (isMain(import.meta.url)) await run()
