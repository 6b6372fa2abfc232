import { Webhook } from 'standardwebhooks'
import Stripe from 'stripe'
import { describe, expect, it } from 'vitest'
import { serverErrors } from '../src/errors.js'
import { DEFAULT_PARTNER, SECOND_PARTNER } from '../src/store/default-credentials.js'
import {
  acme,
  type Call,
  type Creds,
  northwind,
  type ReceivedRequest,
  type Receiver,
  receiverForTest,
  registerAndLogin,
  setup,
} from './helpers.js'

/** The event names of DESIGN.md section 3, plus user.updated (emitted by profile changes). */
const DESIGN_EVENTS = [
  'user.created',
  'onboarding.started',
  'onboarding.completed',
  'onboarding.failed',
  'card.created',
  'card.funded',
  'deposit.created',
  'deposit.succeeded',
  'deposit.failed',
  'card_transaction.created',
  'card_transaction.updated',
  'dispute.created',
  'dispute.updated',
  'external_bank_account.created',
  'api_key.rotated',
  'webhook.test',
]
const ALL_EVENTS = [...DESIGN_EVENTS, 'user.updated']

const API = '/api/v1/partner/webhooks'
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/

/** Retries only move when a test advances the clock; first attempts still go out at once. */
const FROZEN = { frozenAt: true } as const

async function createEndpoint(
  call: Call,
  url: string,
  events: string[] = [],
  creds: Creds = acme,
): Promise<{ id: string; secret: string }> {
  const res = await call('POST', API, { creds, body: { url, events } })
  expect(res.status, res.text).toBe(201)
  return { id: res.json.webhook.id, secret: res.json.secret }
}

const flush = async (call: Call) => {
  const res = await call('POST', '/_sandbox/webhooks/flush', { creds: null })
  expect(res.status, res.text).toBe(200)
}

async function trigger(call: Call, type: string, partnerId: string = DEFAULT_PARTNER.id) {
  const res = await call('POST', '/_sandbox/events', {
    creds: null,
    body: { partner_id: partnerId, type, object: { object: 'test', n: 1 } },
  })
  expect(res.status, res.text).toBe(201)
  return res.json.event as { id: string; type: string }
}

// biome-ignore lint/suspicious/noExplicitAny: an event envelope as parsed from the wire
const envelope = (r: ReceivedRequest): any => JSON.parse(r.body.toString('utf8'))
const typesOf = (r: Receiver) => r.requests.map((q) => envelope(q).type)

function verifies(secret: string, r: ReceivedRequest) {
  const result = { stripe: false, standard: false }
  try {
    new Stripe('sk_test_x').webhooks.constructEvent(
      r.body,
      String(r.headers['x-service-signature']),
      secret,
    )
    result.stripe = true
  } catch {}
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>)
    result.standard = true
  } catch {}
  return result
}

describe('creating an endpoint', () => {
  it('answers 201 { webhook, secret } with a whsec_ secret of 32 random bytes', async () => {
    const { call } = await setup({}, FROZEN)
    const res = await call('POST', API, {
      body: { url: 'https://hooks.example.test/in', events: ['user.created', 'card.funded'] },
    })
    expect(res.status).toBe(201)
    expect(Object.keys(res.json).sort()).toEqual(['secret', 'webhook'])
    expect(res.json.webhook).toMatchObject({
      id: expect.stringMatching(/^wh_/),
      url: 'https://hooks.example.test/in',
      events: ['user.created', 'card.funded'],
      enabled: true,
      description: null,
      primary: false,
    })
    expect(res.json.webhook).not.toHaveProperty('secret')
    expect(res.json.secret).toMatch(SECRET)
    expect(Buffer.from(res.json.secret.slice('whsec_'.length), 'base64')).toHaveLength(32)

    const other = await createEndpoint(call, 'https://hooks.example.test/other')
    expect(other.secret).toMatch(SECRET)
    expect(other.secret).not.toBe(res.json.secret)
    expect(other.id).not.toBe(res.json.webhook.id)
  })

  it('never shows the secret again: not in GET, the list or a PATCH response', async () => {
    const { call } = await setup({}, FROZEN)
    const { id, secret } = await createEndpoint(call, 'https://hooks.example.test/in')
    const responses = [
      await call('GET', `${API}/${id}`),
      await call('GET', API),
      await call('PATCH', `${API}/${id}`, { body: { description: 'orders' } }),
      await call('GET', `${API}/${id}/deliveries`),
    ]
    for (const res of responses) {
      expect(res.status, res.text).toBe(200)
      expect(res.text).not.toContain(secret)
      expect(res.text).not.toContain('whsec_')
      expect(res.text).not.toMatch(/"secret"/)
    }
  })

  it('treats an empty events list as every event kind', async () => {
    const { call } = await setup({}, FROZEN)
    const all = await receiverForTest()
    const some = await receiverForTest()
    await createEndpoint(call, all.url, [])
    await createEndpoint(call, some.url, ['card.funded', 'dispute.updated'])
    for (const type of ALL_EVENTS) await trigger(call, type)
    await flush(call)
    expect(typesOf(all).sort()).toEqual([...ALL_EVENTS].sort())
    expect(typesOf(some).sort()).toEqual(['card.funded', 'dispute.updated'])
  })

  it('rejects an unknown event kind with 400 naming the valid kinds', async () => {
    const { call } = await setup({}, FROZEN)
    const res = await call('POST', API, {
      body: { url: 'https://hooks.example.test/in', events: ['user.created', 'card.exploded'] },
    })
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe('validation_error')
    expect(res.json.error.details).toEqual([
      expect.objectContaining({ field: 'events.1', location: 'body' }),
    ])
    for (const kind of ALL_EVENTS) expect(res.json.error.message).toContain(kind)
    const list = await call('GET', API)
    expect(list.json.data).toEqual([])
  })

  it.each([
    ['not a URL', { url: 'not a url', events: [] }, 'url'],
    ['a non-http scheme', { url: 'ftp://hooks.example.test/in', events: [] }, 'url'],
    ['a missing url', { events: [] }, 'url'],
    ['events that are not a list', { url: 'https://hooks.example.test', events: 'all' }, 'events'],
    ['an unknown field', { url: 'https://hooks.example.test', events: [], secret: 'x' }, 'secret'],
  ])('rejects %s with 400 on that field', async (_, body, field) => {
    const { call } = await setup({}, FROZEN)
    const res = await call('POST', API, { body })
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe('validation_error')
    expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(field)
  })
})

describe('listing, reading and updating endpoints', () => {
  it('lists newest first in pages with limit and starting_after; a foreign cursor is a 400', async () => {
    const { sandbox, call } = await setup({}, FROZEN)
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      ids.push((await createEndpoint(call, `https://hooks.example.test/${i}`)).id)
      await sandbox.clock.advance(1000)
    }
    const newestFirst = [...ids].reverse()
    const first = await call('GET', `${API}?limit=2`)
    expect(first.status).toBe(200)
    expect(first.json.data.map((w: { id: string }) => w.id)).toEqual(newestFirst.slice(0, 2))
    expect(first.json.has_more).toBe(true)
    const second = await call('GET', `${API}?limit=2&starting_after=${newestFirst[1]}`)
    expect(second.json.data.map((w: { id: string }) => w.id)).toEqual(newestFirst.slice(2, 4))
    expect(second.json.has_more).toBe(true)
    const last = await call('GET', `${API}?limit=2&starting_after=${newestFirst[3]}`)
    expect(last.json.data.map((w: { id: string }) => w.id)).toEqual(newestFirst.slice(4))
    expect(last.json.has_more).toBe(false)
    const whole = await call('GET', API)
    expect(whole.json.data).toHaveLength(5)
    expect(whole.json.has_more).toBe(false)

    const bad = await call('GET', `${API}?starting_after=wh_doesnotexist`)
    expect(bad.status).toBe(400)
    expect(bad.json.error.details[0]).toMatchObject({ field: 'starting_after', location: 'query' })
    for (const limit of ['0', '101', 'ten']) {
      expect((await call('GET', `${API}?limit=${limit}`)).status, limit).toBe(400)
    }
  })

  it('reads one endpoint; an unknown id is a 404 and a malformed one a 400', async () => {
    const { call } = await setup({}, FROZEN)
    const { id } = await createEndpoint(call, 'https://hooks.example.test/in', ['user.created'])
    const res = await call('GET', `${API}/${id}`)
    expect(res.status).toBe(200)
    expect(res.json.webhook).toMatchObject({
      id,
      url: 'https://hooks.example.test/in',
      events: ['user.created'],
    })
    const missing = await call('GET', `${API}/wh_doesnotexist`)
    expect(missing.status).toBe(404)
    expect(missing.json.error.code).toBe('not_found')
    expect((await call('GET', `${API}/12345`)).status).toBe(400)
  })

  it('updates url, events, enabled and description, and deliveries follow the change', async () => {
    const { sandbox, call } = await setup({}, FROZEN)
    const before = await receiverForTest()
    const after = await receiverForTest()
    const { id } = await createEndpoint(call, before.url, ['card.funded'])
    await sandbox.clock.advance(60_000)

    const patched = await call('PATCH', `${API}/${id}`, {
      body: { url: after.url, events: ['user.created'], description: 'user sync' },
    })
    expect(patched.status).toBe(200)
    expect(patched.json.webhook).toMatchObject({
      id,
      url: after.url,
      events: ['user.created'],
      description: 'user sync',
      enabled: true,
    })
    expect(patched.json.webhook.updated_at).not.toBe(patched.json.webhook.created_at)
    expect((await call('GET', `${API}/${id}`)).json.webhook).toEqual(patched.json.webhook)

    await trigger(call, 'card.funded')
    await trigger(call, 'user.created')
    await flush(call)
    expect(before.requests).toHaveLength(0)
    expect(typesOf(after)).toEqual(['user.created'])

    const disabled = await call('PATCH', `${API}/${id}`, { body: { enabled: false } })
    expect(disabled.json.webhook.enabled).toBe(false)
    await trigger(call, 'user.created')
    await flush(call)
    expect(after.requests).toHaveLength(1)
    const test = await call('POST', `${API}/${id}/test`)
    expect(test.status).toBe(409)

    const cleared = await call('PATCH', `${API}/${id}`, {
      body: { enabled: true, description: null },
    })
    expect(cleared.json.webhook).toMatchObject({ enabled: true, description: null })
    await trigger(call, 'user.created')
    await flush(call)
    expect(after.requests).toHaveLength(2)
  })

  it.each([
    ['an empty body', {}],
    ['an unknown event', { events: ['user.exploded'] }],
    ['a bad url', { url: 'mailto:ops@example.test' }],
    ['an unknown field', { secret: 'whsec_x' }],
    ['a non-boolean enabled', { enabled: 'yes' }],
  ])('rejects a PATCH with %s (400) and changes nothing', async (_, body) => {
    const { call } = await setup({}, FROZEN)
    const { id } = await createEndpoint(call, 'https://hooks.example.test/in', ['user.created'])
    const before = (await call('GET', `${API}/${id}`)).json.webhook
    const res = await call('PATCH', `${API}/${id}`, { body })
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe('validation_error')
    expect((await call('GET', `${API}/${id}`)).json.webhook).toEqual(before)
  })
})

describe('deleting an endpoint', () => {
  it('removes it: 404 afterwards, gone from the list, no more deliveries', async () => {
    const { call } = await setup({}, FROZEN)
    const r = await receiverForTest()
    const { id } = await createEndpoint(call, r.url)
    const keep = await createEndpoint(call, 'https://hooks.example.test/keep')
    const res = await call('DELETE', `${API}/${id}`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ id, deleted: true })
    expect((await call('GET', `${API}/${id}`)).status).toBe(404)
    expect((await call('GET', `${API}/${id}/deliveries`)).status).toBe(404)
    expect((await call('DELETE', `${API}/${id}`)).status).toBe(404)
    expect((await call('GET', API)).json.data.map((w: { id: string }) => w.id)).toEqual([keep.id])
    await trigger(call, 'user.created')
    await flush(call)
    expect(r.requests).toHaveLength(0)
  })

  it('stops the pending retries of a delivery: it ends permanently_failed on the next advance', async () => {
    const { sandbox, call } = await setup({}, FROZEN)
    const failing = await receiverForTest()
    failing.otherwise = 500
    const { id } = await createEndpoint(call, failing.url)
    const event = await trigger(call, 'user.created')
    await flush(call)
    expect(failing.requests).toHaveLength(1)
    const log = await call('GET', `${API}/${id}/deliveries`)
    expect(log.json.data).toHaveLength(1)
    const delivery = log.json.data[0]
    expect(delivery).toMatchObject({ status: 'failed', event_id: event.id })

    expect((await call('DELETE', `${API}/${id}`)).status).toBe(200)
    await sandbox.clock.advance(10 * 60_000)
    expect(failing.requests).toHaveLength(1)

    const snapshot = await call('GET', '/_sandbox/snapshot', { creds: null })
    const row = snapshot.json.collections.webhook_deliveries[delivery.id]
    expect(row).toMatchObject({ status: 'permanently_failed', next_attempt_at: null })
    expect(row.attempts).toHaveLength(2)
    expect(row.attempts[1]).toMatchObject({
      status_code: null,
      error: 'not sent: the endpoint was deleted',
    })
    const usage = await call('GET', '/api/v1/partner/usage')
    expect(usage.json.last_24h).toEqual({
      webhook_deliveries_succeeded: 0,
      webhook_deliveries_permanently_failed: 1,
    })
  })
})

describe('rotating an endpoint secret', () => {
  it('returns a new secret; later deliveries verify only with it', async () => {
    const { call } = await setup({}, FROZEN)
    const r = await receiverForTest()
    const { id, secret: oldSecret } = await createEndpoint(call, r.url)
    const rotated = await call('POST', `${API}/${id}/rotate-secret`)
    expect(rotated.status).toBe(200)
    expect(rotated.json.webhook.id).toBe(id)
    expect(rotated.json.secret).toMatch(SECRET)
    expect(rotated.json.secret).not.toBe(oldSecret)
    const newSecret: string = rotated.json.secret
    expect((await call('GET', `${API}/${id}`)).text).not.toContain(newSecret)

    expect((await call('POST', `${API}/${id}/test`)).status).toBe(202)
    await flush(call)
    expect(r.requests).toHaveLength(1)
    const [received] = r.requests as [ReceivedRequest]
    expect(verifies(newSecret, received)).toEqual({ stripe: true, standard: true })
    expect(verifies(oldSecret, received)).toEqual({ stripe: false, standard: false })
    expect((await call('POST', `${API}/wh_doesnotexist/rotate-secret`)).status).toBe(404)
  })
})

describe('test events', () => {
  it('queues a webhook.test delivery (202) that reaches only that endpoint', async () => {
    const { call } = await setup({}, FROZEN)
    const a = await receiverForTest()
    const b = await receiverForTest()
    const endpointA = await createEndpoint(call, a.url, ['user.created'])
    const endpointB = await createEndpoint(call, b.url, [])
    const res = await call('POST', `${API}/${endpointA.id}/test`)
    expect(res.status).toBe(202)
    expect(res.json.delivery).toMatchObject({
      id: expect.stringMatching(/^dlv_/),
      webhook_id: endpointA.id,
      event_type: 'webhook.test',
      event_id: expect.stringMatching(/^evt_/),
      status: 'pending',
      attempts: [],
      redelivery_of: null,
    })
    await flush(call)
    expect(a.requests).toHaveLength(1)
    expect(b.requests).toHaveLength(0)
    const body = envelope(a.requests[0] as ReceivedRequest)
    expect(body).toMatchObject({
      id: res.json.delivery.event_id,
      type: 'webhook.test',
      data: { object: { webhook_id: endpointA.id } },
    })
    expect(verifies(endpointA.secret, a.requests[0] as ReceivedRequest)).toEqual({
      stripe: true,
      standard: true,
    })
    const log = await call('GET', `${API}/${endpointA.id}/deliveries`)
    expect(log.json.data).toHaveLength(1)
    expect(log.json.data[0]).toMatchObject({ id: res.json.delivery.id, status: 'succeeded' })
    expect((await call('GET', `${API}/${endpointB.id}/deliveries`)).json.data).toEqual([])
    expect((await call('POST', `${API}/wh_doesnotexist/test`)).status).toBe(404)
  })
})

describe('the event catalogue', () => {
  it('lists every event kind of the design, plus user.updated, each described', async () => {
    const { call } = await setup({}, FROZEN)
    const res = await call('GET', `${API}/events`)
    expect(res.status).toBe(200)
    const types = res.json.data.map((e: { type: string }) => e.type)
    expect([...types].sort()).toEqual([...ALL_EVENTS].sort())
    for (const entry of res.json.data) expect(entry.description.length).toBeGreaterThan(10)
    expect((await call('GET', `${API}/events`, { creds: null })).status).toBe(401)
  })
})

describe('tenant isolation', () => {
  it("gives partner B a 404 on every route of partner A's endpoint and deliveries", async () => {
    const { call } = await setup({}, FROZEN)
    const r = await receiverForTest()
    const a = await createEndpoint(call, r.url)
    expect((await call('POST', `${API}/${a.id}/test`)).status).toBe(202)
    await flush(call)
    const deliveryId = (await call('GET', `${API}/${a.id}/deliveries`)).json.data[0].id
    const b = await createEndpoint(call, 'https://hooks.example.test/b', [], northwind)

    const attempts: [string, string, unknown?][] = [
      ['GET', `${API}/${a.id}`],
      ['PATCH', `${API}/${a.id}`, { description: 'mine now' }],
      ['DELETE', `${API}/${a.id}`],
      ['POST', `${API}/${a.id}/rotate-secret`],
      ['POST', `${API}/${a.id}/test`],
      ['GET', `${API}/${a.id}/deliveries`],
      ['GET', `${API}/${a.id}/deliveries/${deliveryId}`],
      ['POST', `${API}/${a.id}/deliveries/${deliveryId}/redeliver`],
      // A's delivery id under B's own endpoint.
      ['GET', `${API}/${b.id}/deliveries/${deliveryId}`],
      ['POST', `${API}/${b.id}/deliveries/${deliveryId}/redeliver`],
    ]
    for (const [method, path, body] of attempts) {
      const res = await call(method, path, { creds: northwind, body })
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(res.json.error.code).toBe('not_found')
    }
    const listB = await call('GET', API, { creds: northwind })
    expect(listB.json.data.map((w: { id: string }) => w.id)).toEqual([b.id])

    // A's endpoint is untouched: same description, same secret, one delivery.
    const mine = await call('GET', `${API}/${a.id}`)
    expect(mine.json.webhook.description).toBeNull()
    expect((await call('GET', `${API}/${a.id}/deliveries`)).json.data).toHaveLength(1)
    expect((await call('POST', `${API}/${a.id}/test`)).status).toBe(202)
    await flush(call)
    expect(r.requests).toHaveLength(2)
    expect(verifies(a.secret, r.requests[1] as ReceivedRequest).stripe).toBe(true)
  })

  it("never delivers A's events to B's endpoints, nor B's to A's", async () => {
    const { call } = await setup({}, FROZEN)
    const forA = await receiverForTest()
    const forB = await receiverForTest()
    await createEndpoint(call, forA.url, [], acme)
    await createEndpoint(call, forB.url, [], northwind)
    await registerAndLogin(call, {}, acme)
    await trigger(call, 'card.funded', DEFAULT_PARTNER.id)
    await trigger(call, 'dispute.created', SECOND_PARTNER.id)
    await registerAndLogin(call, {}, northwind)
    await flush(call)
    expect(typesOf(forA).sort()).toEqual(['card.funded', 'user.created'])
    expect(typesOf(forB).sort()).toEqual(['dispute.created', 'user.created'])
    const userOf = (r: Receiver) =>
      r.requests.map(envelope).find((e) => e.type === 'user.created')?.data.object
    expect(userOf(forA).partner_id).toBe(DEFAULT_PARTNER.id)
    expect(userOf(forB).partner_id).toBe(SECOND_PARTNER.id)
  })
})

describe('the primary endpoint (webhook_url of the partner record)', () => {
  it('is created by PATCH /partner/me, receives every event, moves and disappears with webhook_url', async () => {
    const { call } = await setup({}, FROZEN)
    const first = await receiverForTest()
    const second = await receiverForTest()
    const set = await call('PATCH', '/api/v1/partner/me', { body: { webhook_url: first.url } })
    expect(set.status).toBe(200)
    expect(set.json.partner.webhook_url).toBe(first.url)
    const list = await call('GET', API)
    expect(list.json.data).toHaveLength(1)
    const primary = list.json.data[0]
    expect(primary).toMatchObject({ url: first.url, events: [], primary: true, enabled: true })

    await registerAndLogin(call)
    await trigger(call, 'dispute.updated')
    await flush(call)
    expect(typesOf(first).sort()).toEqual(['dispute.updated', 'user.created'])

    // The same value again changes nothing; a new value moves the same endpoint.
    await call('PATCH', '/api/v1/partner/me', { body: { webhook_url: first.url } })
    expect((await call('GET', API)).json.data).toHaveLength(1)
    await call('PATCH', '/api/v1/partner/me', { body: { webhook_url: second.url } })
    const moved = (await call('GET', API)).json.data
    expect(moved).toHaveLength(1)
    expect(moved[0]).toMatchObject({ id: primary.id, url: second.url, primary: true })
    await trigger(call, 'card.created')
    await flush(call)
    expect(first.requests).toHaveLength(2)
    expect(typesOf(second)).toEqual(['card.created'])

    const cleared = await call('PATCH', '/api/v1/partner/me', { body: { webhook_url: null } })
    expect(cleared.json.partner.webhook_url).toBeNull()
    expect((await call('GET', API)).json.data).toEqual([])
    expect((await call('GET', `${API}/${primary.id}`)).status).toBe(404)
    await trigger(call, 'card.created')
    await flush(call)
    expect(first.requests).toHaveLength(2)
    expect(second.requests).toHaveLength(1)
  })

  it('refuses to change its url or delete it through /partner/webhooks (409)', async () => {
    const { call } = await setup({}, FROZEN)
    await call('PATCH', '/api/v1/partner/me', {
      body: { webhook_url: 'https://hooks.example.test/primary' },
    })
    const primary = (await call('GET', API)).json.data[0]
    const patch = await call('PATCH', `${API}/${primary.id}`, {
      body: { url: 'https://hooks.example.test/elsewhere' },
    })
    expect(patch.status).toBe(409)
    expect(patch.json.error.code).toBe('conflict')
    expect(patch.json.error.message).toContain('PATCH /partner/me')
    const del = await call('DELETE', `${API}/${primary.id}`)
    expect(del.status).toBe(409)
    expect(del.json.error.message).toContain('webhook_url')
    const after = await call('GET', `${API}/${primary.id}`)
    expect(after.json.webhook.url).toBe('https://hooks.example.test/primary')
    const me = await call('GET', '/api/v1/partner/me')
    expect(me.json.partner.webhook_url).toBe('https://hooks.example.test/primary')
    // Other fields of the primary endpoint stay editable.
    const described = await call('PATCH', `${API}/${primary.id}`, {
      body: { description: 'main' },
    })
    expect(described.status).toBe(200)
    expect(described.json.webhook).toMatchObject({ description: 'main', primary: true })
  })
})

describe('the OpenAPI document', () => {
  const expected: Record<string, Record<string, string[]>> = {
    [API]: {
      get: ['200', '400', '401', '403', '429'],
      post: ['201', '400', '401', '403', '409', '413', '415', '429'],
    },
    [`${API}/events`]: { get: ['200', '401', '403', '429'] },
    [`${API}/{id}`]: {
      get: ['200', '400', '401', '403', '404', '429'],
      patch: ['200', '400', '401', '403', '404', '409', '413', '415', '429'],
      delete: ['200', '400', '401', '403', '404', '409', '429'],
    },
    [`${API}/{id}/rotate-secret`]: { post: ['200', '400', '401', '403', '404', '429'] },
    [`${API}/{id}/test`]: { post: ['202', '400', '401', '403', '404', '409', '429'] },
    [`${API}/{id}/deliveries`]: { get: ['200', '400', '401', '403', '404', '429'] },
    [`${API}/{id}/deliveries/{deliveryId}`]: { get: ['200', '400', '401', '403', '404', '429'] },
    [`${API}/{id}/deliveries/{deliveryId}/redeliver`]: {
      post: ['202', '400', '401', '403', '404', '409', '429'],
    },
  }

  it('documents every webhook route with its error responses, and each one is served', async () => {
    const { call } = await setup({}, FROZEN)
    const doc = (await call('GET', '/openapi.json', { creds: null })).json
    const documented = Object.keys(doc.paths).filter((p) => p.startsWith(API))
    expect(documented.sort()).toEqual(Object.keys(expected).sort())
    for (const [path, methods] of Object.entries(expected)) {
      expect(Object.keys(doc.paths[path]).sort(), path).toEqual(Object.keys(methods).sort())
      for (const [method, statuses] of Object.entries(methods)) {
        const op = doc.paths[path][method]
        // The 5xx of the code table (src/errors.ts) are declared on every operation.
        const serverStatuses = serverErrors.map((e) => String(e.status))
        expect(Object.keys(op.responses).sort(), `${method} ${path}`).toEqual([
          ...statuses,
          ...serverStatuses,
        ])
        expect(op.security).toEqual([{ PartnerKey: [], PartnerSecret: [] }])
        for (const status of statuses.filter((s) => s >= '400')) {
          expect(op.responses[status].content['application/json'].schema).toBeDefined()
        }
        // Served: a real route answers (401 without credentials), not the "No route" 404.
        const concrete = path.replace('{id}', 'wh_missing').replace('{deliveryId}', 'dlv_missing')
        const res = await call(method.toUpperCase(), concrete, { creds: null })
        expect(res.status, `${method} ${concrete}`).toBe(401)
        const authed = await call(method.toUpperCase(), concrete, {
          body: method === 'get' || method === 'delete' ? undefined : {},
        })
        expect(authed.json?.error?.message ?? '', `${method} ${concrete}`).not.toMatch(/^No route/)
      }
    }
    const create = doc.paths[API].post.requestBody.content['application/json'].schema
    expect(create.$ref).toBe('#/components/schemas/CreateWebhook')
    expect(doc.components.schemas.CreateWebhook.required).toEqual(['url', 'events'])
    expect(doc.components.schemas.Webhook.properties).not.toHaveProperty('secret')
  })
})

describe('primary endpoint secret from the control plane', () => {
  it('a partner created with a webhook_url gets the primary endpoint secret once, and it signs deliveries', async () => {
    const { call } = await setup()
    const created = await call('POST', '/_sandbox/partners', {
      creds: null,
      body: { name: 'Hooked', webhook_url: 'http://127.0.0.1:9/hooks' },
    })
    expect(created.status).toBe(201)
    expect(created.json.webhook_secret).toMatch(/^whsec_/)
    const creds = { key: created.json.api_key, secret: created.json.api_secret }
    const list = await call('GET', '/api/v1/partner/webhooks', { creds })
    expect(list.json.data).toHaveLength(1)
    expect(list.json.data[0]).toMatchObject({
      primary: true,
      url: 'http://127.0.0.1:9/hooks',
      events: [],
    })
    expect(list.text).not.toContain(created.json.webhook_secret)
    const plain = await call('POST', '/_sandbox/partners', {
      creds: null,
      body: { name: 'No hooks' },
    })
    expect(plain.json).not.toHaveProperty('webhook_secret')
  })
})
