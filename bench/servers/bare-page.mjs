// Context for the transactions figure, not a baseline: bare Hono with ONE route answering a
// fixed JSON text (BENCH_PAGE: the sandbox's own transactions page, serialized once at start),
// so the table shows what sending that many bytes costs before the sandbox does anything.
// Prints `READY <url>` once listening; exits when stdin (its lifeline to the bench) closes.
import { serve } from '@hono/node-server'
import { Hono } from 'hono'

const page = process.env.BENCH_PAGE ?? '{}'
const app = new Hono().get('/page', (c) =>
  c.body(page, 200, { 'content-type': 'application/json' }),
)
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`READY http://127.0.0.1:${info.port}\n`)
})
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
process.on('SIGTERM', () => process.exit(0))
