/**
 * Each route declares its access once (http/access.ts); the OpenAPI document and the gates both
 * follow that declaration. These tests walk every declared route, so a route added later is
 * covered without being named here.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { accessOf } from '../src/app.js'
import { securityOf, withAccess } from '../src/http/access.js'
import { AccessTable } from '../src/http/access-table.js'
import { acme, setup } from './helpers.js'

const TOKEN = 'admin-token-for-route-access'
const orgRefusal = /^Missing X-Partner-Key and X-Partner-Secret headers/
const sessionRefusal = /^Missing Authorization header/
const adminRefusal = /^The sandbox control plane needs the admin token/

/** A request path for a route pattern: every parameter filled in. */
const pathOf = (pattern: string) => pattern.replaceAll(/:[^/]+/g, 'x').replace(/\/\*$/, '/x')

describe('the OpenAPI document', () => {
  it("gives every operation the security of its route's declared access", async () => {
    const { sandbox, call } = await setup()
    const table = accessOf(sandbox.app)
    const doc = (await call('GET', '/openapi.json')).json
    let checked = 0
    for (const [path, item] of Object.entries(doc.paths as Record<string, object>)) {
      for (const [method, operation] of Object.entries(item as Record<string, object>)) {
        const pattern = path.replaceAll(/\{([^}]+)\}/g, ':$1')
        const access = table.of(method.toUpperCase(), pattern)
        expect(access, `${method} ${path}`).toBeDefined()
        expect(
          (operation as { security?: unknown }).security,
          `${method} ${path} (${access})`,
        ).toEqual(securityOf(access as NonNullable<typeof access>))
        checked++
      }
    }
    expect(checked).toBeGreaterThan(50)
  })
})

describe('the gates follow the declared access', () => {
  it('every /api/v1 route: public ones answer without credentials, org ones 401, session ones 401 without a session', async () => {
    const { sandbox, call } = await setup()
    const routes = accessOf(sandbox.app)
      .declared()
      .filter((r) => r.path.startsWith('/api/v1/'))
    expect(routes.map((r) => r.access)).toEqual(
      expect.arrayContaining(['public', 'org', 'session']),
    )
    for (const { method, path, access } of routes) {
      const label = `${method} ${path} (${access})`
      const bare = await call(method, pathOf(path), { creds: null })
      if (access === 'public') {
        expect(bare.json?.error?.message ?? '', label).not.toMatch(orgRefusal)
        expect(bare.status, label).not.toBe(401)
        continue
      }
      expect(bare.status, label).toBe(401)
      expect(bare.json.error.message, label).toMatch(orgRefusal)
      // With the credentials but no session (never sent for org routes: one rotates them).
      if (access !== 'session') continue
      const org = await call(method, pathOf(path), { creds: acme })
      expect(org.status, label).toBe(401)
      expect(org.json.error.message, label).toMatch(sessionRefusal)
    }
  })

  it('every /_sandbox route with an admin token: public ones open, admin ones 401', async () => {
    const { sandbox, call } = await setup({ adminToken: TOKEN })
    const routes = accessOf(sandbox.app)
      .declared()
      .filter((r) => r.path === '/_sandbox' || r.path.startsWith('/_sandbox/'))
    const open = routes.filter((r) => r.access === 'public').map((r) => `${r.method} ${r.path}`)
    expect(open.sort()).toEqual([
      'GET /_sandbox',
      'GET /_sandbox/assets/dashboard.css',
      'GET /_sandbox/assets/dashboard.js',
      'GET /_sandbox/health',
      'POST /_sandbox/sink/:name',
    ])
    for (const { method, path, access } of routes) {
      const label = `${method} ${path} (${access})`
      const res = await call(method, pathOf(path), { creds: null })
      if (access === 'public')
        expect(res.json?.error?.message ?? '', label).not.toMatch(adminRefusal)
      else {
        expect(res.status, label).toBe(401)
        expect(res.json.error.message, label).toMatch(adminRefusal)
      }
    }
  })

  it('a path no route takes needs what the routes around it share, never a public neighbour', async () => {
    const { call } = await setup({ adminToken: TOKEN })
    const bare = { creds: null }
    // Under /api/v1: the org credentials first, then a session where every route needs one.
    expect((await call('GET', '/api/v1/no-such-route', bare)).json.error.message).toMatch(
      orgRefusal,
    )
    expect((await call('GET', '/api/v1/no-such-route')).status).toBe(404)
    const cards = await call('GET', '/api/v1/partner/cards/no-such-route')
    expect(cards.json.error.message).toMatch(sessionRefusal)
    // The public page's path with another method is not public.
    const posted = await call('POST', '/api/v1/external-bank-account-connect/connect', bare)
    expect(posted.json.error.message).toMatch(orgRefusal)
    // A public route with a trailing slash stays public, as it always was.
    const slash = await call('GET', '/api/v1/external-bank-account-connect/connect/', bare)
    expect(slash.status).not.toBe(401)
    // The control plane: the token, even beside the open health check.
    for (const [method, path] of [
      ['POST', '/_sandbox/health'],
      ['GET', '/_sandbox/no-such-route'],
      ['GET', '/_sandbox/health/x'],
    ] as const) {
      const res = await call(method, path, bare)
      expect(res.json.error.message, `${method} ${path}`).toMatch(adminRefusal)
    }
  })
})

describe('the access table', () => {
  it('refuses to start an app with a route that declares no access', () => {
    const app = new Hono()
    app.get(
      '/declared',
      withAccess('public', (c) => c.text('ok')),
    )
    app.get('/forgotten', (c) => c.text('?'))
    expect(() =>
      new AccessTable().load({ routes: app.routes, openAPIRegistry: { definitions: [] } }),
    ).toThrow('GET /forgotten declares no access')
  })

  it('matches literal segments before parameters, and HEAD as GET', () => {
    const table = new AccessTable()
    table.declare('GET', '/a/:id', 'org')
    table.declare('GET', '/a/me', 'session')
    table.declare('GET', '/files/*', 'public')
    expect(table.of('GET', '/a/me')).toBe('session')
    expect(table.of('HEAD', '/a/me')).toBe('session')
    expect(table.of('GET', '/a/42')).toBe('org')
    expect(table.of('GET', '/files/x/y')).toBe('public')
    // Unknown: what the neighbours share (org and session share org); public ones never count.
    expect(table.of('DELETE', '/a/42')).toBe('org')
    expect(table.of('GET', '/files')).toBe('org')
    table.declare('GET', '/control/x', 'admin')
    // Nothing in common between the organization credentials and the admin token.
    expect(table.of('GET', '/nowhere')).toBeUndefined()
    expect(table.of('GET', '/control/y')).toBe('admin')
  })
})
