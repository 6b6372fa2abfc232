import { createHmac } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { serveCli, stopCliProcesses } from './cli-process.js'
import {
  type Call,
  type Creds,
  createPartner,
  onboardedUser,
  type Receiver,
  setup,
  startReceiver,
} from './helpers.js'

/**
 * Production names (issue 41): the spec's placeholders, the signature header
 * `X-Service-Signature` and the provider's word in `provider_consumer_id`, replaced by the names
 * a partner meets in production: sandbox-wide (flag, environment, option) or per partner
 * (control plane), alike in answers, deliveries and /openapi.json.
 */

let receiver: Receiver | undefined
afterEach(async () => {
  await receiver?.close()
  receiver = undefined
  await stopCliProcesses()
})

/** An endpoint of `creds`'s partner at a fresh receiver; answers its signing secret. */
async function endpoint(call: Call, creds?: Creds) {
  receiver = await startReceiver()
  const res = await call('POST', '/api/v1/partner/webhooks', {
    creds,
    body: { url: receiver.url, events: ['user.updated'] },
  })
  expect(res.status, res.text).toBe(201)
  return res.json.secret as string
}

/** The delivered user.updated that approved the user: its headers and its parsed body. */
async function approvalDelivered(call: Call) {
  await call('POST', '/_sandbox/webhooks/flush', { creds: null })
  const got = receiver as Receiver
  const approved = got.requests.find((r) => r.body.toString().includes('"approved"'))
  expect(approved, 'the approval was delivered').toBeDefined()
  const request = approved as NonNullable<typeof approved>
  return {
    headers: request.headers,
    raw: request.body.toString(),
    body: JSON.parse(request.body.toString()),
  }
}

describe('sandbox-wide production names', () => {
  it('an answer, a delivery and /openapi.json carry them; the placeholders are gone', async () => {
    const { call } = await setup({
      signatureHeader: 'X-Acme-Signature',
      providerName: 'lithic',
    })
    const secret = await endpoint(call)
    const user = await onboardedUser(call)

    const me = await call('GET', '/api/v1/partner/users/me', { headers: user.bearer })
    expect(me.status, me.text).toBe(200)
    expect(me.json.lithic_consumer_id).toMatch(/^cons_/)
    expect(me.json).not.toHaveProperty('provider_consumer_id')

    const { headers, raw, body } = await approvalDelivered(call)
    expect(body.data.object.lithic_consumer_id).toBe(me.json.lithic_consumer_id)
    expect(raw).not.toContain('provider_consumer_id')
    expect(headers['x-service-signature']).toBeUndefined()
    const signature = headers['x-acme-signature'] as string
    const [t, v1] = signature.split(',').map((part) => part.split('=')[1])
    expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex'))

    const doc = await call('GET', '/openapi.json', { creds: null })
    expect(doc.text).toContain('lithic_consumer_id')
    expect(doc.text).not.toContain('provider_consumer_id')
    expect(Object.keys(doc.json.components.schemas.User.properties)).toContain('lithic_consumer_id')
    const delivery = doc.json.webhooks.event.post.parameters.map((p: { name: string }) => p.name)
    expect(delivery).toContain('X-Acme-Signature')
    expect(doc.text).not.toContain('X-Service-Signature')
  })

  it('without them the spec’s words stay, and the document says they are placeholders', async () => {
    const { call } = await setup()
    const user = await onboardedUser(call)
    const me = await call('GET', '/api/v1/partner/users/me', { headers: user.bearer })
    expect(me.json.provider_consumer_id).toMatch(/^cons_/)
    const doc = await call('GET', '/openapi.json', { creds: null })
    expect(doc.json.info.description).toContain('placeholders')
    expect(doc.json.webhooks.event.post.parameters[0].name).toBe('X-Service-Signature')
  })

  it('bad names are refused naming the option', async () => {
    await expect(setup({ providerName: 'Lithic Cards' })).rejects.toThrow(/providerName/)
    await expect(setup({ signatureHeader: 'webhook-signature' })).rejects.toThrow(/signatureHeader/)
  })

  it('the CLI takes them as a flag or from the environment, and the banner shows them', async () => {
    const cli = await serveCli(['--port', '0', '--signature-header', 'X-Acme-Signature'], {
      SANDBOX_PROVIDER_NAME: 'lithic',
    })
    expect(cli.output.stdout).toMatch(/Names\s+X-Acme-Signature, lithic_consumer_id/)
    const doc = await cli.call('GET', '/openapi.json', { creds: null })
    expect(doc.text).toContain('lithic_consumer_id')
  })
})

describe("a partner's own names (control plane)", () => {
  it("apply to that partner's answers, deliveries and document only; null puts the sandbox's back", async () => {
    const { call } = await setup()
    const partner = await createPartner(call, {
      name: 'Marqeta Co',
      names: { signature_header: 'X-Marqeta-Signature', provider: 'marqeta' },
    })
    await endpoint(call, partner.creds)
    const user = await onboardedUser(call, {}, partner.creds)
    const me = await call('GET', '/api/v1/partner/users/me', {
      creds: partner.creds,
      headers: user.bearer,
    })
    expect(me.json.marqeta_consumer_id).toMatch(/^cons_/)
    const { headers, body } = await approvalDelivered(call)
    expect(headers['x-marqeta-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    expect(body.data.object.marqeta_consumer_id).toBe(me.json.marqeta_consumer_id)

    const own = await call('GET', `/openapi.json?partner_id=${partner.id}`, { creds: null })
    expect(own.text).toContain('marqeta_consumer_id')
    expect(own.text).toContain('X-Marqeta-Signature')
    const sandboxDoc = await call('GET', '/openapi.json', { creds: null })
    expect(sandboxDoc.text).toContain('provider_consumer_id')

    // Another partner keeps the spec's words.
    const other = await onboardedUser(call)
    const theirs = await call('GET', '/api/v1/partner/users/me', { headers: other.bearer })
    expect(theirs.json).toHaveProperty('provider_consumer_id')

    const reset = await call('PATCH', `/_sandbox/partners/${partner.id}`, {
      creds: null,
      body: { names: { provider: null } },
    })
    expect(reset.status, reset.text).toBe(200)
    expect(reset.json.names).toEqual({
      signature_header: 'X-Marqeta-Signature',
      provider: 'provider',
    })
    const after = await call('GET', '/api/v1/partner/users/me', {
      creds: partner.creds,
      headers: user.bearer,
    })
    expect(after.json).toHaveProperty('provider_consumer_id')
  })

  it('400 naming the field for a bad name; nothing changes', async () => {
    const { call } = await setup()
    const partner = await createPartner(call, { name: 'Plain Co' })
    for (const names of [{ provider: 'Has Space' }, { signature_header: 'Content-Type' }]) {
      const res = await call('PATCH', `/_sandbox/partners/${partner.id}`, {
        creds: null,
        body: { names },
      })
      expect(res.status).toBe(400)
      expect(JSON.stringify(res.json.error.details)).toContain(`names.${Object.keys(names)[0]}`)
    }
    const unknown = await call(
      'GET',
      '/openapi.json?partner_id=00000000-0000-4000-8000-000000000000',
      {
        creds: null,
      },
    )
    expect(unknown.status).toBe(404)
    const list = await call('GET', '/_sandbox/partners?limit=500', { creds: null })
    const row = list.json.data.find((p: { id: string }) => p.id === partner.id)
    expect(row.names).toEqual({ signature_header: 'X-Service-Signature', provider: 'provider' })
  })
})
