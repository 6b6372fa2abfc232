import { describe, expect, it } from 'vitest'
import {
  acme,
  bearer,
  type Call,
  FIXTURE_PASSWORD,
  loginAs,
  northwind,
  registerAndLogin,
  setup,
} from './helpers.js'

const ME = '/api/v1/partner/users/me'
const CHANGE = '/api/v1/partner/auth/change-password'
const FORGOT_REQUEST = '/api/v1/partner/auth/forgot-password/request'
const FORGOT_VERIFY = '/api/v1/partner/auth/forgot-password/verify'
const FORGOT_RESET = '/api/v1/partner/auth/forgot-password/reset'

/** An acme fixture user and a second one, both with FIXTURE_PASSWORD; no other test logs them in. */
const ALICE = 'jamil.kreiger@example.com'
const BOB = 'jaeden_grant51@example.com'
/** A northwind fixture user. */
const NORTHWIND_USER = 'luna_thompson17@example.com'

const NEW_PASSWORD = 'Brand-New-Passw0rd?'

const fields = (res: { json: { error?: { details?: { field: string }[] } } }) =>
  (res.json.error?.details ?? []).map((d) => d.field)

/** Status of the first step of login (password check) alone. */
const loginStatus = async (call: Call, email: string, password: string, creds = acme) =>
  (await call('POST', '/api/v1/partner/auth/login', { creds, body: { email, password } })).status

const me = (call: Call, token: string) => call('GET', ME, { headers: bearer(token) })

const inbox = async (call: Call, query: string) =>
  (await call('GET', `/_sandbox/inbox?${query}`, { creds: null })).json.data as {
    kind: string
    code: string
    to: string
    partner_id: string
  }[]

/** Asks for a reset code and reads it from the inbox. */
async function resetCode(call: Call, email: string, creds = acme): Promise<string> {
  const res = await call('POST', FORGOT_REQUEST, { creds, body: { email } })
  expect(res.status).toBe(200)
  const [message] = await inbox(call, `kind=password_reset_code&email=${encodeURIComponent(email)}`)
  expect(message).toBeDefined()
  return (message as { code: string }).code
}

async function resetToken(call: Call, email: string, creds = acme): Promise<string> {
  const code = await resetCode(call, email, creds)
  const res = await call('POST', FORGOT_VERIFY, { creds, body: { email, code } })
  expect(res.status).toBe(200)
  return res.json.reset_token
}

/** A 6-digit code that is not `code`. */
const wrongCode = (code: string) => (code === '123456' ? '654321' : '123456')

describe('POST /partner/auth/change-password', () => {
  it('rejects a wrong current_password with a 400 on current_password and keeps the password', async () => {
    const { call } = await setup()
    const { user, token } = await registerAndLogin(call)
    const res = await call('POST', CHANGE, {
      headers: bearer(token),
      body: { current_password: 'Not-The-Passw0rd!', new_password: NEW_PASSWORD },
    })
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe('validation_error')
    expect(fields(res)).toEqual(['current_password'])
    expect(await loginStatus(call, user.email, NEW_PASSWORD)).toBe(401)
    expect(await loginAs(call, user.email, user.password)).toEqual(expect.any(String))
    // The failed attempt ended no session.
    expect((await me(call, token)).status).toBe(200)
  })

  it.each([
    ['too short', 'Ab1!'],
    ['only lower case letters', 'onlylowercaseletters'],
    ['lower case and digits only', 'lowercase12345'],
    ['longer than 128 characters', `Aa1!${'x'.repeat(130)}`],
  ])('rejects a weak new_password (%s) with a 400 naming new_password', async (_why, weak) => {
    const { call } = await setup()
    const { user, token } = await registerAndLogin(call)
    const res = await call('POST', CHANGE, {
      headers: bearer(token),
      body: { current_password: user.password, new_password: weak },
    })
    expect(res.status).toBe(400)
    expect(fields(res)).toEqual(['new_password'])
    // (Login caps passwords at 128 characters, so the longest one is a 400 there.)
    expect(await loginStatus(call, user.email, weak)).not.toBe(200)
    expect(await loginStatus(call, user.email, user.password)).toBe(200)
  })

  it('rejects a new_password equal to the current one', async () => {
    const { call } = await setup()
    const { user, token } = await registerAndLogin(call)
    const other = await loginAs(call, user.email, user.password)
    const res = await call('POST', CHANGE, {
      headers: bearer(token),
      body: { current_password: user.password, new_password: user.password },
    })
    expect(res.status).toBe(400)
    expect(fields(res)).toEqual(['new_password'])
    // Nothing happened: the other session still works.
    expect((await me(call, other)).status).toBe(200)
  })

  it('changes the password, ends every other live session and keeps the current one', async () => {
    const { call } = await setup()
    const { user, token: current } = await registerAndLogin(call)
    const second = await loginAs(call, user.email, user.password)
    const third = await loginAs(call, user.email, user.password)
    const loggedOut = await loginAs(call, user.email, user.password)
    expect(
      (await call('POST', '/api/v1/partner/auth/logout', { headers: bearer(loggedOut) })).status,
    ).toBe(200)
    // Someone else's session is not touched.
    const bystander = await loginAs(call, BOB)

    const res = await call('POST', CHANGE, {
      headers: bearer(current),
      body: { current_password: user.password, new_password: NEW_PASSWORD },
    })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ sessions_revoked: 2, message: expect.any(String) })

    const mine = await me(call, current)
    expect(mine.status).toBe(200)
    expect(mine.json.email).toBe(user.email)
    for (const ended of [second, third]) {
      const r = await me(call, ended)
      expect(r.status).toBe(401)
      expect(r.json.error.code).toBe('unauthorized')
    }
    expect((await me(call, bystander)).status).toBe(200)

    expect(await loginAs(call, user.email, NEW_PASSWORD)).toEqual(expect.any(String))
    const old = await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    const unknown = await call('POST', '/api/v1/partner/auth/login', {
      body: { email: 'nobody-here@example.test', password: user.password },
    })
    expect(old.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(old.json.error).toEqual(unknown.json.error)
  })

  it('two sessions changing the password at the same time: one wins, the other is refused', async () => {
    const { call } = await setup()
    const { user, token: a } = await registerAndLogin(call)
    const b = await loginAs(call, user.email, user.password)
    const [ra, rb] = await Promise.all([
      call('POST', CHANGE, {
        headers: bearer(a),
        body: { current_password: user.password, new_password: 'Password-From-A1!' },
      }),
      call('POST', CHANGE, {
        headers: bearer(b),
        body: { current_password: user.password, new_password: 'Password-From-B2!' },
      }),
    ])
    // Exactly one succeeds. The other either lost the race after its session check (400 on
    // current_password: the password it verified is gone) or before it (401: session ended).
    expect([ra.status, rb.status].filter((s) => s === 200)).toHaveLength(1)
    const [winner, winnerToken, winnerPassword, loser, loserPassword] =
      ra.status === 200
        ? [ra, a, 'Password-From-A1!', rb, 'Password-From-B2!']
        : [rb, b, 'Password-From-B2!', ra, 'Password-From-A1!']
    expect(winner.json.sessions_revoked).toBe(1)
    expect([400, 401]).toContain(loser.status)
    if (loser.status === 400) expect(fields(loser)).toEqual(['current_password'])
    // The password the winner was told about is the one that works, and its session lives.
    expect((await me(call, winnerToken)).status).toBe(200)
    expect(await loginStatus(call, user.email, loserPassword)).toBe(401)
    expect(await loginAs(call, user.email, winnerPassword)).toEqual(expect.any(String))
  })

  it('answers sessions_revoked 0 when the current session is the only one', async () => {
    const { call } = await setup()
    const { user, token } = await registerAndLogin(call)
    const res = await call('POST', CHANGE, {
      headers: bearer(token),
      body: { current_password: user.password, new_password: NEW_PASSWORD },
    })
    expect(res.status).toBe(200)
    expect(res.json.sessions_revoked).toBe(0)
    expect((await me(call, token)).status).toBe(200)
  })

  it('needs a Bearer session: without one it is a 401 and the password stays', async () => {
    const { call } = await setup()
    const { user } = await registerAndLogin(call)
    const body = { current_password: user.password, new_password: NEW_PASSWORD }
    const none = await call('POST', CHANGE, { body })
    expect(none.status).toBe(401)
    expect(none.json.error.code).toBe('unauthorized')
    const garbage = await call('POST', CHANGE, { body, headers: bearer('not-a-token') })
    expect(garbage.status).toBe(401)
    expect(await loginStatus(call, user.email, user.password)).toBe(200)
    expect(await loginStatus(call, user.email, NEW_PASSWORD)).toBe(401)
  })
})

describe('forgot password', () => {
  it('answers a known and an unknown email identically, and only the known one gets a code', async () => {
    const { call } = await setup()
    const unknownEmail = 'no-such-user@example.test'
    const unknown = await call('POST', FORGOT_REQUEST, { body: { email: unknownEmail } })
    const known = await call('POST', FORGOT_REQUEST, { body: { email: ALICE } })
    expect(unknown.status).toBe(200)
    expect(known.status).toBe(200)
    expect(known.json).toEqual(unknown.json)
    expect(known.text).toBe(unknown.text)
    expect(known.json.message).toEqual(expect.any(String))

    expect(await inbox(call, `email=${unknownEmail}`)).toEqual([])
    const all = await inbox(call, '')
    expect(all).toHaveLength(1)
    expect(all[0]).toMatchObject({ to: ALICE, kind: 'password_reset_code' })
    expect(all[0]?.code).toMatch(/^\d{6}$/)
  })

  it('counts wrong codes: 400 on code with the attempts left, and the fifth burns the code', async () => {
    const { call } = await setup()
    const code = await resetCode(call, ALICE)
    for (const left of [4, 3, 2, 1]) {
      const res = await call('POST', FORGOT_VERIFY, {
        body: { email: ALICE, code: wrongCode(code) },
      })
      expect(res.status).toBe(400)
      expect(fields(res)).toEqual(['code'])
      expect(res.json.error.details[0].message).toContain(`${left} attempt(s) left`)
    }
    const fifth = await call('POST', FORGOT_VERIFY, {
      body: { email: ALICE, code: wrongCode(code) },
    })
    expect(fifth.status).toBe(400)
    expect(fields(fifth)).toEqual(['code'])
    expect(fifth.json.error.details[0].message).not.toContain('attempt(s) left')

    const right = await call('POST', FORGOT_VERIFY, { body: { email: ALICE, code } })
    expect(right.status).toBe(400)
    expect(fields(right)).toEqual(['code'])
    expect(right.json.reset_token).toBeUndefined()
  })

  it('exchanges the right code for a single-use reset_token with its expiry', async () => {
    const { call, sandbox } = await setup()
    const code = await resetCode(call, ALICE)
    const res = await call('POST', FORGOT_VERIFY, { body: { email: ALICE, code } })
    expect(res.status).toBe(200)
    expect(res.json.reset_token).toEqual(expect.any(String))
    expect(res.json.reset_token.length).toBeGreaterThanOrEqual(20)
    expect(Number.isInteger(res.json.expiresAt)).toBe(true)
    expect(res.json.expiresAt).toBeGreaterThan(sandbox.clock.now())
    // The code itself works once.
    const again = await call('POST', FORGOT_VERIFY, { body: { email: ALICE, code } })
    expect(again.status).toBe(400)
    expect(fields(again)).toEqual(['code'])
  })

  it('a reset code still works after 9 minutes of sandbox time', async () => {
    const { call, sandbox } = await setup()
    const code = await resetCode(call, ALICE)
    await sandbox.clock.advance(9 * 60_000)
    const res = await call('POST', FORGOT_VERIFY, { body: { email: ALICE, code } })
    expect(res.status).toBe(200)
  })

  it('a reset code expires after 10 minutes of sandbox time', async () => {
    const { call } = await setup()
    const code = await resetCode(call, ALICE)
    const moved = await call('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { by: '11m' },
    })
    expect(moved.status).toBe(200)
    const res = await call('POST', FORGOT_VERIFY, { body: { email: ALICE, code } })
    expect(res.status).toBe(400)
    expect(fields(res)).toEqual(['code'])
  })

  it('reset ends every session of the user and the new password works', async () => {
    const { call } = await setup()
    const first = await loginAs(call, ALICE)
    const second = await loginAs(call, ALICE)
    const bystander = await loginAs(call, BOB)
    const token = await resetToken(call, ALICE)

    const res = await call('POST', FORGOT_RESET, {
      body: { email: ALICE, reset_token: token, new_password: NEW_PASSWORD },
    })
    expect(res.status).toBe(200)
    expect(res.json.sessions_revoked).toBe(2)
    for (const ended of [first, second]) expect((await me(call, ended)).status).toBe(401)
    expect((await me(call, bystander)).status).toBe(200)

    expect(await loginStatus(call, ALICE, FIXTURE_PASSWORD)).toBe(401)
    const fresh = await loginAs(call, ALICE, NEW_PASSWORD)
    expect((await me(call, fresh)).json.email).toBe(ALICE)
  })

  it('rejects a weak new_password on reset without using up the token', async () => {
    const { call } = await setup()
    const token = await resetToken(call, ALICE)
    const weak = await call('POST', FORGOT_RESET, {
      body: { email: ALICE, reset_token: token, new_password: 'weakpassword' },
    })
    expect(weak.status).toBe(400)
    expect(fields(weak)).toEqual(['new_password'])
    const ok = await call('POST', FORGOT_RESET, {
      body: { email: ALICE, reset_token: token, new_password: NEW_PASSWORD },
    })
    expect(ok.status).toBe(200)
  })

  it('a reset_token works once', async () => {
    const { call } = await setup()
    const token = await resetToken(call, ALICE)
    const first = await call('POST', FORGOT_RESET, {
      body: { email: ALICE, reset_token: token, new_password: NEW_PASSWORD },
    })
    expect(first.status).toBe(200)
    const second = await call('POST', FORGOT_RESET, {
      body: { email: ALICE, reset_token: token, new_password: 'Another-Passw0rd#' },
    })
    expect(second.status).toBe(400)
    expect(fields(second)).toEqual(['reset_token'])
    expect(await loginStatus(call, ALICE, 'Another-Passw0rd#')).toBe(401)
    expect(await loginStatus(call, ALICE, NEW_PASSWORD)).toBe(200)
  })

  it('a reset_token expires after 15 minutes of sandbox time', async () => {
    const { call, sandbox } = await setup()
    const token = await resetToken(call, ALICE)
    await sandbox.clock.advance(16 * 60_000)
    const res = await call('POST', FORGOT_RESET, {
      body: { email: ALICE, reset_token: token, new_password: NEW_PASSWORD },
    })
    expect(res.status).toBe(400)
    expect(fields(res)).toEqual(['reset_token'])
    expect(await loginStatus(call, ALICE, FIXTURE_PASSWORD)).toBe(200)
  })

  it("user A's reset_token cannot reset user B's password", async () => {
    const { call } = await setup()
    const bobSession = await loginAs(call, BOB)
    const aliceToken = await resetToken(call, ALICE)
    const res = await call('POST', FORGOT_RESET, {
      body: { email: BOB, reset_token: aliceToken, new_password: NEW_PASSWORD },
    })
    expect(res.status).toBe(400)
    expect(fields(res)).toEqual(['reset_token'])
    expect(await loginStatus(call, BOB, NEW_PASSWORD)).toBe(401)
    expect(await loginStatus(call, BOB, FIXTURE_PASSWORD)).toBe(200)
    expect((await me(call, bobSession)).status).toBe(200)
    // The misuse did not reset Alice either.
    expect(await loginStatus(call, ALICE, FIXTURE_PASSWORD)).toBe(200)
  })

  it("a partner cannot start or finish a reset for another partner's user", async () => {
    const { call } = await setup()
    // ALICE exists only under acme.
    const unknownToNorthwind = await call('POST', FORGOT_REQUEST, {
      creds: northwind,
      body: { email: ALICE },
    })
    const reallyUnknown = await call('POST', FORGOT_REQUEST, {
      creds: northwind,
      body: { email: 'no-such-user@example.test' },
    })
    expect(unknownToNorthwind.status).toBe(200)
    expect(unknownToNorthwind.json).toEqual(reallyUnknown.json)
    expect(await inbox(call, '')).toEqual([])

    // A code and a token issued through acme mean nothing through northwind.
    const code = await resetCode(call, ALICE, acme)
    const verifyElsewhere = await call('POST', FORGOT_VERIFY, {
      creds: northwind,
      body: { email: ALICE, code },
    })
    expect(verifyElsewhere.status).toBe(400)
    const verified = await call('POST', FORGOT_VERIFY, { body: { email: ALICE, code } })
    expect(verified.status).toBe(200)
    const resetElsewhere = await call('POST', FORGOT_RESET, {
      creds: northwind,
      body: { email: ALICE, reset_token: verified.json.reset_token, new_password: NEW_PASSWORD },
    })
    expect(resetElsewhere.status).toBe(400)
    expect(fields(resetElsewhere)).toEqual(['reset_token'])
    expect(await loginStatus(call, ALICE, FIXTURE_PASSWORD)).toBe(200)
  })

  it("a reset through one partner leaves the same email's account at another partner alone", async () => {
    const { call } = await setup()
    // The same person has an account at both partners.
    const northwindSide = await registerAndLogin(
      call,
      { email: 'both.partners@example.test' },
      northwind,
    )
    const { user } = northwindSide
    const acmeSide = await registerAndLogin(
      call,
      { email: 'both.partners@example.test', password: user.password },
      acme,
    )
    const acmeId = (await call('GET', '/api/v1/partner/me')).json.partner.id
    const token = await resetToken(call, user.email, acme)
    const sent = await inbox(call, `kind=password_reset_code&email=${user.email}`)
    expect(sent.map((m) => m.partner_id)).toEqual([acmeId])
    const res = await call('POST', FORGOT_RESET, {
      body: { email: user.email, reset_token: token, new_password: NEW_PASSWORD },
    })
    expect(res.status).toBe(200)
    expect(res.json.sessions_revoked).toBe(1)
    expect((await me(call, acmeSide.token)).status).toBe(401)
    const northwindMe = await call('GET', ME, {
      creds: northwind,
      headers: bearer(northwindSide.token),
    })
    expect(northwindMe.status).toBe(200)
    expect(await loginStatus(call, user.email, NEW_PASSWORD, acme)).toBe(200)
    expect(await loginStatus(call, user.email, user.password, northwind)).toBe(200)
    expect(await loginStatus(call, user.email, NEW_PASSWORD, northwind)).toBe(401)
  })

  it('forgot-password routes need the organization credentials', async () => {
    const { call } = await setup()
    const res = await call('POST', FORGOT_REQUEST, { creds: null, body: { email: ALICE } })
    expect(res.status).toBe(401)
    expect(await inbox(call, '')).toEqual([])
  })

  it('a northwind user can reset through northwind', async () => {
    const { call } = await setup()
    const token = await resetToken(call, NORTHWIND_USER, northwind)
    const res = await call('POST', FORGOT_RESET, {
      creds: northwind,
      body: { email: NORTHWIND_USER, reset_token: token, new_password: NEW_PASSWORD },
    })
    expect(res.status).toBe(200)
    expect(await loginStatus(call, NORTHWIND_USER, NEW_PASSWORD, northwind)).toBe(200)
  })
})

describe('codes do not outlive the password they were sent under', () => {
  it('a login code sent before a password change no longer works after it', async () => {
    const { call } = await setup()
    const { user, bearer: auth } = await registerAndLogin(call)
    await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    const changed = await call('POST', '/api/v1/partner/auth/change-password', {
      headers: auth,
      body: { current_password: user.password, new_password: 'Changed-Passw0rd!' },
    })
    expect(changed.status).toBe(200)
    const res = await call('POST', '/api/v1/partner/auth/verify-otp', {
      body: { email: user.email, code: '000000' },
    })
    expect(res.status).toBe(401)
  })
})
