import { decodeJwt } from 'jose'
import { describe, expect, it } from 'vitest'
import {
  acme,
  type Call,
  loginSession,
  newUser,
  northwind,
  registerAndLogin,
  setup,
  storedRow,
} from './helpers.js'

const fixtureEmail = async (call: Call) => {
  const snap = (await call('GET', '/_sandbox/snapshot', { creds: null })).json
  const me = (await call('GET', '/api/v1/partner/me')).json.partner.id
  return (Object.values(snap.collections.users) as { email: string; partner_id: string }[]).find(
    (u) => u.partner_id === me,
  )?.email as string
}

async function registered(options = {}) {
  const t = await setup(options)
  const user = newUser()
  await t.call('POST', '/api/v1/partner/auth/register', { body: user })
  return { ...t, user }
}

const inboxOf = async (call: Call, email: string) =>
  (await call('GET', `/_sandbox/inbox?email=${encodeURIComponent(email)}`, { creds: null })).json
    .data

describe('POST /partner/auth/login', () => {
  it('sends a 6-digit code (000000 by default) to the inbox, newest first', async () => {
    const { call, user } = await registered()
    const res = await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    expect(res.status).toBe(200)
    expect(res.json.channel).toBe('email')
    expect(res.json.destination).toMatch(/^u\*+@example\.test$/)
    await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    const inbox = await inboxOf(call, user.email)
    expect(inbox).toHaveLength(2)
    expect(inbox[0]).toMatchObject({
      to: user.email,
      kind: 'login_code',
      code: '000000',
      channel: 'email',
    })
    expect(inbox[0].body).toContain('000000')
    expect(Date.parse(inbox[0].expires_at) - Date.parse(inbox[0].created_at)).toBe(600_000)
    expect(Date.parse(inbox[0].created_at)).toBeGreaterThanOrEqual(Date.parse(inbox[1].created_at))
  })

  it('answers an unknown email exactly like a wrong password', async () => {
    const { call, user } = await registered()
    const wrong = await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: 'Wrong-Passw0rd' },
    })
    const unknown = await call('POST', '/api/v1/partner/auth/login', {
      body: { email: 'ghost@example.com', password: 'Wrong-Passw0rd' },
    })
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(wrong.json.error).toEqual(unknown.json.error)
    expect(await inboxOf(call, user.email)).toHaveLength(0)
  })

  it('logs in a fixture user with the documented password', async () => {
    const { call } = await setup()
    const session = await loginSession(call, await fixtureEmail(call))
    expect(session.sessionToken.split('.')).toHaveLength(3)
  })

  it('validates its body', async () => {
    const { call } = await setup()
    const res = await call('POST', '/api/v1/partner/auth/login', { body: { email: 'x' } })
    expect(res.status).toBe(400)
    expect(res.json.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'email',
      'password',
    ])
  })
})

describe('POST /partner/auth/verify-otp', () => {
  it('answers the session object: a JWT bound to a stored session, expiresAt in epoch ms, the user', async () => {
    const { call } = await setup({}, { frozenAt: Date.parse('2026-06-01T00:00:00Z') })
    const session = await registerAndLogin(call)
    expect(session.expiresAt).toBe(Date.parse('2026-06-02T00:00:00Z'))
    expect(session.userId).toMatch(/^[0-9a-f-]{36}$/)

    const verified = await loginSession(call, session.user.email, session.user.password)
    expect(verified.user.id).toBe(session.userId)
    expect(JSON.stringify(verified.user)).not.toMatch(/ssn|password|987-?65-?4321/)
    const claims = decodeJwt(session.token)
    const partnerId = (await call('GET', '/api/v1/partner/me')).json.partner.id
    expect(claims).toMatchObject({
      sub: session.userId,
      pid: partnerId,
      exp: session.expiresAt / 1000,
    })
    expect((await storedRow(call, 'sessions', claims.sid as string))?.user_id).toBe(session.userId)
  })

  it('the session lifetime is configurable', async () => {
    const { call } = await setup(
      { sessionTtl: '30m' },
      { frozenAt: Date.parse('2026-06-01T00:00:00Z') },
    )
    const session = await registerAndLogin(call)
    expect(session.expiresAt).toBe(Date.parse('2026-06-01T00:30:00Z'))
  })

  it('a code works once', async () => {
    const { call, user } = await registered()
    await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    const first = await call('POST', '/api/v1/partner/auth/verify-otp', {
      body: { email: user.email, code: '000000' },
    })
    const second = await call('POST', '/api/v1/partner/auth/verify-otp', {
      body: { email: user.email, code: '000000' },
    })
    expect(first.status).toBe(200)
    expect(second.status).toBe(401)
    expect(second.json.error.message).toMatch(/Invalid or expired code/)
  })

  it('four wrong tries leave the code usable; the fifth burns it', async () => {
    const { call, user } = await registered()
    await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    for (let i = 0; i < 4; i++) {
      const res = await call('POST', '/api/v1/partner/auth/verify-otp', {
        body: { email: user.email, code: '123456' },
      })
      expect(res.status).toBe(401)
      expect(res.json.error.message).toContain(`${4 - i} attempt(s) left`)
    }
    expect(
      (
        await call('POST', '/api/v1/partner/auth/verify-otp', {
          body: { email: user.email, code: '000000' },
        })
      ).status,
    ).toBe(200)

    await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    for (let i = 0; i < 5; i++) {
      await call('POST', '/api/v1/partner/auth/verify-otp', {
        body: { email: user.email, code: '123456' },
      })
    }
    const burnt = await call('POST', '/api/v1/partner/auth/verify-otp', {
      body: { email: user.email, code: '000000' },
    })
    expect(burnt.status).toBe(401)
  })

  it('a code expires after 10 minutes of sandbox time', async () => {
    const { sandbox, call, user } = await registered()
    sandbox.clock.freeze()
    await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    await sandbox.clock.advance(9 * 60_000 + 59_000)
    await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    await sandbox.clock.advance(10 * 60_000 + 1)
    const res = await call('POST', '/api/v1/partner/auth/verify-otp', {
      body: { email: user.email, code: '000000' },
    })
    expect(res.status).toBe(401)
    expect(res.json.error.message).toMatch(/expired/)
  })

  it('a newer code replaces the older one', async () => {
    const { call, user } = await registered({
      scenario: { name: 'rnd', description: 'random codes', otp: { random: true } },
    })
    await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    const [newer, older] = await inboxOf(call, user.email)
    expect(newer.code).toMatch(/^\d{6}$/)
    if (newer.code !== older.code) {
      const old = await call('POST', '/api/v1/partner/auth/verify-otp', {
        body: { email: user.email, code: older.code },
      })
      expect(old.status).toBe(401)
    }
    expect(
      (
        await call('POST', '/api/v1/partner/auth/verify-otp', {
          body: { email: user.email, code: newer.code },
        })
      ).status,
    ).toBe(200)
  })

  it('the scenario decides the code: fixed, random, or per-user rules', async () => {
    const scenario = {
      name: 'codes',
      description: 'per-user codes',
      otp: {
        code: '111111',
        rules: [
          { email: '*@qa.example', code: '424242' },
          { email: 'rnd@example.com', random: true },
        ],
      },
    }
    const { call } = await setup({ scenario })
    /**
     * Registers and logs in `email`; answers the code the inbox shows before verify-otp uses
     * it (the inbox shows a code only while it can be used) and the session token.
     */
    const signIn = async (email: string) => {
      const user = newUser({ email })
      const reg = await call('POST', '/api/v1/partner/auth/register', { body: user })
      expect(reg.status, reg.text).toBe(201)
      const login = await call('POST', '/api/v1/partner/auth/login', {
        body: { email, password: user.password },
      })
      expect(login.status, login.text).toBe(200)
      const code = (await inboxOf(call, email))[0].code
      const verified = await call('POST', '/api/v1/partner/auth/verify-otp', {
        body: { email, code },
      })
      expect(verified.status, verified.text).toBe(200)
      return { code, token: verified.json.sessionToken }
    }
    const used = async (email: string) =>
      expect((await inboxOf(call, email))[0]).toMatchObject({ code: null, code_ended: 'used' })
    const qa = await signIn('tester@qa.example')
    expect(qa.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(qa.code).toBe('424242')
    await used('tester@qa.example')
    expect((await signIn('plain@example.com')).code).toBe('111111')
    await used('plain@example.com')
    await signIn('rnd@example.com')
    const codes = new Set<string>()
    for (let i = 0; i < 4; i++) {
      await call('POST', '/api/v1/partner/auth/login', {
        body: { email: 'rnd@example.com', password: newUser().password },
      })
      codes.add((await inboxOf(call, 'rnd@example.com'))[0].code)
    }
    expect(codes.size).toBeGreaterThan(1)
  })

  it('a code of partner A cannot be redeemed through partner B', async () => {
    const { call, user } = await registered()
    await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    const res = await call('POST', '/api/v1/partner/auth/verify-otp', {
      creds: northwind,
      body: { email: user.email, code: '000000' },
    })
    expect(res.status).toBe(401)
    const inbox = (
      await call(
        'GET',
        `/_sandbox/inbox?partner_id=${(await call('GET', '/api/v1/partner/me', { creds: northwind })).json.partner.id}`,
        { creds: null },
      )
    ).json.data
    expect(inbox).toHaveLength(0)
    expect(
      (
        await call('POST', '/api/v1/partner/auth/verify-otp', {
          creds: acme,
          body: { email: user.email, code: '000000' },
        })
      ).status,
    ).toBe(200)
  })

  it('the inbox filter is validated', async () => {
    const { call } = await setup()
    const res = await call('GET', '/_sandbox/inbox?limit=0', { creds: null })
    expect(res.status).toBe(400)
    expect(res.json.error.details[0]).toMatchObject({ field: 'limit', location: 'query' })
  })
})
