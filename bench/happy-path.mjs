// Happy-path flows per second: the whole spec flow over HTTP, onboarding completed through
// the API: register -> login -> (inbox) -> verify-otp -> onboarding start -> complete ->
// simulate-fund -> status -> transactions. The sandbox is a child process with rate limits
// off; this process runs WORKERS flows at a time for SECONDS and checks every answer.
import {
  fmt,
  isMain,
  killAllChildren,
  killChild,
  partnerHeaders,
  printTable,
  startBenchServer,
  verdict,
} from './lib.mjs'

const WORKERS = Number(process.env.BENCH_FLOW_WORKERS ?? 16)
const SECONDS = Number(process.env.BENCH_FLOW_SECONDS ?? 8)
const TARGET = 200

let counter = 0

async function flow(base) {
  const n = counter++
  const email = `flow${n}.${process.pid}@example.com`
  const password = 'Bench-Passw0rd!'
  const json = { ...partnerHeaders, 'content-type': 'application/json' }
  const call = async (method, path, body, extra = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...json, ...extra },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 200)}`)
    return JSON.parse(text)
  }
  const applicant = {
    first_name: 'Flow',
    last_name: 'Bench',
    email,
    phone_number: '+14155550100',
    date_of_birth: '1985-06-15',
  }
  await call('POST', '/api/v1/partner/auth/register', {
    ...applicant,
    password,
    ssn: '123-45-6789',
  })
  await call('POST', '/api/v1/partner/auth/login', { email, password })
  const inbox = await call('GET', `/_sandbox/inbox?email=${encodeURIComponent(email)}&limit=1`)
  const { sessionToken } = await call('POST', '/api/v1/partner/auth/verify-otp', {
    email,
    code: inbox.data[0].code,
  })
  const bearer = { authorization: `Bearer ${sessionToken}` }
  const start = await call(
    'POST',
    '/api/v1/partner/cards/onboarding',
    {
      ...applicant,
      country_code: 'US',
      address_line1: '1 Market St',
      address_city: 'San Francisco',
      address_state: 'CA',
      address_zip: '94105',
      ssn: '123-45-6789',
    },
    bearer,
  )
  await call(
    'POST',
    `/api/v1/partner/cards/onboarding/${start.data.onboardingId}/complete`,
    { result: 'pass', data: { source: 'bench' }, agreement_accepted: true },
    bearer,
  )
  const funded = await call('POST', '/api/v1/partner/cards/simulate-fund', { amount: 42.5 }, bearer)
  const status = await call('GET', '/api/v1/partner/cards/status', undefined, bearer)
  const txns = await call('GET', '/api/v1/partner/cards/transactions?limit=10', undefined, bearer)
  if (
    funded.availableBalance !== 42.5 ||
    status.data.balances.available !== 42.5 ||
    status.data.card?.status !== 'active' ||
    txns.data.data.length !== 1
  ) {
    throw new Error(`flow ${n} ended in the wrong state: ${JSON.stringify(status.data)}`)
  }
}

export async function run() {
  const sandbox = await startBenchServer('sandbox')
  try {
    await flow(sandbox.url) // warm-up, and a check that the flow works at all
    let flows = 0
    const latencies = []
    const deadline = Date.now() + SECONDS * 1000
    const started = performance.now()
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (Date.now() < deadline) {
          const t = performance.now()
          await flow(sandbox.url)
          latencies.push(performance.now() - t)
          flows++
        }
      }),
    )
    const seconds = (performance.now() - started) / 1000
    const rate = flows / seconds
    latencies.sort((a, b) => a - b)
    printTable(
      `Happy-path flows over HTTP (9 requests each, ${WORKERS} at a time, ${SECONDS} s; sandbox a child process, rate limit off)`,
      ['flows', 'seconds', 'flows/s', 'requests/s', 'p50 flow ms', 'p99 flow ms'],
      [
        [
          fmt(flows),
          fmt(seconds, 2),
          fmt(rate),
          fmt(rate * 9),
          fmt(latencies[Math.floor(latencies.length / 2)]),
          fmt(latencies[Math.floor(latencies.length * 0.99)]),
        ],
      ],
      [`flows/s ${fmt(rate)} (target >= ${TARGET})   ${verdict(rate >= TARGET)}`],
    )
    return { rate }
  } finally {
    await killChild(sandbox.child)
    await killAllChildren()
  }
}

if (isMain(import.meta.url)) await run()
