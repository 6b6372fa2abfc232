// Webhook fan-out: EVENTS events × ENDPOINTS endpoints, delivered to a local receiver.
// The sandbox and the receiver are child processes; this process creates the endpoints and
// asks for the events (POST /_sandbox/events). Each event carries the time it was asked for,
// so the receiver measures the event -> delivery delay. Two phases:
// - burst: every event asked as fast as the API takes them (CONCURRENCY at a time): the
//   deliveries/s figure, with the delays of a saturated machine;
// - paced: the same number of events at PACED_RATE events/s, below saturation: the delay a
//   partner sees in normal operation (the p50 target is checked here).
import {
  fmt,
  isMain,
  killAllChildren,
  killChild,
  partnerHeaders,
  printTable,
  startBenchServer,
  verdict,
  waitForStdout,
} from './lib.mjs'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000)
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 5)
const CONCURRENCY = Number(process.env.BENCH_EVENT_CONCURRENCY ?? 20)
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 200)
const TARGET_RATE = 2000
const TARGET_P50_MS = 20

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

/** Asks for EVENTS events (burst, or paced at `rate`/s) and waits for every delivery. */
async function phase(sandbox, receiver, partnerId, rate) {
  const expected = EVENTS * ENDPOINTS
  receiver.child.stdin.write(`EXPECT ${expected}\n`)
  const done = waitForStdout(receiver.child, /^DONE (.+)\n/m, 120_000)
  const ask = () =>
    post(
      `${sandbox.url}/_sandbox/events`,
      {},
      { partner_id: partnerId, type: 'webhook.test', object: { sent_at: Date.now() } },
    )
  const started = Date.now()
  if (rate) {
    const pending = []
    for (let i = 0; i < EVENTS; i++) {
      const due = started + (i * 1000) / rate
      if (due > Date.now()) await sleep(due - Date.now())
      pending.push(ask())
    }
    await Promise.all(pending)
  } else {
    let next = 0
    const worker = async () => {
      while (next < EVENTS) {
        next++
        await ask()
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  }
  const asked = Date.now()
  const result = JSON.parse((await done).match[1])
  const delays = result.delays.sort((a, b) => a - b)
  const seconds = (result.last - started) / 1000
  return {
    count: result.count,
    seconds,
    rate: result.count / seconds,
    askedIn: (asked - started) / 1000,
    p50: percentile(delays, 50),
    p90: percentile(delays, 90),
    p99: percentile(delays, 99),
    max: delays.at(-1),
  }
}

export async function run() {
  const sandbox = await startBenchServer('sandbox')
  const receiver = await startBenchServer('receiver')
  try {
    const me = await (
      await fetch(`${sandbox.url}/api/v1/partner/me`, { headers: partnerHeaders })
    ).json()
    for (let i = 0; i < ENDPOINTS; i++) {
      await post(`${sandbox.url}/api/v1/partner/webhooks`, partnerHeaders, {
        url: `${receiver.url}/hook/${i}`,
        events: ['webhook.test'],
      })
    }
    const burst = await phase(sandbox, receiver, me.partner.id)
    const paced = await phase(sandbox, receiver, me.partner.id, PACED_RATE)
    printTable(
      `Webhook fan-out: ${fmt(EVENTS)} events × ${ENDPOINTS} endpoints to a local receiver; sandbox and receiver are child processes`,
      [
        'phase',
        'deliveries',
        'seconds',
        'deliveries/s',
        'asked in s',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'max ms',
      ],
      [
        [`burst (${CONCURRENCY} at a time)`, burst],
        [`paced (${PACED_RATE} events/s)`, paced],
      ].map(([label, r]) => [
        label,
        fmt(r.count),
        fmt(r.seconds, 2),
        fmt(r.rate),
        fmt(r.askedIn, 2),
        fmt(r.p50),
        fmt(r.p90),
        fmt(r.p99),
        fmt(r.max),
      ]),
      [
        `burst deliveries/s ${fmt(burst.rate)} (target >= ${TARGET_RATE})   ${verdict(burst.rate >= TARGET_RATE)}`,
        `paced p50 event -> delivery ${fmt(paced.p50)} ms (target < ${TARGET_P50_MS} ms)   ${verdict(paced.p50 < TARGET_P50_MS)}`,
        `(burst p50 ${fmt(burst.p50)} ms: with every event asked at once, the delay is mostly queueing)`,
      ],
    )
    return { rate: burst.rate, p50: paced.p50, burstP50: burst.p50 }
  } finally {
    await killChild(sandbox.child)
    await killChild(receiver.child)
    await killAllChildren()
  }
}

if (isMain(import.meta.url)) await run()
