import { describe, expect, it } from 'vitest'
import { acme, northwind, setup } from './helpers.js'

describe('organization credentials (spec section 5, layer 1)', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['no headers', {}, /Missing X-Partner-Key and X-Partner-Secret/],
    ['no secret', { 'x-partner-key': acme.key }, /Missing X-Partner-Secret/],
    ['no key', { 'x-partner-secret': acme.secret }, /Missing X-Partner-Key/],
    [
      'wrong secret',
      { 'x-partner-key': acme.key, 'x-partner-secret': 'sk_test_wrong' },
      /Invalid partner credentials/,
    ],
    [
      'unknown key',
      { 'x-partner-key': 'pk_test_nobody', 'x-partner-secret': acme.secret },
      /Invalid partner credentials/,
    ],
    [
      "another partner's secret",
      { 'x-partner-key': acme.key, 'x-partner-secret': northwind.secret },
      /Invalid/,
    ],
    [
      'live key',
      { 'x-partner-key': 'pk_live_abc', 'x-partner-secret': acme.secret },
      /only test-mode.*pk_test_/,
    ],
    [
      'live secret',
      { 'x-partner-key': acme.key, 'x-partner-secret': 'sk_live_abc' },
      /only test-mode.*sk_test_/,
    ],
    [
      'not a pk_ key',
      { 'x-partner-key': 'abc', 'x-partner-secret': acme.secret },
      /must start with pk_test_/,
    ],
  ]
  it.each(cases)('%s → 401 in the error envelope', async (_name, headers, message) => {
    const { call } = await setup()
    const res = await call('GET', '/api/v1/partner/me', { creds: null, headers })
    expect(res.status).toBe(401)
    expect(res.json.success).toBe(false)
    expect(res.json.error.code).toBe('unauthorized')
    expect(res.json.error.message).toMatch(message)
    expect(res.json.requestId).toBe(res.headers.get('x-request-id'))
  })

  it('accepts the default and the second fixture partner, each seeing only itself', async () => {
    const { call } = await setup()
    const a = await call('GET', '/api/v1/partner/me')
    const b = await call('GET', '/api/v1/partner/me', { creds: northwind })
    expect(a.status).toBe(200)
    expect(b.status).toBe(200)
    expect(a.json.partner.api_key).toBe(acme.key)
    expect(b.json.partner.api_key).toBe(northwind.key)
    expect(a.json.partner.id).not.toBe(b.json.partner.id)
  })

  it('checks every route of /api/v1, including unknown ones, before anything else', async () => {
    const { call } = await setup()
    expect((await call('GET', '/api/v1/partner/usage', { creds: null })).status).toBe(401)
    expect((await call('POST', '/api/v1/partner/me/rotate-api-key', { creds: null })).status).toBe(
      401,
    )
    expect((await call('GET', '/api/v1/no-such-route', { creds: null })).status).toBe(401)
  })

  it.each(['suspended', 'revoked'] as const)(
    'a %s partner gets 403 on every request, at once',
    async (status) => {
      const { call } = await setup()
      expect((await call('GET', '/api/v1/partner/me')).status).toBe(200) // the pair is now cached
      const id = (await call('GET', '/api/v1/partner/me')).json.partner.id
      const patched = await call('PATCH', `/_sandbox/partners/${id}`, {
        creds: null,
        body: { status },
      })
      expect(patched.status).toBe(200)
      for (const [method, path] of [
        ['GET', '/api/v1/partner/me'],
        ['GET', '/api/v1/partner/usage'],
        ['POST', '/api/v1/partner/me/rotate-api-key'],
      ] as const) {
        const res = await call(method, path)
        expect(res.status).toBe(403)
        expect(res.json.error.code).toBe('forbidden')
        expect(res.json.error.message).toContain(status)
      }
      // A wrong secret is still a 401: the account state is not revealed to a caller without it.
      expect(
        (await call('GET', '/api/v1/partner/me', { creds: { key: acme.key, secret: 'sk_test_x' } }))
          .status,
      ).toBe(401)
      // Another partner is unaffected.
      expect((await call('GET', '/api/v1/partner/me', { creds: northwind })).status).toBe(200)
      await call('PATCH', `/_sandbox/partners/${id}`, { creds: null, body: { status: 'active' } })
      expect((await call('GET', '/api/v1/partner/me')).status).toBe(200)
    },
  )

  it('a rotation and a suspension are seen on the next request while another partner writes', async () => {
    const { call } = await setup()
    let n = 0
    const elsewhere = async () => {
      const res = await call('PATCH', '/api/v1/partner/me', {
        creds: northwind,
        body: { display_name: `Northwind ${++n}` },
      })
      expect(res.status).toBe(200)
    }
    expect((await call('GET', '/api/v1/partner/me')).status).toBe(200) // kept from here on
    await elsewhere()
    expect((await call('GET', '/api/v1/partner/me')).status).toBe(200)
    const rotated = (await call('POST', '/api/v1/partner/me/rotate-api-key')).json
    await elsewhere()
    expect((await call('GET', '/api/v1/partner/me')).status).toBe(401)
    const creds = { key: rotated.api_key, secret: rotated.api_secret }
    const me = await call('GET', '/api/v1/partner/me', { creds })
    expect(me.status).toBe(200)
    await elsewhere()
    const suspended = await call('PATCH', `/_sandbox/partners/${me.json.partner.id}`, {
      creds: null,
      body: { status: 'suspended' },
    })
    expect(suspended.status).toBe(200)
    await elsewhere()
    const refused = await call('GET', '/api/v1/partner/me', { creds })
    expect(refused.status).toBe(403)
    expect(refused.json.error.message).toContain('suspended')
    expect(
      (await call('GET', '/api/v1/partner/me', { creds: northwind })).json.partner,
    ).toMatchObject({ display_name: `Northwind ${n}` })
  })

  it('a suspended partner changes nothing: a PATCH is refused and the record is unchanged', async () => {
    const { call } = await setup()
    const before = (await call('GET', '/api/v1/partner/me')).json.partner
    await call('PATCH', `/_sandbox/partners/${before.id}`, {
      creds: null,
      body: { status: 'suspended' },
    })
    const res = await call('PATCH', '/api/v1/partner/me', { body: { display_name: 'Hacked' } })
    expect(res.status).toBe(403)
    await call('PATCH', `/_sandbox/partners/${before.id}`, {
      creds: null,
      body: { status: 'active' },
    })
    expect((await call('GET', '/api/v1/partner/me')).json.partner.display_name).toBe(
      before.display_name,
    )
  })
})
