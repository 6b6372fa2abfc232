// A webhook receiver for webhook-fanout: answers 200 at once, and for each delivery records
// the delay from data.object.sent_at (Date.now() when the bench asked for the event) to its
// arrival. Prints `READY <url>`; each `EXPECT n` on stdin starts a new phase, ended by
// `DONE <json>` once n deliveries have arrived. Exits when stdin closes.
import http from 'node:http'

let expected = Number.POSITIVE_INFINITY
let delays = []
let first = 0
let last = 0
const server = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const now = Date.now()
    res.writeHead(200).end()
    const event = JSON.parse(Buffer.concat(chunks).toString())
    delays.push(now - event.data.object.sent_at)
    if (!first) first = now
    last = now
    if (delays.length === expected) {
      process.stdout.write(
        `DONE ${JSON.stringify({ count: delays.length, delays, first, last })}\n`,
      )
    }
  })
})
server.keepAliveTimeout = 30_000
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`READY http://127.0.0.1:${server.address().port}\n`),
)
process.stdin.setEncoding('utf8')
process.stdin.on('data', (text) => {
  const match = /EXPECT (\d+)/.exec(text)
  if (match) {
    expected = Number(match[1])
    delays = []
    first = 0
    last = 0
  }
})
process.stdin.on('end', () => process.exit(0))
process.on('SIGTERM', () => process.exit(0))
