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

/** Asks for `events` events at `rate`/s and waits for every delivery. */
async function phase(sandbox, receiver, partnerId, events, rate) {
  const expected = events * ENDPOINTS
  receiver.child.stdin.write(`EXPECT ${expected}\n`)
  const done = waitForStdout(receiver.child, /^DONE (.+)\n/m, 120_000)
  const ask = () =>
    post(
      `${sandbox.url}/_sandbox/events`,
      {},
      { partner_id: partnerId, type: 'webhook.test', object: { sent_at: Date.now() } },
    )
  const started = Date.now()
  const pending = []
  for (let i = 0; i < events; i++) {
    const due = started + (i * 1000) / rate
    if (due > Date.now()) await sleep(due - Date.now())
    pending.push(ask())
  }
  await Promise.all(pending)
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
  const sandbox = await startSandboxCli()
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
    await phase(sandbox, receiver, me.partner.id, 100, RATE) // warm-up (connections, JIT)
    const rounds = []
    for (let i = 0; i < ROUNDS; i++) {
      rounds.push(await phase(sandbox, receiver, me.partner.id, Math.round(RATE * SECONDS), RATE))
    }
    const r = {
      count: median(rounds.map((x) => x.count)),
      seconds: median(rounds.map((x) => x.seconds)),
      rate: median(rounds.map((x) => x.rate)),
      askedIn: median(rounds.map((x) => x.askedIn)),
      p50: median(rounds.map((x) => x.p50)),
      p90: median(rounds.map((x) => x.p90)),
      p99: median(rounds.map((x) => x.p99)),
      max: Math.max(...rounds.map((x) => x.max)),
    }
    const pass = r.rate >= TARGET_RATE && r.p50 < TARGET_P50_MS
    printTable(
      `Webhook fan-out: ${fmt(RATE)} events/s × ${ENDPOINTS} endpoints for ${SECONDS} s, ${ROUNDS} rounds, to a local receiver; sandbox and receiver are child processes`,
      [
        'round',
        'deliveries',
        'seconds',
        'deliveries/s',
        'asked in s',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'max ms',
      ],
      [...rounds.map((x, i) => [String(i + 1), x]), ['median', r]].map(([label, x]) => [
        label,
        fmt(x.count),
        fmt(x.seconds, 2),
        fmt(x.rate),
        fmt(x.askedIn, 2),
        fmt(x.p50),
        fmt(x.p90),
        fmt(x.p99),
        fmt(x.max),
      ]),
      [
        `deliveries/s ${fmt(r.rate)} (target >= ${fmt(TARGET_RATE)}) with p50 event -> delivery ${fmt(r.p50)} ms at that rate (target < ${TARGET_P50_MS} ms), medians of ${ROUNDS} rounds (max: the largest of any round)   ${verdict(pass)}`,
      ],
    )
    return {
      ...r,
      rounds,
      targetRate: TARGET_RATE,
      targetP50: TARGET_P50_MS,
      pass,
    }
  } finally {
    await killChild(sandbox.child)
    await killChild(receiver.child)
    await killAllChildren()
  }
}

if (isMain(import.meta.url)) await run()
