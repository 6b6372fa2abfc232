// The baselines for http-throughput: bare Hono routes on @hono/node-server, nothing else.
// `/bare` answers a tiny JSON; `/bare-partner` answers the same bytes as the sandbox's
// GET /partner/me for the default partner, so the comparison isolates the sandbox's own
// work (auth, middleware, routing) from the cost of moving a larger body.
// Prints `READY <url>` once listening; exits when stdin (its lifeline to the bench) closes.
import { readFileSync } from 'node:fs'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'

const fixtures = JSON.parse(
  readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8'),
)
const { api_secret_hash: _hash, scenario: _scenario, ...partner } = fixtures.partners[0]
const fields = [
  'id',
  'name',
  'display_name',
  'slug',
  'api_key',
  'allowed_origins',
  'webhook_url',
  'scopes',
  'rate_limit',
  'status',
  'contact_email',
  'contact_name',
  'config',
  'created_at',
  'updated_at',
]
const body = { partner: Object.fromEntries(fields.map((f) => [f, partner[f]])) }

const app = new Hono()
  .get('/bare', (c) => c.json({ ok: true }))
  .get('/bare-partner', (c) => c.json(body))
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`READY http://127.0.0.1:${info.port}\n`)
})
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
process.on('SIGTERM', () => process.exit(0))
