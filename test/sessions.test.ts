import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { northwind, registerAndLogin, setup, storedRows } from './helpers.js'

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('session tokens on Org + User routes', () => {
  it('walks register → login → inbox → verify → users/me → logout → 401', async () => {
    const { call } = await setup()
    const session = await registerAndLogin(call, { email: 'walk@example.com' })
    const me = await call('GET', '/api/v1/partner/users/me', { headers: session.bearer })
    expect(me.status).toBe(200)
    expect(me.json.email).toBe('walk@example.com')
    const out = await call('POST', '/api/v1/partner/auth/logout', { headers: session.bearer })
    expect(out.status).toBe(200)
    const after = await call('GET', '/api/v1/partner/users/me', { headers: session.bearer })
    expect(after.status).toBe(401)
    expect(after.json.error.message).toMatch(/ended \(logged_out\)/)
    expect(
      (await call('POST', '/api/v1/partner/auth/logout', { headers: session.bearer })).status,
    ).toBe(401)
  })

  it('refuses every bad token with 401', async () => {
    const { call } = await setup()
    const { token: sessionToken } = await registerAndLogin(call)
    const [header, payload, signature] = sessionToken.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    const forgedKey = new Uint8Array(32).fill(7)
    const cases: [string, Record<string, string>][] = [
      ['no Authorization', {}],
      ['not Bearer', { authorization: `Basic ${sessionToken}` }],
      ['not a JWT', { authorization: 'Bearer abc' }],
      [
        'tampered payload',
        {
          authorization: `Bearer ${header}.${b64({ ...claims, sub: '00000000-0000-4000-8000-000000000000' })}.${signature}`,
        },
      ],
      [
        'tampered signature',
        { authorization: `Bearer ${header}.${payload}.${signature.slice(0, -2)}AA` },
      ],
      ['alg none', { authorization: `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${payload}.` }],
      [
        'signed with another key',
        {
          authorization: `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(forgedKey)}`,
        },
      ],
    ]
    for (const [name, headers] of cases) {
      const res = await call('GET', '/api/v1/partner/users/me', { headers })
      expect(res.status, name).toBe(401)
      expect(res.json.error.code, name).toBe('unauthorized')
    }
    // Still fine with the real token: nothing above disturbed the session.
    expect(
      (
        await call('GET', '/api/v1/partner/users/me', {
          headers: { authorization: `Bearer ${sessionToken}` },
        })
      ).status,
    ).toBe(200)
    expect((await storedRows(call, 'sessions')).filter((s) => s.revoked_at)).toHaveLength(0)
  })

  it('expires by the sandbox clock', async () => {
    const { sandbox, call } = await setup({ sessionTtl: '1h' }, { frozenAt: true })
    const session = await registerAndLogin(call)
    await sandbox.clock.advance(59 * 60_000)
    expect(
      (await call('GET', '/api/v1/partner/users/me', { headers: session.bearer })).status,
    ).toBe(200)
    await sandbox.clock.advance(60_000)
    const res = await call('GET', '/api/v1/partner/users/me', { headers: session.bearer })
    expect(res.status).toBe(401)
    expect(res.json.error.message).toMatch(/expired/)
  })

  it("the control plane's expire-now ends a user's sessions at once", async () => {
    const { call } = await setup()
    const a = await registerAndLogin(call)
    const other = await registerAndLogin(call)
    // Used first: what the sandbox remembers of a token in use must not outlive its session.
    expect((await call('GET', '/api/v1/partner/users/me', { headers: a.bearer })).status).toBe(200)
    const res = await call('POST', `/_sandbox/users/${a.userId}/sessions/expire`, { creds: null })
    expect(res.json).toEqual({ expired: 1 })
    expect((await call('GET', '/api/v1/partner/users/me', { headers: a.bearer })).status).toBe(401)
    expect((await call('GET', '/api/v1/partner/users/me', { headers: other.bearer })).status).toBe(
      200,
    )
    const missing = await call(
      'POST',
      '/_sandbox/users/00000000-0000-4000-8000-000000000000/sessions/expire',
      { creds: null },
    )
    expect(missing.status).toBe(404)
  })

  it("a token used with another partner's credentials is 401, and users stay separate", async () => {
    const { call } = await setup()
    const a = await registerAndLogin(call, { email: 'same@example.com' })
    const res = await call('GET', '/api/v1/partner/users/me', {
      creds: northwind,
      headers: a.bearer,
    })
    expect(res.status).toBe(401)
    expect(res.json.error.message).toMatch(/another partner/)
    const b = await registerAndLogin(call, { email: 'same@example.com' }, northwind)
    const meB = await call('GET', '/api/v1/partner/users/me', {
      creds: northwind,
      headers: b.bearer,
    })
    expect(meB.json.id).toBe(b.userId)
    expect(meB.json.id).not.toBe(a.userId)
  })

  it('Org-only routes do not need a session; Org + User routes check the org first', async () => {
    const { call } = await setup()
    expect((await call('GET', '/api/v1/partner/me')).status).toBe(200)
    const noOrg = await call('GET', '/api/v1/partner/users/me', { creds: null })
    expect(noOrg.status).toBe(401)
    expect(noOrg.json.error.message).toMatch(/X-Partner-Key/)
  })

  it('sessions survive a restart with a data file', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'sessions-')), 'sandbox.json')
    const first = await setup({ data })
    const session = await registerAndLogin(first.call)
    await first.sandbox.close()
    const second = await setup({ data })
    const me = await second.call('GET', '/api/v1/partner/users/me', { headers: session.bearer })
    expect(me.status).toBe(200)
    expect(me.json.id).toBe(session.userId)
  })

  it('a reset ends every session', async () => {
    const { call } = await setup()
    const session = await registerAndLogin(call)
    await call('POST', '/_sandbox/reset', { creds: null })
    const res = await call('GET', '/api/v1/partner/users/me', { headers: session.bearer })
    expect(res.status).toBe(401)
    expect(res.json.error.message).toMatch(/no longer exists|Invalid session token/)
  })

  it('a logout, a profile change and a deactivation are seen on the next request while other users write', async () => {
    const { sandbox, call } = await setup()
    const a = await registerAndLogin(call)
    const b = await registerAndLogin(call)
    const me = (who: { bearer: Record<string, string> }) =>
      call('GET', '/api/v1/partner/users/me', { headers: who.bearer })
    // Writes of another user between every step: what is kept of `a`'s token must not hide
    // a's own changes, and must not be dropped for nothing either (a still gets in).
    let n = 0
    const elsewhere = async () => {
      const res = await call('PATCH', '/api/v1/partner/users/me', {
        headers: b.bearer,
        body: { metadata: { write: ++n } },
      })
      expect(res.status).toBe(200)
    }
    expect((await me(a)).status).toBe(200)
    await elsewhere()
    expect((await me(a)).json.first_name).toBe('Robin')
    const renamed = await call('PATCH', '/api/v1/partner/users/me', {
      headers: a.bearer,
      body: { first_name: 'Renamed' },
    })
    expect(renamed.status).toBe(200)
    await elsewhere()
    expect((await me(a)).json.first_name).toBe('Renamed')

    // Deactivated by a write to the user's row alone (no session row changes).
    const c = await registerAndLogin(call)
    expect((await me(c)).status).toBe(200)
    await elsewhere()
    const { state } = sandbox.services
    const row = await state.get('users', c.userId)
    if (!row) throw new Error('no user row')
    await state.transaction(async (tx) => tx.put('users', { ...row, is_active: false }))
    await elsewhere()
    const deactivated = await me(c)
    expect(deactivated.status).toBe(401)
    expect(deactivated.json.error.message).toMatch(/deactivated/)

    expect((await call('POST', '/api/v1/partner/auth/logout', { headers: a.bearer })).status).toBe(
      200,
    )
    await elsewhere()
    const out = await me(a)
    expect(out.status).toBe(401)
    expect(out.json.error.message).toMatch(/ended \(logged_out\)/)
    expect((await me(b)).json.metadata).toEqual({ write: n })
  })
})
