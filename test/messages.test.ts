import { describe, expect, it } from 'vitest'
import { newUser, onboardedUser, setup } from './helpers.js'

/** Every validation failure names the field and says, in words, what to send instead. */
describe('validation messages a person can act on', () => {
  it('a missing field is "required", a wrong type says what it must be and what came', async () => {
    const { call } = await setup()
    const { first_name: _, ...body } = newUser()
    const res = await call('POST', '/api/v1/partner/auth/register', {
      body: { ...body, last_name: 42 },
    })
    expect(res.status).toBe(400)
    expect(res.json.error.details).toEqual(
      expect.arrayContaining([
        { field: 'first_name', message: 'is required', location: 'body' },
        { field: 'last_name', message: 'must be a string (got 42)', location: 'body' },
      ]),
    )
    expect(res.json.error.message).toContain('first_name is required')
    expect(res.text).not.toMatch(/Invalid input|expected string|received undefined/)
  })

  it('an amount with 3 decimals or of the wrong type says what an amount is', async () => {
    const { call } = await setup()
    const u = await onboardedUser(call)
    const fund = (amount: unknown) =>
      call('POST', '/api/v1/partner/cards/simulate-fund', {
        headers: u.bearer,
        body: { amount },
      })
    const decimals = await fund(1.005)
    expect(decimals.status).toBe(400)
    expect(decimals.json.error.details).toEqual([
      { field: 'amount', message: 'must be a number with at most 2 decimals', location: 'body' },
    ])
    const text = await fund('ten')
    expect(text.json.error.details).toEqual([
      { field: 'amount', message: 'must be a number (got "ten")', location: 'body' },
    ])
  })

  it('enums list their choices, strings their lengths, unknown keys say so', async () => {
    const { call } = await setup()
    const res = await call('POST', '/api/v1/partner/auth/register', {
      body: newUser({ first_name: 'x'.repeat(101) }),
    })
    expect(res.status).toBe(400)
    expect(res.json.error.details).toContainEqual({
      field: 'first_name',
      message: 'must have at most 100 characters',
      location: 'body',
    })
    const created = await call('POST', '/_sandbox/partners', {
      creds: null,
      body: { name: 'Messages Inc', scenario: 'default', color: 'red' },
    })
    expect(created.status).toBe(400)
    expect(created.json.error.details).toContainEqual({
      field: 'color',
      message: 'is not a field this endpoint accepts',
      location: 'body',
    })
    const dispute = await call('POST', '/_sandbox/disputes/dsp_x/resolve', {
      creds: null,
      body: { outcome: 'maybe' },
    })
    expect(dispute.json.error.details).toContainEqual({
      field: 'outcome',
      message: 'must be one of "won", "lost"',
      location: 'body',
    })
  })

  it('a message the schema words itself is kept as written', async () => {
    const { call } = await setup()
    const res = await call('POST', '/api/v1/partner/auth/register', {
      body: newUser({ phone_number: '12' }),
    })
    expect(res.json.error.details).toContainEqual({
      field: 'phone_number',
      message: 'must be a phone number such as +14155550123 (E.164)',
      location: 'body',
    })
  })
})

describe('405 for a known path with a method it does not take', () => {
  it('answers 405 with Allow in the error envelope, and 404 for unknown paths', async () => {
    const { call } = await setup()
    const res = await call('DELETE', '/api/v1/partner/me')
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH')
    expect(res.json).toMatchObject({
      success: false,
      error: { code: 'method_not_allowed' },
      requestId: expect.stringMatching(/^req_/),
    })
    expect(res.json.error.message).toContain('DELETE is not allowed on /api/v1/partner/me')
    // Path parameters match too.
    const user = await call('PUT', '/api/v1/partner/webhooks/wh_123')
    expect(user.status).toBe(405)
    expect(user.headers.get('allow')).toContain('PATCH')
    const control = await call('GET', '/_sandbox/clock/advance', { creds: null })
    expect(control.status).toBe(405)
    expect(control.headers.get('allow')).toBe('POST')
    expect((await call('GET', '/api/v1/partner/nope')).status).toBe(404)
  })
})
