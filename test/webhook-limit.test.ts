/**
 * A partner has at most 16 webhook endpoints (Stripe's cap), its primary one included, set by
 * --webhook-limit (SANDBOX_WEBHOOK_LIMIT, `webhookLimit`): every event goes to each endpoint,
 * so without a cap one partner could make each event cost hundreds of deliveries.
 */
import { describe, expect, it } from 'vitest'
import { serveCommand } from '../src/cli/command-specs.js'
import { parseFlags } from '../src/cli/flags.js'
import { envNames } from '../src/config.js'
import { parseOptions } from '../src/index.js'
import { type Call, type Creds, northwind, setup } from './helpers.js'

const API = '/api/v1/partner/webhooks'

const create = (call: Call, n: number) =>
  call('POST', API, { body: { url: `https://hooks.example.test/${n}`, events: [] } })

async function endpointCount(call: Call, creds?: Creds) {
  const res = await call('GET', `${API}?limit=100`, creds ? { creds } : {})
  expect(res.status, res.text).toBe(200)
  return res.json.data.length as number
}

/** Creates endpoints until the partner has `total`. */
async function fillTo(call: Call, total: number) {
  for (let n = await endpointCount(call); n < total; n++) {
    const res = await create(call, n)
    expect(res.status, res.text).toBe(201)
  }
}

describe('the cap on webhook endpoints', () => {
  it('allows 16 by default and refuses the 17th with a 409 that says what to do', async () => {
    const { call } = await setup()
    await fillTo(call, 16)
    const others = await endpointCount(call, northwind)
    const refused = await create(call, 17)
    expect(refused.status, refused.text).toBe(409)
    expect(refused.json).toMatchObject({ success: false, error: { code: 'conflict' } })
    expect(refused.json.error.message).toContain('16 webhook endpoints')
    expect(refused.json.error.message).toContain('--webhook-limit')
    expect(refused.json.error.message).toContain('DELETE /api/v1/partner/webhooks/{id}')
    expect(refused.json.requestId).toMatch(/^req_/)
    // Nothing was made, and the cap is per partner.
    expect(await endpointCount(call)).toBe(16)
    const northwinds = await call('POST', API, {
      creds: northwind,
      body: { url: 'https://hooks.example.test/nw', events: [] },
    })
    expect(northwinds.status, northwinds.text).toBe(201)
    expect(await endpointCount(call, northwind)).toBe(others + 1)
  })

  it('makes room again once an endpoint is deleted', async () => {
    const { call } = await setup({ webhookLimit: 3 })
    await fillTo(call, 3)
    expect((await create(call, 4)).status).toBe(409)
    const [first] = (await call('GET', API)).json.data.filter(
      (w: { primary: boolean }) => !w.primary,
    )
    expect((await call('DELETE', `${API}/${first.id}`)).status).toBe(200)
    expect((await create(call, 5)).status).toBe(201)
    expect((await create(call, 6)).status).toBe(409)
  })

  it('counts the primary endpoint: setting webhook_url at the cap is refused, naming it', async () => {
    const { call } = await setup({ webhookLimit: 2 })
    const me = (await call('GET', '/api/v1/partner/me')).json.partner
    if (me.webhook_url) {
      const cleared = await call('PATCH', '/api/v1/partner/me', { body: { webhook_url: null } })
      expect(cleared.status, cleared.text).toBe(200)
    }
    await fillTo(call, 2)
    const refused = await call('PATCH', '/api/v1/partner/me', {
      body: { webhook_url: 'https://hooks.example.test/primary', display_name: 'Changed' },
    })
    expect(refused.status, refused.text).toBe(409)
    expect(refused.json.error.details).toEqual([
      { field: 'webhook_url', message: expect.stringContaining('at most 2'), location: 'body' },
    ])
    const after = (await call('GET', '/api/v1/partner/me')).json.partner
    expect(after.webhook_url).toBeNull()
    expect(after.display_name).toBe(me.display_name)
    expect(await endpointCount(call)).toBe(2)
  })

  it('lets two creations at once never both take the last place', async () => {
    const { call } = await setup({ webhookLimit: 4 })
    await fillTo(call, 3)
    const answers = await Promise.all([1, 2, 3, 4].map((n) => create(call, 100 + n)))
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409])
    expect(await endpointCount(call)).toBe(4)
  })

  it('is documented as a 409 of createWebhook and updatePartner', async () => {
    const { call } = await setup()
    const doc = (await call('GET', '/openapi.json', { creds: null })).json
    expect(doc.paths['/api/v1/partner/webhooks'].post.responses).toHaveProperty('409')
    expect(doc.paths['/api/v1/partner/me'].patch.responses).toHaveProperty('409')
  })
})

describe('the webhook-limit setting', () => {
  it('is 16 by default, an option, a variable and a flag, and refuses what is not a count', () => {
    expect(parseOptions({}).webhookLimit).toBe(16)
    expect(parseOptions({ webhookLimit: '40' }).webhookLimit).toBe(40)
    expect(envNames.SANDBOX_WEBHOOK_LIMIT).toBe('webhookLimit')
    expect(parseFlags(['--webhook-limit', '8'], serveCommand).values['webhook-limit']).toBe('8')
    for (const bad of [0, -1, 1.5, 'many'])
      expect(() => parseOptions({ webhookLimit: bad as never })).toThrow(/webhookLimit/)
  })
})
