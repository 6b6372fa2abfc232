import { describe, expect, it } from 'vitest'
import { type Call, newUser, setup } from './helpers.js'

/**
 * The inbox shows a code only while it can be used (issue 40, item 7), on both engines: once
 * it is used (verify-otp, a reset code verified) or expires (the clock advanced past it), the
 * message stays, without the code in its row or its text.
 */

const LOGIN = '/api/v1/partner/auth/login'
const VERIFY = '/api/v1/partner/auth/verify-otp'

async function registered(call: Call) {
  const user = newUser()
  const res = await call('POST', '/api/v1/partner/auth/register', { body: user })
  expect(res.status, res.text).toBe(201)
  return user
}

async function messages(call: Call, email: string, kind = 'login_code') {
  const res = await call('GET', `/_sandbox/inbox?kind=${kind}&email=${encodeURIComponent(email)}`, {
    creds: null,
  })
  expect(res.status, res.text).toBe(200)
  return res.json.data as { code: string | null; code_ended: string | null; body: string }[]
}

async function login(call: Call, user: { email: string; password: string }) {
  const res = await call('POST', LOGIN, { body: { email: user.email, password: user.password } })
  expect(res.status, res.text).toBe(200)
}

/** The whole stored state, secrets included: no usable code may be left in it. */
async function stored(call: Call) {
  const snapshot = await call('GET', '/_sandbox/snapshot?include_secrets=true', { creds: null })
  return snapshot.text
}

describe('inbox codes only while they can be used', () => {
  it('a used login code leaves the message, in the row and in the text', async () => {
    const { sandbox, call } = await setup({ scenario: { name: 'r', otp: { random: true } } })
    const user = await registered(call)
    await login(call, user)
    const [live] = await messages(call, user.email)
    expect(live?.code).toMatch(/^\d{6}$/)
    expect(live?.code_ended).toBeNull()
    expect(live?.body).toContain(live?.code)
    const code = live?.code as string

    const verified = await call('POST', VERIFY, { body: { email: user.email, code } })
    expect(verified.status, verified.text).toBe(200)
    const [used] = await messages(call, user.email)
    expect(used).toMatchObject({ code: null, code_ended: 'used' })
    expect(used?.body).not.toContain(code)
    expect(used?.body).toContain('[used]')
    // Nor in the state the engine holds (the inbox rows themselves).
    const rows = await sandbox.services.state.all('inbox_messages')
    expect(JSON.stringify(rows)).not.toContain(code)
    expect(await stored(call)).not.toContain(code)
  })

  it('an expired login code leaves the message once the sandbox clock passes it', async () => {
    const { sandbox, call } = await setup({ scenario: { name: 'r', otp: { random: true } } })
    const user = await registered(call)
    await login(call, user)
    const code = (await messages(call, user.email))[0]?.code as string
    expect(code).toMatch(/^\d{6}$/)

    // Not yet: 9 minutes on, the code still works and shows.
    await call('POST', '/_sandbox/clock/advance', { creds: null, body: { by: '9m' } })
    expect((await messages(call, user.email))[0]?.code).toBe(code)

    await call('POST', '/_sandbox/clock/advance', { creds: null, body: { by: '2m' } })
    const [expired] = await messages(call, user.email)
    expect(expired).toMatchObject({ code: null, code_ended: 'expired' })
    expect(expired?.body).not.toContain(code)
    const rows = await sandbox.services.state.all('inbox_messages')
    expect(JSON.stringify(rows)).not.toContain(code)
  })

  it("an expired code leaves the message when only its partner's clock moves", async () => {
    const { call } = await setup({ scenario: { name: 'r', otp: { random: true } } })
    const user = await registered(call)
    await login(call, user)
    const code = (await messages(call, user.email))[0]?.code as string
    const partnerId = (await call('GET', '/api/v1/partner/me')).json.partner.id as string
    const moved = await call('POST', `/_sandbox/partners/${partnerId}/clock/advance`, {
      creds: null,
      body: { by: '11m' },
    })
    expect(moved.status, moved.text).toBe(200)
    const [expired] = await messages(call, user.email)
    expect(expired).toMatchObject({ code: null, code_ended: 'expired' })
    expect(expired?.body).not.toContain(code)
  })

  it('a used password-reset code leaves its message too', async () => {
    const { call } = await setup({ scenario: { name: 'r', otp: { random: true } } })
    const user = await registered(call)
    const asked = await call('POST', '/api/v1/partner/auth/forgot-password/request', {
      body: { email: user.email },
    })
    expect(asked.status, asked.text).toBe(200)
    const code = (await messages(call, user.email, 'password_reset_code'))[0]?.code as string
    expect(code).toMatch(/^\d{6}$/)
    const verified = await call('POST', '/api/v1/partner/auth/forgot-password/verify', {
      body: { email: user.email, code },
    })
    expect(verified.status, verified.text).toBe(200)
    const [used] = await messages(call, user.email, 'password_reset_code')
    expect(used).toMatchObject({ code: null, code_ended: 'used' })
    expect(used?.body).not.toContain(code)
  })
})
