import { describe, expect, it } from 'vitest'
import { openCodeKey } from '../src/state/indexes.js'
import { newUser, setup } from './helpers.js'

// Each identity request writes in one transaction, and transactions never interleave: what
// parallel requests leave behind is what the same requests one after another would.

describe('identity under concurrent requests', () => {
  it('registers one user when 20 requests race for the same e-mail; the others get 409', async () => {
    const { sandbox, call } = await setup()
    const body = newUser({ email: 'race@example.com' })
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call('POST', '/api/v1/partner/auth/register', { body })),
    )
    const statuses = answers.map((a) => a.status).sort()
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(19)
    const users = await sandbox.services.state.lookup('users_by_email', 'race@example.com')
    expect(users).toHaveLength(1)
  })

  it('leaves one open code of 10 parallel logins, and the inbox holds every one sent', async () => {
    const { sandbox, call } = await setup()
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
    const open = await sandbox.services.state.lookup(
      'open_codes_by_user',
      openCodeKey(registered.json.userId, 'login'),
    )
    expect(open).toHaveLength(1)
    const inbox = await call('GET', '/_sandbox/inbox?email=many@example.com&limit=20', {
      creds: null,
    })
    expect(inbox.json.data).toHaveLength(10)
    // Every earlier code was replaced by the next one, none lost between two awaits.
    const codes = await sandbox.services.state.lookup('codes_by_user', registered.json.userId)
    expect(codes.map((c) => c.ended_reason).sort()).toEqual([null, ...Array(9).fill('replaced')])
    const [newest] = inbox.json.data as { code: string }[]
    const verified = await call('POST', '/api/v1/partner/auth/verify-otp', {
      body: { email: user.email, code: newest?.code },
    })
    expect(verified.status).toBe(200)
  })
})
