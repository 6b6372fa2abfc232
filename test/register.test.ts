import { describe, expect, it } from 'vitest'
import { type Call, loginSession, newUser, northwind, setup, storedRow } from './helpers.js'

const usersOf = async (call: Call, creds = undefined) =>
  (await call('GET', '/api/v1/partner/usage', { creds })).json.totals.users as number

describe('POST /partner/auth/register', () => {
  it('answers 201 with userId and email, normalising email, phone and SSN', async () => {
    const { call } = await setup()
    const res = await call('POST', '/api/v1/partner/auth/register', {
      body: newUser({
        email: '  Jane.Doe@Example.COM ',
        phone_number: '(415) 555-0199',
        ssn: '123 45 6789',
      }),
    })
    expect(res.status).toBe(201)
    expect(res.json).toMatchObject({ email: 'jane.doe@example.com' })
    expect(res.json.userId).toMatch(/^[0-9a-f-]{36}$/)
    // As stored (the snapshot, secrets included).
    const row = await storedRow(call, 'users', res.json.userId)
    expect(row?.phone_number).toBe('+14155550199')
    expect(row?.ssn_last4).toBe('6789')
    expect(row?.password_hash).toMatch(/^scrypt\$/)
    expect(JSON.stringify(row)).not.toContain('123456789')
    expect(JSON.stringify(row)).not.toContain(newUser().password)
  })

  const bad: [string, Record<string, unknown>, string][] = [
    ['email', { email: 'not-an-email' }, 'email'],
    ['phone', { phone_number: '12' }, 'phone_number'],
    ['weak password', { password: 'password' }, 'password'],
    ['short password', { password: 'Ab1!' }, 'password'],
    ['SSN with 8 digits', { ssn: '12345678' }, 'ssn'],
    ['SSN with letters', { ssn: '12345678a' }, 'ssn'],
    ['date format', { date_of_birth: '12/04/1990' }, 'date_of_birth'],
    ['impossible date', { date_of_birth: '1990-02-30' }, 'date_of_birth'],
    ['a minor', { date_of_birth: `${new Date().getUTCFullYear() - 10}-01-01` }, 'date_of_birth'],
    ['age over 120', { date_of_birth: '1850-01-01' }, 'date_of_birth'],
    ['blank first name', { first_name: ' ' }, 'first_name'],
    ['missing last name', { last_name: undefined }, 'last_name'],
    ['an unknown field', { nickname: 'JD' }, 'nickname'],
  ]
  it.each(bad)(
    'rejects a bad %s with a 400 naming the field and creates nothing',
    async (_n, overrides, field) => {
      const { call } = await setup()
      const before = await usersOf(call)
      const res = await call('POST', '/api/v1/partner/auth/register', { body: newUser(overrides) })
      expect(res.status).toBe(400)
      expect(res.json.error.code).toBe('validation_error')
      expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(field)
      expect(await usersOf(call)).toBe(before)
    },
  )

  it('a duplicate email within the partner is 409, whatever its casing', async () => {
    const { call } = await setup()
    const user = newUser({ email: 'dup@example.com' })
    expect((await call('POST', '/api/v1/partner/auth/register', { body: user })).status).toBe(201)
    const again = await call('POST', '/api/v1/partner/auth/register', {
      body: { ...user, email: 'DUP@example.com' },
    })
    expect(again.status).toBe(409)
    expect(again.json.error).toMatchObject({ code: 'conflict' })
    expect(again.json.error.details[0].field).toBe('email')
  })

  it('parallel registrations of one email create exactly one user', async () => {
    const { call } = await setup()
    const user = newUser({ email: 'race@example.com' })
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        call('POST', '/api/v1/partner/auth/register', { body: user }),
      ),
    )
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409])
  })

  it('the same email under another partner is a different user', async () => {
    const { call } = await setup()
    const user = newUser({ email: 'shared@example.com' })
    const a = await call('POST', '/api/v1/partner/auth/register', { body: user })
    const b = await call('POST', '/api/v1/partner/auth/register', { creds: northwind, body: user })
    expect(a.status).toBe(201)
    expect(b.status).toBe(201)
    expect(a.json.userId).not.toBe(b.json.userId)
    expect(await usersOf(call, northwind as never)).toBe(3)
    // Each partner finds its own user by that e-mail, whichever registered first.
    const again = await call('POST', '/api/v1/partner/auth/register', {
      creds: northwind,
      body: user,
    })
    expect(again.status).toBe(409)
    const asAcme = await loginSession(call, 'shared@example.com', user.password)
    const asNorthwind = await loginSession(call, 'shared@example.com', user.password, northwind)
    expect(asAcme.user.id).toBe(a.json.userId)
    expect(asNorthwind.user.id).toBe(b.json.userId)
  })

  it('records a user.created event without the SSN', async () => {
    const { call } = await setup()
    const res = await call('POST', '/api/v1/partner/auth/register', { body: newUser() })
    const listed = await call('GET', '/_sandbox/events?type=user.created', { creds: null })
    expect(listed.status, listed.text).toBe(200)
    const events = listed.json.data
    expect(events).toHaveLength(1)
    expect(events[0]?.data.object.id).toBe(res.json.userId)
    expect(JSON.stringify(events[0])).not.toMatch(/123-?45-?6789|ssn|password/)
  })
})
