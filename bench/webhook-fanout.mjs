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
const WAIT_MS = Number(process.env.BENCH_WEBHOOK_WAIT_MS ?? 120_000)

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

/**
 * Asks for one event of phase `phase`; answers its status (0: no answer), its id when made
 * and, if refused, why. Never throws.
 */
const askEvent = (url, partnerId, phase) =>
  fetch(`${url}/_sandbox/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      partner_id: partnerId,
      type: 'webhook.test',
      object: { sent_at: Date.now(), phase },
    }),
  }).then(
    async (res) => {
      const text = await res.text()
      if (!res.ok) return { status: res.status, text: text.slice(0, 300) }
      return { status: res.status, text: '', eventId: JSON.parse(text).event?.id }
    },
    (error) => ({ status: 0, text: String(error.cause ?? error) }),
  )

/** At most this many missing deliveries are looked up in the sandbox and printed. */
const MISSING_SHOWN = 5

/**
 * The deliveries that never arrived (accepted events × endpoints, less the keys the receiver
 * counted), the first few with what the sandbox says of them: status, attempts and the next
 * attempt's time, so a miss can be told from a slow retry and found in the sandbox's log.
 */
async function missingDeliveries(url, endpoints, answers, keys) {
  const arrived = new Set(keys)
  const missing = []
  for (const { eventId } of answers) {
    if (!eventId) continue
    for (const [path, webhookId] of endpoints)
      if (!arrived.has(`${path} ${eventId}`)) missing.push({ path, webhookId, eventId })
  }
  const shown = []
  for (const m of missing.slice(0, MISSING_SHOWN)) {
    const state = await deliveryOf(url, m.webhookId, m.eventId).catch((error) => String(error))
    shown.push(`${m.path} event ${m.eventId}: ${state}`)
  }
  return shown
}

/** What the sandbox's delivery log says of `eventId`'s delivery to the endpoint. */
async function deliveryOf(url, webhookId, eventId) {
  let after = ''
  for (;;) {
    const res = await fetch(
      `${url}/api/v1/partner/webhooks/${webhookId}/deliveries?limit=100${after}`,
      { headers: partnerHeaders },
    )
    const page = await res.json()
    const d = page.data?.find((x) => x.event_id === eventId)
    if (d)
      return `${d.id} ${d.status}, ${d.attempts.length} attempt(s) ${JSON.stringify(d.attempts.map((a) => a.status_code ?? a.error?.slice(0, 40)))}, next ${d.next_attempt_at}`
    if (!page.has_more) return 'no delivery in the log (never made, or removed by retention)'
    after = `&starting_after=${page.data.at(-1).id}`
  }
}

/**
 * Asks for `events` events at `rate`/s, each through the next of `urls` (one sandbox, or
 * replicas of one), and waits for every delivery (at most WAIT_MS: then what arrived counts
 * and the rest is missing).
 */
async function phase(urls, receiver, partnerId, endpoints, name, events, rate) {
  const expected = events * ENDPOINTS
  receiver.child.stdin.write(`EXPECT ${expected} ${name}\n`)
  let done = waitForStdout(receiver.child, /^DONE (.+)\n/m, WAIT_MS)
  const started = Date.now()
  const pending = []
  for (let i = 0; i < events; i++) {
    const due = started + (i * 1000) / rate
    if (due > Date.now()) await sleep(due - Date.now())
    pending.push(askEvent(urls[i % urls.length], partnerId, name))
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
  const missingShown = result.keys
    ? await missingDeliveries(urls[0], endpoints, answers, result.keys)
    : []
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
    missingShown,
    duplicates: result.duplicates,
    retries: result.retries,
    late: result.late ?? 0,
  }
}

let fanOuts = 0

/**
 * The fan-out measured against `urls` (one sandbox, or replicas of one sharing a database):
 * ENDPOINTS endpoints registered, a warm-up phase, then `rounds` phases of `rate` events/s for
 * `seconds`. Answers the medians (max: the largest of any round; errors: the totals).
 */
export async function fanOut(urls, receiver, { rate = RATE, seconds = SECONDS, rounds = ROUNDS }) {
  const me = await (await fetch(`${urls[0]}/api/v1/partner/me`, { headers: partnerHeaders })).json()
  /** The receiver's path of each endpoint, with the endpoint's id. */
  const endpoints = []
  for (let i = 0; i < ENDPOINTS; i++) {
    const path = `/hook/${i}`
    const made = await post(`${urls[0]}/api/v1/partner/webhooks`, partnerHeaders, {
      url: `${receiver.url}${path}`,
      events: ['webhook.test'],
    })
    endpoints.push([path, made.webhook.id])
  }
  // Phases are named apart across calls (one receiver serves several sandboxes in turn).
  const run = `${process.pid}.${++fanOuts}`
  const ask = (name, events) => phase(urls, receiver, me.partner.id, endpoints, name, events, rate)
  await ask(`${run}.warm-up`, 100) // warm-up (connections, JIT)
  const measured = []
  for (let i = 0; i < rounds; i++) {
    measured.push(await ask(`${run}.${i + 1}`, Math.round(rate * seconds)))
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
    /** The first missing deliveries, each with what the sandbox says of it. */
    missingShown: measured.flatMap((x) => x.missingShown).slice(0, MISSING_SHOWN),
    duplicates: total('duplicates'),
    retries: total('retries'),
    late: total('late'),
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

/** The first refusals' answers and missing deliveries, a note line each. */
export const fanOutRefusals = (r) => [
  ...r.refusals.map((text) => `refused: ${text}`),
  ...(r.missingShown ?? []).map((text) => `missing: ${text}`),
]

/** "asks refused: 0 with a 5xx, 0 other; deliveries missing: 0, retried: 0, duplicated: 0, late: 0". */
export const fmtFanOutErrors = (r) =>
  `asks refused: ${fmt(r.refused5xx)} with a 5xx, ${fmt(r.refusedOther)} other; deliveries missing: ${fmt(r.missing)}, retried: ${fmt(r.retries)} (an attempt failed), duplicated: ${fmt(r.duplicates)} (an attempt made twice), late: ${fmt(r.late ?? 0)} (of an earlier phase)`

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
