// The baseline for http-throughput: ONE small JSON route on @hono/node-server and nothing
// else (no middleware, no other route). Every sandbox figure is a ratio against this.
// Prints `READY <url>` once listening; exits when stdin (its lifeline to the bench) closes.
import { serve } from '@hono/node-server'
import { Hono } from 'hono'

const app = new Hono().get('/ok', (c) => c.json({ ok: true }))
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`READY http://127.0.0.1:${info.port}\n`)
})
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
process.on('SIGTERM', () => process.exit(0))
