/**
 * Trick 6 (http/handler-chain.ts) runs a route's handlers as one, in place of hono's compose:
 * the same app, built once with it and once without, must answer every request the same way,
 * whatever its layers do (wait or not, throw before or after next(), answer nothing, take path
 * parameters). And a request none of whose layers waits is answered without a promise, which is
 * what the trick is for: @hono/node-server writes such an answer at once.
 */
import { type Context, Hono, type MiddlewareHandler } from 'hono'
import { describe, expect, it } from 'vitest'
import { CachedRouter } from '../src/http/fast-path.js'
import { collapseHandlers } from '../src/http/handler-chain.js'
import { DEFAULT_PARTNER, startSandbox } from '../src/index.js'

type Env = { Variables: { trail: string[] } }

function buildApp(collapsed: boolean) {
  const router = new CachedRouter<never>()
  const app = new Hono<Env>({ router })
  const trail = (c: { get(key: 'trail'): string[]; set(key: 'trail', v: string[]): void }) => {
    const kept = c.get('trail') ?? []
    c.set('trail', kept)
    return kept
  }
  app.use('*', async (c, next) => {
    trail(c).push('first in')
    await next()
    trail(c).push('first out')
    c.header('X-Trail', trail(c).join(' > '))
  })
  app.use('/items/:id/*', (c, next) => {
    trail(c).push(`item ${c.req.param('id')}`)
    return next()
  })
  // A layer that answers at once, without next() and without waiting.
  app.use('/short/*', ((c: Context<Env>) =>
    c.json({ short: true }, 202)) as unknown as MiddlewareHandler<Env>)
  app.get('/sync', (c) => c.json({ sync: true }))
  app.get('/async', async (c) => {
    await new Promise((resolve) => setImmediate(resolve))
    return c.json({ async: true })
  })
  app.get('/items/:id/detail', (c) => c.json({ id: c.req.param('id') }))
  app.get('/short/x', (c) => c.json({ reached: true }))
  app.get('/throws', () => {
    throw new Error('thrown by the route')
  })
  app.get('/rejects', async () => {
    await Promise.resolve()
    throw new Error('rejected by the route')
  })
  app.get('/nothing', () => undefined as unknown as Response)
  app.get('/twice', async (_c, next) => {
    await next()
    await next()
  })
  app.use('/after/*', async (_c, next) => {
    await next()
    throw new Error('thrown after next')
  })
  app.get('/after/x', (c) => c.json({ before: true }))
  app.onError((error, c) => c.json({ error: error.message }, 500))
  app.notFound((c) => c.json({ notFound: c.req.path }, 404))
  if (collapsed)
    router.finishWith((result) =>
      collapseHandlers(
        result,
        (error, c) => c.json({ error: error.message }, 500),
        (c) => c.json({ notFound: c.req.path }, 404),
      ),
    )
  return app
}

async function answer(app: Hono<Env>, path: string) {
  const res = await app.request(path)
  return { status: res.status, body: await res.text(), trail: res.headers.get('x-trail') }
}

describe('a route whose handlers run as one answers as hono compose does', () => {
  const paths = [
    '/sync',
    '/async',
    '/items/42/detail',
    '/short/x',
    '/throws',
    '/rejects',
    '/nothing',
    '/twice',
    '/after/x',
    '/no-such-route',
  ]
  it.each(paths)('%s', async (path) => {
    const expected = await answer(buildApp(false), path)
    const got = await answer(buildApp(true), path)
    expect(got).toEqual(expected)
  })

  it('runs the layers in order around the route, with its path parameters', async () => {
    const got = await answer(buildApp(true), '/items/42/detail')
    expect(got.status).toBe(200)
    expect(JSON.parse(got.body)).toEqual({ id: '42' })
    expect(got.trail).toBe('first in > item 42 > first out')
  })

  it('answers without a promise when no layer waits, and with one when one does', async () => {
    const app = new Hono()
    const router = new CachedRouter<never>()
    const sync = new Hono({ router })
    sync.use('*', (_c, next) => next())
    sync.get('/sync', (c) => c.json({ sync: true }))
    router.finishWith((result) =>
      collapseHandlers(
        result,
        (error, c) => c.json({ error: error.message }, 500),
        (c) => c.json({}, 404),
      ),
    )
    expect(sync.fetch(new Request('http://x/sync'))).toBeInstanceOf(Response)
    expect(app.fetch(new Request('http://x/sync'))).toBeInstanceOf(Promise)
  })
})

describe("the sandbox's API", () => {
  it('answers an authenticated read, journaled and counted', async () => {
    const sandbox = await startSandbox({ port: 0, logLevel: 'silent' })
    try {
      const headers = {
        'x-partner-key': DEFAULT_PARTNER.api_key,
        'x-partner-secret': DEFAULT_PARTNER.api_secret,
      }
      const request = () => new Request('http://127.0.0.1/api/v1/partner/me', { headers })
      // The first request checks the secret (scrypt); the next one reads the partner row again
      // and checks the secret's digest against it (no promise-free path: the row is read).
      const first = await sandbox.app.fetch(request())
      expect(first.status).toBe(200)
      const res = await sandbox.app.fetch(request())
      expect(res.status).toBe(200)
      expect(res.headers.get('x-request-id')).toMatch(/^req_/)
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(
        Number(first.headers.get('x-ratelimit-remaining')) - 1,
      )
      const journal = await fetch(
        `${sandbox.url}/_sandbox/requests?partner_id=${DEFAULT_PARTNER.id}&limit=1`,
      )
      const [entry] = ((await journal.json()) as { data: { id: string; status: number }[] }).data
      expect(entry?.id).toBe(res.headers.get('x-request-id'))
      expect(entry?.status).toBe(200)
    } finally {
      await sandbox.close()
    }
  })
})
