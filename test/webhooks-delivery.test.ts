import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import Stripe from 'stripe'
import { describe, expect, it, onTestFinished } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import {
  acme,
  type Call,
  type Creds,
  closedPort,
  orgHeaders,
  type ReceivedRequest,
  type Receiver,
  receiverForTest,
  registerAndLogin,
  servedForTest,
  setup,
} from './helpers.js'

const API = '/api/v1/partner/webhooks'
/** Sandbox time of most tests: years away from the machine's time, on purpose. */
const T0 = Date.parse('2031-06-01T00:00:00.000Z')
const at = (ms: number) => new Date(ms).toISOString()
const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

/** Most tests' sandbox: its clock frozen at `T0`. */
const AT_T0 = { frozenAt: T0 }

const scenario = (name: string, webhooks: Record<string, unknown>) => ({
  scenario: { name, description: `webhooks: ${JSON.stringify(webhooks)}`, webhooks },
})

async function createEndpoint(call: Call, url: string, events: string[] = [], creds = acme) {
  const res = await call('POST', API, { creds, body: { url, events } })
  expect(res.status, res.text).toBe(201)
  return { id: res.json.webhook.id as string, secret: res.json.secret as string }
}

async function trigger(call: Call, type = 'card.funded') {
  const res = await call('POST', '/_sandbox/events', {
    creds: null,
    body: { partner_id: DEFAULT_PARTNER.id, type, object: { object: 'card', id: 'card_1' } },
  })
  expect(res.status, res.text).toBe(201)
  return res.json.event as { id: string; type: string }
}

const flush = async (call: Call) => {
  const res = await call('POST', '/_sandbox/webhooks/flush', { creds: null })
  expect(res.status, res.text).toBe(200)
  return res.json.attempted as number
}

interface Attempt {
  number: number
  at: string
  status_code: number | null
  duration_ms: number
  error: string | null
}
interface Delivery {
  id: string
  event_id: string
  event_type: string
  status: string
  attempts: Attempt[]
  retries: number
  next_attempt_at: string | null
  redelivery_of: string | null
  completed_at: string | null
}

async function deliveries(call: Call, webhookId: string, creds: Creds = acme) {
  const res = await call('GET', `${API}/${webhookId}/deliveries`, { creds })
  expect(res.status, res.text).toBe(200)
  return res.json.data as Delivery[]
}

/** The one delivery of an endpoint. */
async function onlyDelivery(call: Call, webhookId: string, creds: Creds = acme) {
  const list = await deliveries(call, webhookId, creds)
  expect(list).toHaveLength(1)
  return list[0] as Delivery
}

/** Polls (real time, bounded) until the endpoint's one delivery has `status`; answers it. */
async function waitForStatus(call: Call, webhookId: string, status: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  let d = await onlyDelivery(call, webhookId)
  while (d.status !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10))
    d = await onlyDelivery(call, webhookId)
  }
  expect(d.status).toBe(status)
  return d
}

async function usage(call: Call) {
  const res = await call('GET', '/api/v1/partner/usage')
  expect(res.status).toBe(200)
  return res.json.last_24h as {
    webhook_deliveries_succeeded: number
    webhook_deliveries_permanently_failed: number
  }
}

// biome-ignore lint/suspicious/noExplicitAny: an event envelope as parsed from the wire
const envelope = (r: ReceivedRequest): any => JSON.parse(r.body.toString('utf8'))
const header = (r: ReceivedRequest, name: string) => String(r.headers[name.toLowerCase()])
const nth = (r: Receiver, i: number) => r.requests[i] as ReceivedRequest

/** Verifies a received request with the two libraries partners use, on the given bytes. */
function verifies(
  secret: string,
  r: ReceivedRequest,
  body: Buffer = r.body,
  signatureHeader = 'x-service-signature',
) {
  const result = { stripe: false, standard: false }
  try {
    const event = new Stripe('sk_test_x').webhooks.constructEvent(
      body,
      header(r, signatureHeader),
      secret,
    )
    result.stripe = typeof event.id === 'string'
  } catch {}
  try {
    new Webhook(secret).verify(body, r.headers as Record<string, string>)
    result.standard = true
  } catch {}
  return result
}

const BOTH = { stripe: true, standard: true }
const NEITHER = { stripe: false, standard: false }

describe('signed deliveries (a)', () => {
  it('are verified by stripe and standardwebhooks on the exact bytes, with the documented envelope', async () => {
    const { call } = await setup({}, AT_T0)
    const r = await receiverForTest()
    const { id, secret } = await createEndpoint(call, r.url)
    const { userId, user } = await registerAndLogin(call)
    await flush(call)

    expect(r.requests).toHaveLength(1)
    const req = nth(r, 0)
    expect(req.method).toBe('POST')
    expect(req.path).toBe('/hooks')
    expect(header(req, 'content-type')).toBe('application/json')
    expect(verifies(secret, req)).toEqual(BOTH)

    const parsed = new Stripe('sk_test_x').webhooks.constructEvent(
      req.body,
      header(req, 'X-Service-Signature'),
      secret,
    )
    const body = envelope(req)
    expect(parsed).toEqual(body)
    expect(Object.keys(body).sort()).toEqual([
      'api_version',
      'created',
      'data',
      'id',
      'livemode',
      'object',
      'type',
    ])
    expect(body).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      object: 'event',
      type: 'user.created',
      created: T0 / 1000,
      livemode: false,
      api_version: 'v1',
      data: { object: { id: userId, email: user.email, partner_id: DEFAULT_PARTNER.id } },
    })
    expect(body.data.object).not.toHaveProperty('ssn')
    expect(body.data.object).not.toHaveProperty('password_hash')

    // webhook-id is the event id; both timestamps are the machine's time, not the sandbox's.
    expect(header(req, 'webhook-id')).toBe(body.id)
    const t = Number(/^t=(\d+),v1=[0-9a-f]{64}$/.exec(header(req, 'x-service-signature'))?.[1])
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(60)
    expect(header(req, 'webhook-timestamp')).toBe(String(t))
    expect(header(req, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)

    const log = await onlyDelivery(call, id)
    expect(log).toMatchObject({
      event_id: body.id,
      event_type: 'user.created',
      status: 'succeeded',
    })
    const events = await call('GET', `/_sandbox/events?partner_id=${DEFAULT_PARTNER.id}`, {
      creds: null,
    })
    expect(events.json.data[0]).toEqual(body)
  })

  it('fail both libraries when a byte of the body changes, or with another secret', async () => {
    const { call } = await setup({}, AT_T0)
    const r = await receiverForTest()
    const { secret } = await createEndpoint(call, r.url)
    const other = await createEndpoint(call, 'https://hooks.example.test/other')
    await trigger(call, 'card.funded')
    await flush(call)
    const req = nth(r, 0)
    expect(verifies(secret, req)).toEqual(BOTH)

    const text = req.body.toString('utf8')
    const flipped = Buffer.from(text.replace('"livemode":false', '"livemode":true '))
    expect(flipped.equals(req.body)).toBe(false)
    expect(verifies(secret, req, flipped)).toEqual(NEITHER)
    expect(verifies(secret, req, Buffer.concat([req.body, Buffer.from('\n')]))).toEqual(NEITHER)
    const oneByte = Buffer.from(req.body)
    oneByte[oneByte.length - 2] = (oneByte[oneByte.length - 2] as number) ^ 1
    expect(verifies(secret, req, oneByte)).toEqual(NEITHER)
    expect(verifies(other.secret, req)).toEqual(NEITHER)
  })

  it('keep webhook-id (the event id) and the body across retries; each attempt is signed afresh', async () => {
    const { sandbox, call } = await setup({}, AT_T0)
    const r = await receiverForTest(500, 502, 200)
    const { secret } = await createEndpoint(call, r.url)
    const event = await trigger(call)
    await sandbox.clock.advance(10 * MINUTE)
    expect(r.requests).toHaveLength(3)
    for (const [i, req] of r.requests.entries()) {
      expect(header(req, 'webhook-id')).toBe(event.id)
      expect(header(req, 'x-sandbox-attempt')).toBe(String(i + 1))
      expect(req.body.equals(nth(r, 0).body)).toBe(true)
      expect(verifies(secret, req)).toEqual(BOTH)
    }
    expect(new Set(r.requests.map((q) => header(q, 'x-sandbox-delivery-id'))).size).toBe(1)
  })
})

describe('the retry schedule (b)', () => {
  it('retries a failing receiver at +5 s, +30 s and +120 s: failed, failed, failed, then succeeded', async () => {
    const { sandbox, call } = await setup({}, AT_T0)
    const r = await receiverForTest(500, 500, 500, 200)
    const { id } = await createEndpoint(call, r.url)
    await trigger(call)
    await flush(call)

    const statuses: string[] = []
    const step = async (ms: number, expected: number) => {
      await sandbox.clock.advance(ms)
      expect(r.requests, `after +${ms} ms`).toHaveLength(expected)
      return onlyDelivery(call, id)
    }
    let d = await onlyDelivery(call, id)
    statuses.push(d.status)
    expect(d.next_attempt_at).toBe(at(T0 + 5 * SECOND))
    // Not a millisecond early.
    d = await step(5 * SECOND - 1, 1)
    expect(d.attempts).toHaveLength(1)
    d = await step(1, 2)
    statuses.push(d.status)
    expect(d.next_attempt_at).toBe(at(T0 + 35 * SECOND))
    d = await step(30 * SECOND - 1, 2)
    d = await step(1, 3)
    statuses.push(d.status)
    expect(d.next_attempt_at).toBe(at(T0 + 155 * SECOND))
    d = await step(2 * MINUTE, 4)
    statuses.push(d.status)

    expect(statuses).toEqual(['failed', 'failed', 'failed', 'succeeded'])
    expect(d.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 200])
    expect(d.attempts.map((a) => a.number)).toEqual([1, 2, 3, 4])
    expect(d.retries).toBe(3)
    expect(d.next_attempt_at).toBeNull()
    expect(d.completed_at).toBe(at(T0 + 155 * SECOND))
  })

  it('walks the whole schedule in one 10-minute advance, recording the scheduled times', async () => {
    const { sandbox, call } = await setup({}, AT_T0)
    const r = await receiverForTest(500, 500, 500, 200)
    const { id } = await createEndpoint(call, r.url)
    await trigger(call)
    await sandbox.clock.advance(10 * MINUTE)
    expect(r.requests).toHaveLength(4)
    const d = await onlyDelivery(call, id)
    expect(d.status).toBe('succeeded')
    expect(d.attempts.map((a) => a.at)).toEqual([
      at(T0),
      at(T0 + 5 * SECOND),
      at(T0 + 35 * SECOND),
      at(T0 + 155 * SECOND),
    ])
    expect(d.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 200])
    // Each attempt was sent and answered: whole milliseconds, within the 5 s attempt timeout.
    for (const a of d.attempts) {
      expect(Number.isInteger(a.duration_ms), String(a.duration_ms)).toBe(true)
      expect(a.duration_ms).toBeLessThan(5_000)
    }
    expect(await usage(call)).toEqual({
      webhook_deliveries_succeeded: 1,
      webhook_deliveries_permanently_failed: 0,
    })
  })

  it('with the clock frozen, nothing is retried until the clock moves or a flush', async () => {
    const { call } = await setup({}, AT_T0)
    const r = await receiverForTest(500, 200)
    const { id } = await createEndpoint(call, r.url)
    await trigger(call)
    await flush(call)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await flush(call)).toBe(0)
    expect(r.requests).toHaveLength(1)
    const advance = await call('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { by: '10m' },
    })
    expect(advance.status).toBe(200)
    // The advance answered only after the due retry ran.
    expect(r.requests).toHaveLength(2)
    expect((await onlyDelivery(call, id)).status).toBe('succeeded')
  })
})

describe('unfreezing the clock', () => {
  it('lets retries that waited for the frozen clock run on real time again', async () => {
    const { sandbox, call } = await setup(
      scenario('fast-retries-thaw', { retry_scale: 0.01 }),
      AT_T0,
    )
    const r = await receiverForTest(500, 500, 200)
    const { id } = await createEndpoint(call, r.url)
    await trigger(call)
    await flush(call)
    expect(r.requests).toHaveLength(1)
    const unfrozen = await call('POST', '/_sandbox/clock/unfreeze', { creds: null })
    expect(unfrozen.json.frozen).toBe(false)
    // No advance and no flush: the due retries go out on the running clock.
    await r.waitFor(3)
    const d = await waitForStatus(call, id, 'succeeded')
    expect(d.attempts.map((a) => a.status_code)).toEqual([500, 500, 200])
    expect(sandbox.clock.state().frozen).toBe(false)
  })
})

describe('receivers that never succeed (c)', () => {
  it('a 500 receiver: permanently_failed after exactly 4 attempts, counted in usage for 24 h', async () => {
    const { sandbox, call } = await setup({}, AT_T0)
    const failing = await receiverForTest()
    failing.otherwise = 500
    const healthy = await receiverForTest()
    const bad = await createEndpoint(call, failing.url)
    await createEndpoint(call, healthy.url)
    await trigger(call)
    await sandbox.clock.advance(10 * MINUTE)

    expect(failing.requests).toHaveLength(4)
    expect(healthy.requests).toHaveLength(1)
    const d = await onlyDelivery(call, bad.id)
    expect(d.status).toBe('permanently_failed')
    expect(d.attempts).toHaveLength(4)
    expect(d.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 500])
    expect(d.next_attempt_at).toBeNull()
    expect(d.completed_at).toBe(at(T0 + 155 * SECOND))

    await sandbox.clock.advance(HOUR)
    expect(await flush(call)).toBe(0)
    expect(failing.requests).toHaveLength(4)
    expect((await onlyDelivery(call, bad.id)).attempts).toHaveLength(4)

    expect(await usage(call)).toEqual({
      webhook_deliveries_succeeded: 1,
      webhook_deliveries_permanently_failed: 1,
    })
    await sandbox.clock.advance(22 * HOUR)
    expect((await usage(call)).webhook_deliveries_permanently_failed).toBe(1)
    await sandbox.clock.advance(2 * HOUR)
    expect(await usage(call)).toEqual({
      webhook_deliveries_succeeded: 0,
      webhook_deliveries_permanently_failed: 0,
    })
  })

  it('a refused connection: 4 attempts with the error, then permanently_failed', async () => {
    const { sandbox, call } = await setup({}, AT_T0)
    const port = await closedPort()
    const { id } = await createEndpoint(call, `http://127.0.0.1:${port}/hooks`)
    await trigger(call)
    await sandbox.clock.advance(10 * MINUTE)
    const d = await onlyDelivery(call, id)
    expect(d.status).toBe('permanently_failed')
    expect(d.attempts).toHaveLength(4)
    for (const a of d.attempts) {
      expect(a.status_code).toBeNull()
      expect(a.error).toMatch(/ECONNREFUSED/)
    }
    await sandbox.clock.advance(HOUR)
    expect((await onlyDelivery(call, id)).attempts).toHaveLength(4)
    expect((await usage(call)).webhook_deliveries_permanently_failed).toBe(1)
  })

  it('a receiver slower than timeout_ms: each attempt times out, then permanently_failed', async () => {
    const { sandbox, call } = await setup(scenario('quick-timeout', { timeout_ms: 200 }), AT_T0)
    const slow = await receiverForTest()
    slow.otherwise = 'hang'
    const { id } = await createEndpoint(call, slow.url)
    await trigger(call)
    // The receiver never answers: the advance returns only because each attempt was cut.
    await sandbox.clock.advance(10 * MINUTE)
    expect(slow.requests).toHaveLength(4)
    const d = await onlyDelivery(call, id)
    expect(d.status).toBe('permanently_failed')
    expect(d.attempts).toHaveLength(4)
    for (const a of d.attempts) {
      expect(a.status_code).toBeNull()
      expect(a.error).toBe('timed out after 200 ms')
      expect(a.duration_ms).toBeGreaterThanOrEqual(190)
    }
    await sandbox.clock.advance(HOUR)
    expect(slow.requests).toHaveLength(4)
    expect(await usage(call)).toEqual({
      webhook_deliveries_succeeded: 0,
      webhook_deliveries_permanently_failed: 1,
    })
  })
})

describe('only 2xx is success (d)', () => {
  it.each([200, 201, 202, 204, 299])('%i is a success', async (status) => {
    const { call } = await setup({}, AT_T0)
    const r = await receiverForTest()
    r.otherwise = status
    const { id } = await createEndpoint(call, r.url)
    await trigger(call)
    await flush(call)
    const d = await onlyDelivery(call, id)
    expect(d.status).toBe('succeeded')
    expect(d.attempts.map((a) => a.status_code)).toEqual([status])
  })

  it.each([301, 302, 400, 404, 410, 429, 500, 503])('%i is a failure', async (status) => {
    const { sandbox, call } = await setup({}, AT_T0)
    const r = await receiverForTest()
    r.otherwise = status
    const { id } = await createEndpoint(call, r.url)
    await trigger(call)
    await flush(call)
    const first = await onlyDelivery(call, id)
    expect(first.status).toBe('failed')
    expect(first.attempts).toEqual([
      expect.objectContaining({ number: 1, status_code: status, error: null }),
    ])
    await sandbox.clock.advance(10 * MINUTE)
    const d = await onlyDelivery(call, id)
    expect(d.status).toBe('permanently_failed')
    expect(d.attempts.map((a) => a.status_code)).toEqual([status, status, status, status])
    // A redirect is not followed: only the endpoint itself was called.
    expect(r.requests).toHaveLength(4)
  })
})

describe('redelivery (e)', () => {
  it('sends the same event again as a new delivery, with the same webhook-id', async () => {
    const { sandbox, call } = await setup({}, AT_T0)
    const r = await receiverForTest()
    r.otherwise = 500
    const { id, secret } = await createEndpoint(call, r.url)
    await trigger(call)
    await sandbox.clock.advance(10 * MINUTE)
    const original = await onlyDelivery(call, id)
    expect(original.status).toBe('permanently_failed')

    r.otherwise = 200
    const res = await call('POST', `${API}/${id}/deliveries/${original.id}/redeliver`)
    expect(res.status).toBe(202)
    expect(res.json.delivery).toMatchObject({
      id: expect.stringMatching(/^dlv_/),
      event_id: original.event_id,
      redelivery_of: original.id,
      status: 'pending',
      attempts: [],
    })
    expect(res.json.delivery.id).not.toBe(original.id)
    await flush(call)

    expect(r.requests).toHaveLength(5)
    const again = nth(r, 4)
    expect(header(again, 'webhook-id')).toBe(original.event_id)
    expect(header(again, 'webhook-id')).toBe(header(nth(r, 0), 'webhook-id'))
    expect(again.body.equals(nth(r, 0).body)).toBe(true)
    expect(verifies(secret, again)).toEqual(BOTH)

    const log = await deliveries(call, id)
    expect(log.map((d) => d.id)).toEqual([res.json.delivery.id, original.id])
    expect(log[0]).toMatchObject({ status: 'succeeded', redelivery_of: original.id })
    expect(log[1]).toMatchObject({ status: 'permanently_failed', redelivery_of: null })
    const one = await call('GET', `${API}/${id}/deliveries/${res.json.delivery.id}`)
    expect(one.json.delivery).toMatchObject({ status: 'succeeded', redelivery_of: original.id })
    expect(await usage(call)).toEqual({
      webhook_deliveries_succeeded: 1,
      webhook_deliveries_permanently_failed: 1,
    })

    const missing = await call('POST', `${API}/${id}/deliveries/dlv_doesnotexist/redeliver`)
    expect(missing.status).toBe(404)
    expect((await call('POST', `${API}/${id}/deliveries/nope/redeliver`)).status).toBe(400)
  })
})

describe('redelivery with the clock frozen', () => {
  it('goes out at once, without a flush or an advance', async () => {
    const { call } = await setup({}, AT_T0)
    const r = await receiverForTest()
    const { id } = await createEndpoint(call, r.url)
    await trigger(call)
    await r.waitFor(1)
    await expect.poll(async () => (await onlyDelivery(call, id)).status).toBe('succeeded')
    const original = await onlyDelivery(call, id)

    const res = await call('POST', `${API}/${id}/deliveries/${original.id}/redeliver`)
    expect(res.status, res.text).toBe(202)
    // Nothing polls while the sandbox clock is frozen: the redelivery told the dispatcher.
    await r.waitFor(2)
    expect(header(nth(r, 1), 'webhook-id')).toBe(original.event_id)
  })
})

describe('a slow endpoint (f)', () => {
  it('blocks neither deliveries to other endpoints nor API requests', async () => {
    const { call } = await setup({}, AT_T0)
    const slow = await receiverForTest()
    slow.otherwise = 'hang'
    const fast = await receiverForTest()
    const slowEndpoint = await createEndpoint(call, slow.url)
    await createEndpoint(call, fast.url)
    // More events than the sandbox sends at once in total, all stuck at the slow endpoint.
    const events = 300
    for (let i = 0; i < events; i++) await trigger(call)

    await fast.waitFor(events)
    expect(slow.requests.length).toBeGreaterThan(0)
    // Answered while every delivery to the slow endpoint still hangs (it never answers).
    const me = await call('GET', '/api/v1/partner/me')
    expect(me.status).toBe(200)

    // The receiver has answered; the sandbox records each outcome a moment later.
    const deadline = Date.now() + 15_000
    while ((await usage(call)).webhook_deliveries_succeeded < events && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(await usage(call)).toEqual({
      webhook_deliveries_succeeded: events,
      webhook_deliveries_permanently_failed: 0,
    })
    const slowLog = await call('GET', `${API}/${slowEndpoint.id}/deliveries?limit=100`)
    expect(slowLog.json.has_more).toBe(true)
    for (const d of slowLog.json.data) expect(d).toMatchObject({ status: 'pending', attempts: [] })
  })
})

describe('event filters (g)', () => {
  it('an endpoint subscribed to user.created gets registrations, not key rotations', async () => {
    const { call } = await setup({}, AT_T0)
    const filtered = await receiverForTest()
    const everything = await receiverForTest()
    const only = await createEndpoint(call, filtered.url, ['user.created'])
    await createEndpoint(call, everything.url, [])

    const { userId } = await registerAndLogin(call)
    const rotated = await call('POST', '/api/v1/partner/me/rotate-api-key')
    expect(rotated.status).toBe(200)
    const creds = { key: rotated.json.api_key, secret: rotated.json.api_secret }
    await flush(call)

    expect(filtered.requests.map((q) => envelope(q).type)).toEqual(['user.created'])
    expect(envelope(nth(filtered, 0)).data.object.id).toBe(userId)
    expect(everything.requests.map((q) => envelope(q).type)).toEqual([
      'user.created',
      'api_key.rotated',
    ])
    expect(envelope(nth(everything, 1)).data.object.api_key).toBe(creds.key)
    const log = await deliveries(call, only.id, creds)
    expect(log.map((d) => d.event_type)).toEqual(['user.created'])
  })
})

describe('scenario settings (h)', () => {
  it('retry_scale shrinks the schedule (0.01: +50 ms, +300 ms, +1.2 s)', async () => {
    const { sandbox, call } = await setup(scenario('fast-retries', { retry_scale: 0.01 }), AT_T0)
    const r = await receiverForTest()
    r.otherwise = 500
    const { id } = await createEndpoint(call, r.url)
    await trigger(call)
    await flush(call)
    expect(r.requests).toHaveLength(1)
    await sandbox.clock.advance(49)
    expect(r.requests).toHaveLength(1)
    await sandbox.clock.advance(1)
    expect(r.requests).toHaveLength(2)
    await sandbox.clock.advance(300)
    expect(r.requests).toHaveLength(3)
    await sandbox.clock.advance(1199)
    expect(r.requests).toHaveLength(3)
    await sandbox.clock.advance(1)
    expect(r.requests).toHaveLength(4)
    const d = await onlyDelivery(call, id)
    expect(d.status).toBe('permanently_failed')
    expect(d.attempts.map((a) => a.at)).toEqual([at(T0), at(T0 + 50), at(T0 + 350), at(T0 + 1550)])
  })

  it('retry_scale with the clock running: the schedule completes by itself in real time', async () => {
    const { call } = await setup(scenario('fast-retries-live', { retry_scale: 0.01 }))
    const r = await receiverForTest(500, 500, 500, 200)
    const { id } = await createEndpoint(call, r.url)
    await trigger(call)
    // Nothing advances the clock: the receiver gets all four attempts by real time passing.
    await r.waitFor(4)
    const d = await waitForStatus(call, id, 'succeeded')
    expect(d.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 200])
    // The schedule is anchored to due times (recorded on each attempt), not to when a busy
    // machine happened to send the previous one; arrival gaps at the receiver can shrink.
    const due = d.attempts.map((a) => Date.parse(a.at))
    expect(due.slice(1).map((t, i) => t - (due[i] as number))).toEqual([50, 300, 1200])
    // And the retries waited in real time instead of going out at once: the last one is due
    // 1.55 s after the first, which itself may have gone out late on a loaded machine.
    expect((r.requests[3]?.at ?? 0) - (r.requests[0]?.at ?? 0)).toBeGreaterThanOrEqual(1000)
  })

  it('retry_delays_ms sets each delay, the first one included', async () => {
    const { sandbox, call } = await setup(
      scenario('custom-delays', { retry_delays_ms: [1000, 2000, 3000, 4000] }),
      AT_T0,
    )
    const r = await receiverForTest()
    r.otherwise = 503
    const { id } = await createEndpoint(call, r.url)
    await trigger(call)
    await flush(call)
    expect(r.requests).toHaveLength(0)
    const pending = await onlyDelivery(call, id)
    expect(pending).toMatchObject({ status: 'pending', next_attempt_at: at(T0 + 1000) })
    await sandbox.clock.advance(1000)
    expect(r.requests).toHaveLength(1)
    await sandbox.clock.advance(10 * MINUTE)
    const d = await onlyDelivery(call, id)
    expect(d.status).toBe('permanently_failed')
    expect(d.attempts.map((a) => a.at)).toEqual([
      at(T0 + 1000),
      at(T0 + 3000),
      at(T0 + 6000),
      at(T0 + 10_000),
    ])
  })

  it('signature_header renames the t=…,v1=… header; both schemes still verify', async () => {
    const { call } = await setup(
      scenario('acme-header', { signature_header: 'X-Acme-Signature' }),
      AT_T0,
    )
    const r = await receiverForTest()
    const { secret } = await createEndpoint(call, r.url)
    await trigger(call)
    await flush(call)
    const req = nth(r, 0)
    expect(req.headers).not.toHaveProperty('x-service-signature')
    expect(header(req, 'x-acme-signature')).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    expect(verifies(secret, req, req.body, 'x-acme-signature')).toEqual(BOTH)
  })
})

describe('restart with a data file (i)', () => {
  /** A data file in a fresh folder, removed after the test's sandboxes are closed. */
  const dataFile = () => {
    const dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-webhooks-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    return join(dir, 'sandbox.json')
  }

  const frozenAtT0 = {
    name: 'frozen-t0',
    description: 'The clock starts frozen at T0.',
    clock: { start: at(T0), frozen: true },
  }

  it('resumes a delivery mid-schedule and keeps its earlier attempts; a succeeded one is never resent', async () => {
    const data = dataFile()
    const r = await receiverForTest(500, 500, 500, 200)

    const first = await setup({ data, scenario: frozenAtT0 })
    expect(first.sandbox.clock.now()).toBe(T0)
    const { id, secret } = await createEndpoint(first.call, r.url)
    const event = await trigger(first.call)
    await flush(first.call)
    expect(r.requests).toHaveLength(1)
    expect((await onlyDelivery(first.call, id)).status).toBe('failed')
    await first.sandbox.close()

    const second = await setup({ data, scenario: frozenAtT0 })
    expect(second.sandbox.clock.now()).toBe(T0)
    await second.sandbox.clock.advance(10 * MINUTE)
    expect(r.requests.map((q) => header(q, 'x-sandbox-attempt'))).toEqual(['1', '2', '3', '4'])
    for (const req of r.requests) {
      expect(header(req, 'webhook-id')).toBe(event.id)
      expect(verifies(secret, req)).toEqual(BOTH)
    }
    const d = await onlyDelivery(second.call, id)
    expect(d.status).toBe('succeeded')
    expect(d.attempts.map((a) => [a.at, a.status_code])).toEqual([
      [at(T0), 500],
      [at(T0 + 5 * SECOND), 500],
      [at(T0 + 35 * SECOND), 500],
      [at(T0 + 155 * SECOND), 200],
    ])
    await second.sandbox.close()

    const third = await setup({ data, scenario: frozenAtT0 })
    expect((await usage(third.call)).webhook_deliveries_succeeded).toBe(1)
    await third.sandbox.clock.advance(24 * HOUR)
    expect(await flush(third.call)).toBe(0)
    expect(r.requests).toHaveLength(4)
    expect((await onlyDelivery(third.call, id)).attempts).toHaveLength(4)
  })

  it('with the clock running, a pending retry goes out by itself after the restart', async () => {
    const data = dataFile()
    const options = { data, ...scenario('slow-retry', { retry_delays_ms: [0, 1000, 1000, 1000] }) }
    const r = await receiverForTest(500)

    const first = await setup(options)
    const { id } = await createEndpoint(first.call, r.url)
    await trigger(first.call)
    await flush(first.call)
    await first.sandbox.close()
    expect(r.requests).toHaveLength(1)

    // No request, no advance, no flush: the reopened sandbox's own timer sends the retry.
    const second = await setup(options)
    await r.waitFor(2)
    expect(header(nth(r, 1), 'x-sandbox-attempt')).toBe('2')
    const d = await waitForStatus(second.call, id, 'succeeded')
    expect(d.attempts.map((a) => a.status_code)).toEqual([500, 200])
  })

  it('with the clock running, a retry that fell due while the sandbox was down goes out at once', async () => {
    const data = dataFile()
    const r = await receiverForTest(500)
    // The first attempt was an hour ago (sandbox time), so the retry is long overdue.
    const first = await setup({ data }, { frozenAt: Date.now() - HOUR })
    const { id } = await createEndpoint(first.call, r.url)
    await trigger(first.call)
    await flush(first.call)
    await first.sandbox.close()
    expect(r.requests).toHaveLength(1)

    const second = await setup({ data })
    await r.waitFor(2)
    expect(header(nth(r, 1), 'x-sandbox-attempt')).toBe('2')
    const d = await waitForStatus(second.call, id, 'succeeded')
    expect(d.attempts.map((a) => a.status_code)).toEqual([500, 200])
  })
})

describe('the built-in sink over a real socket (j)', () => {
  it('records failed, failed, succeeded, each with both signatures checked', async () => {
    const sandbox = await servedForTest()
    sandbox.clock.freeze(T0)
    const request = async (method: string, path: string, body?: unknown, creds?: Creds) => {
      const res = await fetch(`${sandbox.url}${path}`, {
        method,
        headers: {
          ...(creds ? orgHeaders(creds) : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      // biome-ignore lint/suspicious/noExplicitAny: response fields are asserted one by one
      return { status: res.status, json: (await res.json()) as any }
    }

    const sinkUrl = `${sandbox.url}/_sandbox/sink/ci`
    const created = await request('POST', API, { url: sinkUrl, events: [] }, acme)
    expect(created.status).toBe(201)
    const { webhook, secret } = created.json
    const config = await request('PUT', '/_sandbox/sink/ci/config', { secret, fail_next: 2 })
    expect(config.status).toBe(200)
    expect(config.json).toMatchObject({ secret: 'set', fail_next: 2, fail_status: 500 })

    const event = await request('POST', '/_sandbox/events', {
      partner_id: DEFAULT_PARTNER.id,
      type: 'card.funded',
      object: { object: 'card', id: 'card_1' },
    })
    expect(event.status).toBe(201)
    expect((await request('POST', '/_sandbox/webhooks/flush')).status).toBe(200)
    const afterFirst = await request('GET', `${API}/${webhook.id}/deliveries`, undefined, acme)
    expect(afterFirst.json.data[0].status).toBe('failed')
    const advanced = await request('POST', '/_sandbox/clock/advance', { by: '10m' })
    expect(advanced.status).toBe(200)

    const log = await request('GET', `${API}/${webhook.id}/deliveries`, undefined, acme)
    expect(log.json.data).toHaveLength(1)
    expect(log.json.data[0].status).toBe('succeeded')
    expect(log.json.data[0].attempts.map((a: Attempt) => a.status_code)).toEqual([500, 500, 200])

    const sink = await request('GET', '/_sandbox/sink/ci')
    expect(sink.status).toBe(200)
    expect(sink.json.config).toMatchObject({ secret: 'set', fail_next: 0 })
    expect(JSON.stringify(sink.json)).not.toContain(secret)
    const received = sink.json.data
    expect(received.map((q: { responded_status: number }) => q.responded_status)).toEqual([
      200, 500, 500,
    ])
    for (const q of received) {
      expect(q.method).toBe('POST')
      expect(q.signature).toEqual({ service: true, standard: true })
      expect(q.headers['webhook-id']).toBe(event.json.event.id)
      expect(JSON.parse(q.body)).toEqual(event.json.event)
    }
    expect(
      received.map((q: { headers: Record<string, string> }) => q.headers['x-sandbox-attempt']),
    ).toEqual(['3', '2', '1'])

    // With another secret configured, the sink reports the signatures as not matching.
    await request('PUT', '/_sandbox/sink/ci/config', {
      secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
    })
    expect((await request('POST', `${API}/${webhook.id}/test`, undefined, acme)).status).toBe(202)
    await request('POST', '/_sandbox/webhooks/flush')
    const latest = (await request('GET', '/_sandbox/sink/ci')).json.data[0]
    expect(JSON.parse(latest.body).type).toBe('webhook.test')
    expect(latest.signature).toEqual({ service: false, standard: false })

    expect((await request('DELETE', '/_sandbox/sink/ci')).status).toBe(200)
    const cleared = await request('GET', '/_sandbox/sink/ci')
    expect(cleared.json.data).toEqual([])
    expect(cleared.json.config.secret).toBeNull()
  })
})
