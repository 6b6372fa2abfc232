import { describe, expect, it, vi } from 'vitest'
import { createPartner, receiverForTest, registerAndLogin, setup } from './helpers.js'
import { responseSchema, schemaValidator } from './openapi-schema.js'

// biome-ignore lint/suspicious/noExplicitAny: tests read response fields freely and assert each one
type Json = any

async function waiter() {
  const t = await setup()
  const p = await createPartner(t.call, { name: 'Waiter' })
  const wait = async (query: Record<string, string>, init: RequestInit = {}) => {
    const path = `/_sandbox/partners/${p.id}/events/wait?${new URLSearchParams(query)}`
    const res = await t.sandbox.app.request(path, init)
    return { status: res.status, json: (await res.json()) as Json }
  }
  const trigger = (type: string, object: Record<string, unknown> = {}) =>
    t.call('POST', '/_sandbox/events', {
      creds: null,
      body: { partner_id: p.id, type, object },
    })
  return { ...t, p, wait, trigger }
}

/** Lets a promise's callbacks run (the request's answer reaches the test). */
const tick = () => new Promise((resolve) => setImmediate(resolve))

/**
 * Until `count` requests wait: the request reached its await (the wait is registered) before
 * the event happens. Its first look at the events is a few queries on PostgreSQL, not one
 * turn of the event loop; a request that answered at once never gets here (the test fails).
 */
const waiting = (sandbox: { services: { webhooks: { waits: { size: number } } } }, count = 1) =>
  vi.waitUntil(() => sandbox.services.webhooks.waits.size === count, {
    timeout: 15_000,
    interval: 5,
  })

describe('GET /_sandbox/partners/{id}/events/wait', () => {
  it('answers at once when a matching event exists already', async () => {
    const { call, p, wait } = await waiter()
    const u = await registerAndLogin(call, {}, p.creds)
    const res = await wait({ type: 'user.created' })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({
      status: 'matched',
      event: { object: 'event', type: 'user.created', data: { object: { id: u.userId } } },
      delivery: null,
    })
  })

  it('holds the request until the event is recorded, then answers it', async () => {
    const { wait, trigger, sandbox } = await waiter()
    const sent = Date.now()
    const pending = wait({ type: 'card.funded', timeout: '10s' })
    await waiting(sandbox)
    expect(sandbox.services.webhooks.waits.size).toBe(1)
    await trigger('card.created')
    await trigger('card.funded', { amount: 25 })
    const res = await pending
    const held = Date.now() - sent
    expect(res.json.status).toBe('matched')
    expect(res.json.event).toMatchObject({ type: 'card.funded', data: { object: { amount: 25 } } })
    // Answered by the event, not the wait's own 10 s timeout: waited_ms is the time the
    // request was held, whole milliseconds within what the test itself waited.
    expect(Number.isInteger(res.json.waited_ms)).toBe(true)
    expect(res.json.waited_ms).toBeLessThanOrEqual(Math.min(held, 10_000))
  })

  it('with after, only a later event answers; a family such as card.* matches its types', async () => {
    const { wait, trigger, sandbox } = await waiter()
    const first = (await trigger('card.created')).json.event
    const pending = wait({ type: 'card.*', after: first.id })
    await waiting(sandbox)
    const second = (await trigger('card.funded')).json.event
    const res = await pending
    expect(res.json.event.id).toBe(second.id)
    expect((await wait({ type: 'card.*' })).json.event.id).toBe(first.id)
  })

  it('answers status timeout, without an event, at its timeout', async () => {
    const { wait, sandbox } = await waiter()
    const before = sandbox.services.webhooks.waits.size
    const res = await wait({ type: 'dispute.created', timeout: '50ms' })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ status: 'timeout', event: null, delivery: null })
    expect(res.json.waited_ms).toBeGreaterThanOrEqual(45)
    expect(sandbox.services.webhooks.waits.size).toBe(before)
    // A generated client validates this answer against the published schema: null must fit.
    const doc = await (await sandbox.app.request('/openapi.json')).json()
    const schema = responseSchema(doc, 'get', '/_sandbox/partners/{id}/events/wait', 200)
    expect(schemaValidator(doc)(schema, res.json)).toEqual([])
  })

  it("does not answer with another partner's event", async () => {
    const { wait, call } = await waiter()
    const other = await createPartner(call, { name: 'Other' })
    const pending = wait({ type: 'webhook.test', timeout: '150ms' })
    await tick()
    await call('POST', '/_sandbox/events', {
      creds: null,
      body: { partner_id: other.id, type: 'webhook.test', object: {} },
    })
    expect((await pending).json.status).toBe('timeout')
  })

  it('drops the waiter as soon as the client goes away', async () => {
    const { wait, sandbox } = await waiter()
    const before = sandbox.services.webhooks.waits.size
    const controller = new AbortController()
    const pending = wait({ type: 'card.created', timeout: '30s' }, { signal: controller.signal })
    await waiting(sandbox, before + 1)
    expect(sandbox.services.webhooks.waits.size).toBe(before + 1)
    controller.abort()
    await pending.catch(() => undefined)
    await tick()
    expect(sandbox.services.webhooks.waits.size).toBe(before)
  })

  it('with delivered=true, waits until the partner endpoint got the event', async () => {
    const receiver = await receiverForTest(500)
    const { call, p, wait, trigger } = await waiter()
    await call('POST', '/api/v1/partner/webhooks', {
      creds: p.creds,
      body: { url: receiver.url, events: [] },
    })
    const event = (await trigger('card.created')).json.event
    const pending = wait({ type: 'card.created', delivered: 'true', timeout: '10s' })
    await receiver.waitFor(1)
    await tick()
    // The first attempt failed (500): the retry, 5 s later on the sandbox clock, succeeds.
    await call('POST', '/_sandbox/clock/advance', { creds: null, body: { by: '5s' } })
    const res = await pending
    expect(res.json).toMatchObject({
      status: 'matched',
      event: { id: event.id },
      delivery: { event_id: event.id, status: 'succeeded', retries: 1 },
    })
  })

  it('refuses a bad query with 400s naming the field, and an unknown partner with 404', async () => {
    const { wait, call, sandbox } = await waiter()
    const fieldOf = (r: { json: Json }) => r.json.error.details[0].field
    expect(fieldOf(await wait({ timeout: '31s' }))).toBe('timeout')
    expect(fieldOf(await wait({ timeout: 'soon' }))).toBe('timeout')
    expect(fieldOf(await wait({ type: 'Card Created' }))).toBe('type')
    const other = await createPartner(call, { name: 'Other' })
    const foreign = await call('POST', '/_sandbox/events', {
      creds: null,
      body: { partner_id: other.id, type: 'webhook.test', object: {} },
    })
    const bad = await wait({ after: foreign.json.event.id })
    expect(bad.status).toBe(400)
    expect(fieldOf(bad)).toBe('after')
    const missing = await sandbox.app.request(
      '/_sandbox/partners/00000000-0000-4000-8000-000000000000/events/wait',
    )
    expect(missing.status).toBe(404)
  })
})
