/**
 * Whichever way a route builds its answer (a plain c.json, one after c.header(), a redirect, a
 * stream, an HTML page), the answer carries X-Request-Id and the rate limit's headers.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { stream } from 'hono/streaming'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../src/http/app-env.js'
import { setup } from './helpers.js'

/** A sandbox with test routes under /api/v1, mounted before its first request. */
async function sandboxWithRoutes() {
  const { sandbox, call } = await setup()
  // The public type only answers requests; the routes go on the app itself, before any request.
  const app = sandbox.app as unknown as OpenAPIHono<AppEnv>
  app.get('/api/v1/test/plain', (c) => c.json({ ok: true }, 200))
  app.get('/api/v1/test/header', (c) => {
    c.header('X-Route', 'set by the route')
    return c.json({ ok: true }, 200)
  })
  app.get('/api/v1/test/redirect', (c) => c.redirect('/api/v1/partner/me', 302))
  app.get('/api/v1/test/stream', (c) =>
    stream(c, async (s) => {
      await s.write('first,')
      await s.write('second')
    }),
  )
  app.get('/api/v1/test/html', (c) => c.html('<p>page</p>'))
  return { call }
}

describe('every way of answering keeps the request id and the rate-limit headers', () => {
  it.each([
    ['a plain c.json', '/api/v1/test/plain', 200],
    ['c.json after c.header()', '/api/v1/test/header', 200],
    ['c.redirect()', '/api/v1/test/redirect', 302],
    ['a stream', '/api/v1/test/stream', 200],
    ['c.html()', '/api/v1/test/html', 200],
  ] as const)('%s', async (_name, path, status) => {
    const { call } = await sandboxWithRoutes()
    const first = await call('GET', path, { headers: { 'x-request-id': 'trace-answer-headers' } })
    const second = await call('GET', path)
    expect(first.status, first.text).toBe(status)
    expect(first.headers.get('x-request-id')).toBe('trace-answer-headers')
    expect(second.headers.get('x-request-id')).toMatch(/^req_/)
    for (const res of [first, second]) {
      expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/)
      expect(res.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/)
    }
    // Counted once per request, whichever path the answer took.
    expect(Number(first.headers.get('x-ratelimit-remaining'))).toBe(
      Number(second.headers.get('x-ratelimit-remaining')) + 1,
    )
  })

  it("keeps the route's own headers, the redirect's Location and the stream's body", async () => {
    const { call } = await sandboxWithRoutes()
    expect((await call('GET', '/api/v1/test/header')).headers.get('x-route')).toBe(
      'set by the route',
    )
    expect((await call('GET', '/api/v1/test/redirect')).headers.get('location')).toBe(
      '/api/v1/partner/me',
    )
    expect((await call('GET', '/api/v1/test/stream')).text).toBe('first,second')
  })

  it('a refusal too: a 401 carries the request id, a 404 the rate limit', async () => {
    const { call } = await sandboxWithRoutes()
    const refused = await call('GET', '/api/v1/test/plain', { creds: null })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('x-request-id')).toBe(refused.json.requestId)
    const missing = await call('GET', '/api/v1/test/none')
    expect(missing.status).toBe(404)
    expect(missing.headers.get('x-request-id')).toBe(missing.json.requestId)
    expect(missing.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/)
  })
})
