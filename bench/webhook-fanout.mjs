// Webhook fan-out: events × ENDPOINTS endpoints delivered to a local receiver. The sandbox (the
// CLI with default flags) and the receiver are child processes; this process asks for the events (POST /_sandbox/events)
// at a steady pace of RATE events/s for SECONDS. Each event carries the time it was asked
// for, so the receiver measures the event -> delivery delay. Throughput (deliveries/s, from
// the first ask to the last delivery) and the p50 delay come from the same phase: the p50 is
// the one at the rate reported as throughput, never one of an easier, slower phase. ROUNDS
// measured phases (at least 3) follow a warm-up; the figures are their medians, each round
// printed: one hiccup of a 2-core machine queues every later delivery of its phase behind it.
import {
  fmt,
  isMain,
  killAllChildren,
  killChild,
  median,
  partnerHeaders,
  printTable,
  startBenchServer,
  startSandboxCli,
  verdict,
  waitForStdout,
} from './lib.mjs'

const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 5)
const RATE = Number(process.env.BENCH_EVENT_RATE ?? 440) // events/s; x5 = 2,200 deliveries/s
const SECONDS = Number(process.env.BENCH_EVENT_SECONDS ?? 4)
const ROUNDS = Math.max(3, Number(process.env.BENCH_WEBHOOK_ROUNDS ?? 3))
const TARGET_RATE = 2000
const TARGET_P50_MS = 20
/** The longest wait for a phase's deliveries: then what has not arrived counts as missing. */
const WAIT_MS = 120_000

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function post(url, headers, body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${await res.text()}`)
  return res.json()
}

/** Asks for one event; answers its status (0: no answer) and, if refused, why. Never throws. */
const askEvent = (url, partnerId) =>
  fetch(`${url}/_sandbox/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      partner_id: partnerId,
      type: 'webhook.test',
      object: { sent_at: Date.now() },
    }),
  }).then(
    async (res) => ({ status: res.status, text: res.ok ? '' : (await res.text()).slice(0, 300) }),
    (error) => ({ status: 0, text: String(error.cause ?? error) }),
  )

/**
 * Asks for `events` events at `rate`/s, each through the next of `urls` (one sandbox, or
 * replicas of one), and waits for every delivery (at most WAIT_MS: then what arrived counts
 * and the rest is missing).
 */
async function phase(urls, receiver, partnerId, events, rate) {
  const expected = events * ENDPOINTS
  receiver.child.stdin.write(`EXPECT ${expected}\n`)
  let done = waitForStdout(receiver.child, /^DONE (.+)\n/m, WAIT_MS)
  const started = Date.now()
  const pending = []
  for (let i = 0; i < events; i++) {
    const due = started + (i * 1000) / rate
    if (due > Date.now()) await sleep(due - Date.now())
    pending.push(askEvent(urls[i % urls.length], partnerId))
  }
  const answers = await Promise.all(pending)
  const asked = Date.now()
  const refused = answers
    .filter(({ status }) => status < 200 || status >= 300)
    .map(({ status }) => status)
  const target = expected - refused.length * ENDPOINTS
  if (refused.length > 0) receiver.child.stdin.write(`TARGET ${target}\n`)
  let result = await done.then(
    ({ match }) => JSON.parse(match[1]),
    () => undefined,
  )
  if (!result) {
    done = waitForStdout(receiver.child, /^DONE (.+)\n/m, 10_000)
    receiver.child.stdin.write('REPORT\n')
    result = JSON.parse((await done).match[1])
  }
  const delays = result.delays.sort((a, b) => a - b)
  const seconds = ((result.last || Date.now()) - started) / 1000
  return {
    count: result.count,
    seconds,
    rate: result.count / seconds,
    askedIn: (asked - started) / 1000,
    p50: percentile(delays, 50) ?? 0,
    p90: percentile(delays, 90) ?? 0,
    p99: percentile(delays, 99) ?? 0,
    max: delays.at(-1) ?? 0,
    refused5xx: refused.filter((status) => status >= 500).length,
    refusedOther: refused.filter((status) => status < 500).length,
    refusals: answers.filter(({ text }) => text).map(({ status, text }) => `${status} ${text}`),
    missing: Math.max(0, target - result.count),
    duplicates: result.duplicates,
    retries: result.retries,
  }
}

/**
 * The fan-out measured against `urls` (one sandbox, or replicas of one sharing a database):
 * ENDPOINTS endpoints registered, a warm-up phase, then `rounds` phases of `rate` events/s for
 * `seconds`. Answers the medians (max: the largest of any round; errors: the totals).
 */
export async function fanOut(urls, receiver, { rate = RATE, seconds = SECONDS, rounds = ROUNDS }) {
  const me = await (await fetch(`${urls[0]}/api/v1/partner/me`, { headers: partnerHeaders })).json()
  for (let i = 0; i < ENDPOINTS; i++) {
    await post(`${urls[0]}/api/v1/partner/webhooks`, partnerHeaders, {
      url: `${receiver.url}/hook/${i}`,
      events: ['webhook.test'],
    })
  }
  await phase(urls, receiver, me.partner.id, 100, rate) // warm-up (connections, JIT)
  const measured = []
  for (let i = 0; i < rounds; i++) {
    measured.push(await phase(urls, receiver, me.partner.id, Math.round(rate * seconds), rate))
  }
  const mid = (key) => median(measured.map((x) => x[key]))
  const total = (key) => measured.reduce((n, x) => n + x[key], 0)
  return {
    count: mid('count'),
    seconds: mid('seconds'),
    rate: mid('rate'),
    askedIn: mid('askedIn'),
    p50: mid('p50'),
    p90: mid('p90'),
    p99: mid('p99'),
    max: Math.max(...measured.map((x) => x.max)),
    refused5xx: total('refused5xx'),
    refusedOther: total('refusedOther'),
    /** The first few refusals' answers, to say what failed. */
    refusals: measured.flatMap((x) => x.refusals).slice(0, 3),
    missing: total('missing'),
    duplicates: total('duplicates'),
    retries: total('retries'),
    rounds: measured,
  }
}

/** The rows of a fan-out table: each round, then the medians. */
export const fanOutRows = (r) =>
  [...r.rounds.map((x, i) => [String(i + 1), x]), ['median', r]].map(([label, x]) => [
    label,
    fmt(x.count),
    fmt(x.seconds, 2),
    fmt(x.rate),
    fmt(x.askedIn, 2),
    fmt(x.p50),
    fmt(x.p90),
    fmt(x.p99),
    fmt(x.max),
  ])

export const FAN_OUT_HEADER = [
  'round',
  'deliveries',
  'seconds',
  'deliveries/s',
  'asked in s',
  'p50 ms',
  'p90 ms',
  'p99 ms',
  'max ms',
]

/** The first refusals' answers, a note line each. */
export const fanOutRefusals = (r) => r.refusals.map((text) => `refused: ${text}`)

/** "asks refused: 0 with a 5xx, 0 other; deliveries missing: 0, retried: 0, duplicated: 0". */
export const fmtFanOutErrors = (r) =>
  `asks refused: ${fmt(r.refused5xx)} with a 5xx, ${fmt(r.refusedOther)} other; deliveries missing: ${fmt(r.missing)}, retried: ${fmt(r.retries)} (an attempt failed), duplicated: ${fmt(r.duplicates)} (an attempt made twice)`

/** True when every ask was taken and every delivery made once. */
export const fanOutClean = (r) => r.refused5xx + r.refusedOther + r.missing + r.duplicates === 0

export async function run() {
  const sandbox = await startSandboxCli()
  const receiver = await startBenchServer('receiver')
  try {
    const r = await fanOut([sandbox.url], receiver, {})
    const pass = r.rate >= TARGET_RATE && r.p50 < TARGET_P50_MS && fanOutClean(r)
    printTable(
      `Webhook fan-out: ${fmt(RATE)} events/s × ${ENDPOINTS} endpoints for ${SECONDS} s, ${ROUNDS} rounds, to a local receiver; sandbox and receiver are child processes`,
      FAN_OUT_HEADER,
      fanOutRows(r),
      [
        `deliveries/s ${fmt(r.rate)} (target >= ${fmt(TARGET_RATE)}) with p50 event -> delivery ${fmt(r.p50)} ms at that rate (target < ${TARGET_P50_MS} ms), medians of ${ROUNDS} rounds (max: the largest of any round)   ${verdict(pass)}`,
        fmtFanOutErrors(r),
        ...fanOutRefusals(r),
      ],
    )
    return { ...r, targetRate: TARGET_RATE, targetP50: TARGET_P50_MS, pass }
  } finally {
    await killChild(sandbox.child)
    await killChild(receiver.child)
    await killAllChildren()
  }
}

if (isMain(import.meta.url)) await run()
