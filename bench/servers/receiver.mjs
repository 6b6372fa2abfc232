// A webhook receiver for webhook-fanout: answers 200 at once, and for each delivery records
// the delay from data.object.sent_at (Date.now() when the bench asked for the event) to its
// arrival. A delivery is its endpoint (the path) and its event (webhook-id): one that arrives
// again is not counted as a delivery but as a retry (a later attempt: the one before failed,
// say timed out on a busy machine) or as a duplicate (the same attempt again: replicas must
// make each attempt once).
// Each event carries the phase it was asked in (data.object.phase): a delivery counts in that
// phase only, so one that comes late (its phase gave up waiting, or its ask was answered with
// an error although the event was made) is counted as late, never in place of one of the
// phase under way.
// Prints `READY <url>`. Commands on stdin, one a line:
// - `EXPECT n phase`: starts phase `phase`, ended by `DONE <json>` once n of its deliveries
//   have arrived;
// - `TARGET n`: the phase ends at n instead (asks that failed make no deliveries);
// - `REPORT`: `DONE <json>` now, with what has arrived and the keys (`path event-id`) of the
//   phase's deliveries (the bench gave up waiting, and finds which are missing).
// Exits when stdin closes.
import http from 'node:http'

let expected = Number.POSITIVE_INFINITY
let delays = []
let first = 0
let last = 0
let duplicates = 0
let retries = 0
/** Deliveries of an earlier phase that arrived during this one. */
let late = 0
let phase
/** The keys of this phase's deliveries, for REPORT. */
let keys = []
/** Every delivery and every attempt of the run: a late one of an earlier phase is still one. */
const seen = new Set()
const attempts = new Set()

const report = (withKeys = false) =>
  process.stdout.write(
    `DONE ${JSON.stringify({ count: delays.length, delays, first, last, duplicates, retries, late, ...(withKeys ? { keys } : {}) })}\n`,
  )

const server = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const now = Date.now()
    res.writeHead(200).end()
    const key = `${req.url} ${req.headers['webhook-id']}`
    const attempt = `${key} ${req.headers['x-sandbox-attempt']}`
    if (attempts.has(attempt)) {
      duplicates++
      return
    }
    attempts.add(attempt)
    if (seen.has(key)) {
      retries++
      return
    }
    seen.add(key)
    const event = JSON.parse(Buffer.concat(chunks).toString())
    if (event.data.object.phase !== phase) {
      late++
      return
    }
    keys.push(key)
    delays.push(now - event.data.object.sent_at)
    if (!first) first = now
    last = now
    if (delays.length === expected) report()
  })
})
server.keepAliveTimeout = 30_000
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`READY http://127.0.0.1:${server.address().port}\n`),
)
process.stdin.setEncoding('utf8')
process.stdin.on('data', (text) => {
  for (const line of text.split('\n')) {
    const [command, n, name] = line.trim().split(' ')
    if (command === 'EXPECT') {
      expected = Number(n)
      phase = name
      keys = []
      late = 0
      delays = []
      first = 0
      last = 0
      duplicates = 0
      retries = 0
    } else if (command === 'TARGET') {
      expected = Number(n)
      if (delays.length >= expected) report()
    } else if (command === 'REPORT') report(true)
  }
})
process.stdin.on('end', () => process.exit(0))
process.on('SIGTERM', () => process.exit(0))
