// The baseline of http-throughput: bare Hono on @hono/node-server, one route per page answering
// a fixed JSON text, nothing else (no middleware). BENCH_PAGES is a JSON object of path ->
// body: the sandbox's own answers (the partner record, the user, a transactions page), taken
// once at start, so each sandbox figure is a ratio against sending the same bytes.
// Prints `READY <url>` once listening; exits when stdin (its lifeline to the bench) closes.
import { serve } from '@hono/node-server'
import { Hono } from 'hono'

const pages = JSON.parse(process.env.BENCH_PAGES ?? '{}')
const app = new Hono()
for (const [path, body] of Object.entries(pages))
  app.get(path, (c) => c.body(body, 200, { 'content-type': 'application/json' }))
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`READY http://127.0.0.1:${info.port}\n`)
})
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
process.on('SIGTERM', () => process.exit(0))
