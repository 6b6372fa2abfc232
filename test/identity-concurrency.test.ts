import { describe, expect, it } from 'vitest'
import { newUser, setup, storedRows } from './helpers.js'

// Each identity request writes in one transaction, and transactions never interleave: what
// parallel requests leave behind is what the same requests one after another would.

describe('identity under concurrent requests', () => {
  it('registers one user when 20 requests race for the same e-mail; the others get 409', async () => {
    const { call } = await setup()
    const body = newUser({ email: 'race@example.com' })
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call('POST', '/api/v1/partner/auth/register', { body })),
    )
    const statuses = answers.map((a) => a.status).sort()
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(19)
    const users = (await storedRows(call, 'users')).filter((u) => u.email === 'race@example.com')
    expect(users).toHaveLength(1)
  })

  it('leaves one open code of 10 parallel logins, and the inbox holds every one sent', async () => {
    const { call } = await setup()
    const user = newUser({ email: 'many@example.com' })
    const registered = await call('POST', '/api/v1/partner/auth/register', { body: user })
    expect(registered.status).toBe(201)
    const logins = await Promise.all(
      Array.from({ length: 10 }, () =>
        call('POST', '/api/v1/partner/auth/login', {
          body: { email: user.email, password: user.password },
        }),
      ),
    )
    expect(logins.map((l) => l.status)).toEqual(Array(10).fill(200))
    const codesOf = async () =>
      (await storedRows(call, 'verification_codes')).filter(
        (c) => c.user_id === registered.json.userId,
      )
    const open = (await codesOf()).filter((c) => c.purpose === 'login' && !c.ended_at)
    expect(open).toHaveLength(1)
    const inbox = await call('GET', '/_sandbox/inbox?email=many@example.com&limit=20', {
      creds: null,
    })
    expect(inbox.json.data).toHaveLength(10)
    // Every earlier code was replaced by the next one, none lost between two awaits.
    const codes = await codesOf()
    expect(codes.map((c) => c.ended_reason).sort()).toEqual([null, ...Array(9).fill('replaced')])
    const [newest] = inbox.json.data as { code: string }[]
    const verified = await call('POST', '/api/v1/partner/auth/verify-otp', {
      body: { email: user.email, code: newest?.code },
    })
    expect(verified.status).toBe(200)
  })
})
