import { describe, expect, it } from 'vitest'
import { bearer, type Call, newUser, registerAndLogin, setup } from './helpers.js'

/**
 * The adult rule (18 to 120 on the partner's clock) is checked by the domain functions that
 * register a user, update a profile and start an onboarding, first of their own checks: a
 * minor's request is answered 400 naming date_of_birth even when it would fail another rule
 * too (a taken email, a metadata cap, a redirect_uri), and changes nothing.
 */

const REGISTER = '/api/v1/partner/auth/register'
const ME = '/api/v1/partner/users/me'
const START = '/api/v1/partner/cards/onboarding'
const LATEST = '/api/v1/partner/cards/onboarding/latest'
const MINOR = `${new Date().getUTCFullYear() - 10}-01-01`

const fields = (res: { json: { error?: { details?: { field: string }[] } } }) =>
  (res.json.error?.details ?? []).map((d) => d.field)

const usersOf = async (call: Call) =>
  (await call('GET', '/api/v1/partner/usage')).json.totals.users as number

describe('the adult rule comes before the other rules', () => {
  it('register: a minor with an email already taken gets 400 date_of_birth, not 409', async () => {
    const { call } = await setup()
    const first = newUser()
    expect((await call('POST', REGISTER, { body: first })).status).toBe(201)
    const before = await usersOf(call)
    const res = await call('POST', REGISTER, {
      body: newUser({ email: first.email, date_of_birth: MINOR }),
    })
    expect(res.status, res.text).toBe(400)
    expect(res.json.error.code).toBe('validation_error')
    expect(fields(res)).toEqual(['date_of_birth'])
    expect(await usersOf(call)).toBe(before)
  })

  it('profile: a minor date_of_birth with metadata over the cap gets 400 date_of_birth only', async () => {
    const { call } = await setup()
    const { token } = await registerAndLogin(call)
    // 50 keys stored: one more is valid on its own but over the cap once merged.
    const full = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]))
    const filled = await call('PATCH', ME, { headers: bearer(token), body: { metadata: full } })
    expect(filled.status, filled.text).toBe(200)
    const over = await call('PATCH', ME, { headers: bearer(token), body: { metadata: { k50: 1 } } })
    expect(fields(over)).toEqual(['metadata'])
    const before = (await call('GET', ME, { headers: bearer(token) })).json
    const res = await call('PATCH', ME, {
      headers: bearer(token),
      body: { date_of_birth: MINOR, metadata: { k50: 1 } },
    })
    expect(res.status, res.text).toBe(400)
    expect(fields(res)).toEqual(['date_of_birth'])
    expect((await call('GET', ME, { headers: bearer(token) })).json).toEqual(before)
  })

  it('onboarding: a minor with a redirect_uri of another origin gets 400 date_of_birth only', async () => {
    const { call } = await setup()
    const { bearer: headers } = await registerAndLogin(call)
    const res = await call('POST', START, {
      headers,
      body: {
        first_name: 'Robin',
        last_name: 'Tester',
        email: 'robin.tester@example.test',
        phone_number: '+14155550123',
        country_code: 'US',
        date_of_birth: MINOR,
        address_line1: '1 Main Street',
        address_city: 'Springfield',
        address_state: 'IL',
        address_zip: '62701',
        ssn: '123-45-6789',
        redirect_uri: 'https://evil.example/callback',
      },
    })
    expect(res.status, res.text).toBe(400)
    expect(fields(res)).toEqual(['date_of_birth'])
    expect((await call('GET', LATEST, { headers })).json.success).toBe(false)
  })
})
