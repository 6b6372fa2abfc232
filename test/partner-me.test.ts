import { describe, expect, it } from 'vitest'
import { acme, northwind, setup } from './helpers.js'

const partnerFields = [
  'id',
  'name',
  'display_name',
  'slug',
  'api_key',
  'allowed_origins',
  'webhook_url',
  'scopes',
  'rate_limit',
  'status',
  'contact_email',
  'contact_name',
  'config',
]

describe('GET /partner/me', () => {
  it('answers { partner } with the spec fields and never a secret', async () => {
    const { call } = await setup()
    const res = await call('GET', '/api/v1/partner/me')
    expect(res.status).toBe(200)
    expect(Object.keys(res.json)).toEqual(['partner'])
    for (const field of partnerFields) expect(res.json.partner).toHaveProperty(field)
    expect(res.json.partner).toMatchObject({
      api_key: acme.key,
      status: 'active',
      rate_limit: 1000,
    })
    expect(res.json.partner.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(res.text).not.toMatch(/api_secret|webhook_secret|scrypt\$|sk_test_/)
  })
})

describe('PATCH /partner/me', () => {
  it('updates every editable field and answers the same shape as GET', async () => {
    const { call } = await setup()
    const body = {
      display_name: 'Acme Card Co',
      contact_email: 'ops@acme.example',
      contact_name: 'Ada Ops',
      allowed_origins: ['https://app.acme.example'],
      webhook_url: 'https://hooks.acme.example/card-events',
      config: { theme: 'dark', nested: { a: 1 } },
    }
    const res = await call('PATCH', '/api/v1/partner/me', { body })
    expect(res.status).toBe(200)
    expect(res.json.partner).toMatchObject(body)
    expect((await call('GET', '/api/v1/partner/me')).json.partner).toMatchObject(body)
    const cleared = await call('PATCH', '/api/v1/partner/me', { body: { webhook_url: null } })
    expect(cleared.json.partner.webhook_url).toBeNull()
  })

  const bad: [string, unknown, string[]][] = [
    ['an empty body', {}, ['body']],
    ['api_key', { api_key: 'pk_test_mine' }, ['api_key']],
    ['api_secret', { display_name: 'x', api_secret: 'sk_test_mine' }, ['api_secret']],
    ['an unknown field', { colour: 'red' }, ['colour']],
    [
      'a non-URL origin',
      { allowed_origins: ['https://ok.example', 'not a url'] },
      ['allowed_origins.1'],
    ],
    ['a non-http webhook_url', { webhook_url: 'ftp://files.example' }, ['webhook_url']],
    ['a bad email', { contact_email: 'nobody' }, ['contact_email']],
    ['a blank display_name', { display_name: '  ' }, ['display_name']],
    ['config not an object', { config: [1, 2] }, ['config']],
    [
      'two bad fields',
      { contact_email: 'x', webhook_url: 'nope' },
      ['contact_email', 'webhook_url'],
    ],
  ]
  it.each(bad)(
    'rejects %s with a 400 naming the field and changes nothing',
    async (_name, body, fields) => {
      const { call } = await setup()
      const before = (await call('GET', '/api/v1/partner/me')).json.partner
      const res = await call('PATCH', '/api/v1/partner/me', { body })
      expect(res.status).toBe(400)
      expect(res.json.error.code).toBe('validation_error')
      expect(res.json.error.details.map((d: { field: string }) => d.field).sort()).toEqual(fields)
      expect((await call('GET', '/api/v1/partner/me')).json.partner).toEqual(before)
    },
  )

  it('says how to change the key instead', async () => {
    const { call } = await setup()
    const res = await call('PATCH', '/api/v1/partner/me', { body: { api_key: 'pk_test_x' } })
    expect(res.json.error.details[0].message).toContain('rotate-api-key')
  })
})

describe('POST /partner/me/rotate-api-key', () => {
  it('returns a new pair once; the old pair fails at once and the new one works', async () => {
    const { call } = await setup()
    expect((await call('GET', '/api/v1/partner/me')).status).toBe(200)
    const res = await call('POST', '/api/v1/partner/me/rotate-api-key')
    expect(res.status).toBe(200)
    const { api_key, api_secret, message } = res.json
    expect(api_key).toMatch(/^pk_test_[0-9A-Za-z]{24}$/)
    expect(api_secret).toMatch(/^sk_test_[0-9A-Za-z]{40}$/)
    expect(message).toMatch(/not shown again/)
    expect(api_key).not.toBe(acme.key)

    expect((await call('GET', '/api/v1/partner/me')).status).toBe(401)
    expect(
      (await call('GET', '/api/v1/partner/me', { creds: { key: api_key, secret: acme.secret } }))
        .status,
    ).toBe(401)
    expect(
      (await call('GET', '/api/v1/partner/me', { creds: { key: acme.key, secret: api_secret } }))
        .status,
    ).toBe(401)
    const after = await call('GET', '/api/v1/partner/me', {
      creds: { key: api_key, secret: api_secret },
    })
    expect(after.status).toBe(200)
    expect(after.json.partner.api_key).toBe(api_key)
    expect(after.text).not.toContain(api_secret)
    // The other partner is untouched.
    expect((await call('GET', '/api/v1/partner/me', { creds: northwind })).status).toBe(200)
  })

  it('rotating twice leaves only the latest pair valid', async () => {
    const { call } = await setup()
    const first = (await call('POST', '/api/v1/partner/me/rotate-api-key')).json
    const second = (
      await call('POST', '/api/v1/partner/me/rotate-api-key', {
        creds: { key: first.api_key, secret: first.api_secret },
      })
    ).json
    expect(
      (
        await call('GET', '/api/v1/partner/me', {
          creds: { key: first.api_key, secret: first.api_secret },
        })
      ).status,
    ).toBe(401)
    expect(
      (
        await call('GET', '/api/v1/partner/me', {
          creds: { key: second.api_key, secret: second.api_secret },
        })
      ).status,
    ).toBe(200)
  })
})

describe('GET /partner/usage', () => {
  it('answers the usage snapshot with real per-partner counts', async () => {
    const { call } = await setup()
    const a = await call('GET', '/api/v1/partner/usage')
    expect(a.status).toBe(200)
    expect(a.json).toEqual({
      rate_limit: 1000,
      status: 'active',
      scopes: ['users', 'cards', 'transactions'],
      last_24h: { webhook_deliveries_succeeded: 0, webhook_deliveries_permanently_failed: 0 },
      totals: { users: 5 },
    })
    const b = await call('GET', '/api/v1/partner/usage', { creds: northwind })
    expect(b.json.totals.users).toBe(2)
    expect(b.json.rate_limit).toBe(600)
  })
})
