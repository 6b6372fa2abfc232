import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import Stripe from 'stripe'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { acme, type Call, setup, storedRow, storedRows } from './helpers.js'

/**
 * The webhook lab: armed on an endpoint, it sends a duplicate, an out-of-order event, a forged
 * and a replayed copy, and reports whether the receiver (here real ones on 127.0.0.1) did right.
 */

type Handler = (body: string, headers: IncomingHttpHeaders) => number
interface Seen {
  headers: IncomingHttpHeaders
  body: string
  status: number
}

const servers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of servers.splice(0)) await close()
})

async function receiver(handle: Handler) {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const status = handle(body, req.headers)
      seen.push({ headers: req.headers, body, status })
      res.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, seen }
}

/** A receiver that verifies with Stripe's library and acts once per event id. */
function stripeReceiver(secret: () => string, acted: Map<string, number>): Handler {
  const stripe = new Stripe('sk_test_lab')
  return (body, headers) => {
    try {
      const event = stripe.webhooks.constructEvent(
        body,
        headers['x-service-signature'] as string,
        secret(),
      )
      if (!acted.has(event.id)) acted.set(event.id, 1)
      return 200
    } catch {
      return 400
    }
  }
}

async function endpointFor(call: Call, url: string) {
  const res = await call('POST', '/api/v1/partner/webhooks', {
    creds: acme,
    body: { url, events: ['user.updated'] },
  })
  expect(res.status, res.text).toBe(201)
  return { id: res.json.webhook.id as string, secret: res.json.secret as string }
}

const emit = (call: Call, n: number) =>
  call('POST', '/_sandbox/events', {
    creds: null,
    body: { partner_id: DEFAULT_PARTNER.id, type: 'user.updated', object: { id: `user-${n}` } },
  })

const ALL = ['duplicate', 'out_of_order', 'forged_signature', 'replay']

describe('the webhook lab over the control plane', () => {
  it('passes a receiver that verifies with stripe.webhooks.constructEvent', async () => {
    const { call } = await setup()
    let secret = ''
    const acted = new Map<string, number>()
    const app = await receiver(stripeReceiver(() => secret, acted))
    const hook = await endpointFor(call, app.url)
    secret = hook.secret
    const armed = await call('POST', `/_sandbox/webhooks/${hook.id}/lab`, {
      creds: null,
      body: { checks: ALL },
    })
    expect(armed.status, armed.text).toBe(200)
    expect(armed.json.checks.map((c: { verdict: string }) => c.verdict)).toEqual(
      ALL.map(() => 'pending'),
    )
    const first = (await emit(call, 1)).json.event.id as string
    const second = (await emit(call, 2)).json.event.id as string
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })

    const report = await call('GET', `/_sandbox/webhooks/${hook.id}/lab`, { creds: null })
    expect(report.status, report.text).toBe(200)
    for (const c of report.json.checks)
      expect(c, JSON.stringify(c)).toMatchObject({ verdict: 'pass' })
    const byCheck = Object.fromEntries(
      report.json.checks.map((c: { check: string }) => [c.check, c]),
    )
    expect(byCheck.forged_signature.receiver_status).toBe(400)
    expect(byCheck.replay.receiver_status).toBe(400)
    expect(byCheck.duplicate).toMatchObject({ receiver_status: 200, event_id: first })

    // What the receiver saw: the second event before the held first, then the copies of the
    // first, each marked with X-Sandbox-Lab; ordinary deliveries never carry it.
    const order = app.seen.map((s) => [JSON.parse(s.body).id, s.headers['x-sandbox-lab'] ?? null])
    expect(order[0]).toEqual([second, null])
    expect(order[1]).toEqual([first, 'out_of_order'])
    expect(new Set(order.slice(2).map((o) => o[1]))).toEqual(
      new Set(['duplicate', 'forged_signature', 'replay']),
    )
    expect(order).toHaveLength(5)
    // The duplicate was acknowledged and the app acted once per event.
    expect([...acted.values()]).toEqual([1, 1])

    // The delivery log marks lab deliveries; a refused copy is not retried.
    const log = await call('GET', `/api/v1/partner/webhooks/${hook.id}/deliveries`, {
      creds: acme,
    })
    const forged = log.json.data.find((d: { lab: string }) => d.lab === 'forged_signature')
    expect(forged).toMatchObject({ status: 'permanently_failed', retries: 0, event_id: first })
    expect(forged.attempts).toHaveLength(1)
    expect(log.json.data.filter((d: { lab: string | null }) => d.lab === null)).toHaveLength(1)
    expect((await storedRow(call, 'webhook_labs', hook.id))?.checks).toHaveLength(4)
  })

  it('flags a receiver that accepts anything: forged and replayed copies fail', async () => {
    const { call } = await setup()
    const app = await receiver(() => 200)
    const hook = await endpointFor(call, app.url)
    await call('POST', `/_sandbox/webhooks/${hook.id}/lab`, {
      creds: null,
      body: { checks: ['forged_signature', 'replay', 'duplicate'] },
    })
    await emit(call, 1)
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
    const report = await call('GET', `/_sandbox/webhooks/${hook.id}/lab`, { creds: null })
    const verdicts = Object.fromEntries(
      report.json.checks.map((c: { check: string; verdict: string }) => [c.check, c.verdict]),
    )
    expect(verdicts).toEqual({ forged_signature: 'fail', replay: 'fail', duplicate: 'pass' })
    const forged = report.json.checks.find((c: { check: string }) => c.check === 'forged_signature')
    expect(forged.why).toMatch(/answered 200: both signatures .* were forged/)
  })

  it('pending until attempted; out_of_order waits for a successor', async () => {
    const { call } = await setup()
    const app = await receiver(() => 500)
    const hook = await endpointFor(call, app.url)
    await call('POST', `/_sandbox/webhooks/${hook.id}/lab`, {
      creds: null,
      body: { checks: ['out_of_order'] },
    })
    const held = (await emit(call, 1)).json.event.id
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
    const waiting = await call('GET', `/_sandbox/webhooks/${hook.id}/lab`, { creds: null })
    expect(waiting.json.checks[0]).toMatchObject({ verdict: 'pending', event_id: held })
    expect(waiting.json.checks[0].why).toContain(`holding ${held}`)
    expect(app.seen).toHaveLength(0)
    await emit(call, 2)
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
    const done = await call('GET', `/_sandbox/webhooks/${hook.id}/lab`, { creds: null })
    // Answered 500: a late event must still be acknowledged.
    expect(done.json.checks[0]).toMatchObject({ verdict: 'fail', receiver_status: 500 })
  })

  it('bad arming is a 400 naming the field; unknown endpoints are 404; reset clears the lab', async () => {
    const { call } = await setup()
    const app = await receiver(() => 200)
    const hook = await endpointFor(call, app.url)
    const bad = await call('POST', `/_sandbox/webhooks/${hook.id}/lab`, {
      creds: null,
      body: { checks: ['forged'] },
    })
    expect(bad.status).toBe(400)
    expect(bad.json.error.details[0].field).toBe('checks.0')
    const twice = await call('POST', `/_sandbox/webhooks/${hook.id}/lab`, {
      creds: null,
      body: { checks: ['replay', 'replay'] },
    })
    expect(twice.status).toBe(400)
    expect(await storedRow(call, 'webhook_labs', hook.id)).toBeUndefined()
    const none = await call('GET', `/_sandbox/webhooks/${hook.id}/lab`, { creds: null })
    expect(none.status).toBe(404)
    expect(none.json.error.message).toContain('never armed')
    const unknown = await call('POST', '/_sandbox/webhooks/wh_nope/lab', {
      creds: null,
      body: { checks: ['replay'] },
    })
    expect(unknown.status).toBe(404)

    await call('POST', `/_sandbox/webhooks/${hook.id}/lab`, {
      creds: null,
      body: { checks: ['replay'] },
    })
    const snapshot = await call('GET', `/_sandbox/partners/${DEFAULT_PARTNER.id}/snapshot`, {
      creds: null,
    })
    expect(Object.keys(snapshot.json.collections.webhook_labs)).toEqual([hook.id])
    await call('POST', `/_sandbox/partners/${DEFAULT_PARTNER.id}/reset`, { creds: null })
    expect(await storedRows(call, 'webhook_labs')).toHaveLength(0)
    const restored = await call('POST', `/_sandbox/partners/${DEFAULT_PARTNER.id}/snapshot`, {
      creds: null,
      body: snapshot.json,
    })
    expect(restored.status, restored.text).toBe(200)
    expect((await storedRow(call, 'webhook_labs', hook.id))?.checks[0]?.check).toBe('replay')

    // A disabled endpoint cannot be armed; a deleted one takes its lab with it.
    await call('PATCH', `/api/v1/partner/webhooks/${hook.id}`, {
      creds: acme,
      body: { enabled: false },
    })
    const disabled = await call('POST', `/_sandbox/webhooks/${hook.id}/lab`, {
      creds: null,
      body: { checks: ['replay'] },
    })
    expect(disabled.status).toBe(409)
    expect(disabled.json.error.message).toContain('enable it')
    const gone = await call('DELETE', `/api/v1/partner/webhooks/${hook.id}`, { creds: acme })
    expect(gone.status, gone.text).toBeLessThan(300)
    expect(await storedRows(call, 'webhook_labs')).toHaveLength(0)
  })
})

describe('the webhook lab through the typed client', () => {
  it('passes a receiver that verifies with standardwebhooks', async () => {
    const { sandbox, call } = await setup()
    let verifier: Webhook | undefined
    const app = await receiver((body, headers) => {
      try {
        verifier?.verify(body, headers as Record<string, string>)
        return verifier ? 204 : 500
      } catch {
        return 401
      }
    })
    const hook = await endpointFor(call, app.url)
    verifier = new Webhook(hook.secret.slice('whsec_'.length))
    const lab = sandbox.control.webhooks.lab
    const armed = await lab.arm(hook.id, [
      'duplicate',
      'out_of_order',
      'forged_signature',
      'replay',
    ])
    expect(armed.checks).toHaveLength(4)
    await emit(call, 1)
    await emit(call, 2)
    await sandbox.control.webhooks.flush()
    const report = await lab.report(hook.id)
    expect(report.checks.map((c) => [c.check, c.verdict, c.receiver_status])).toEqual([
      ['duplicate', 'pass', 204],
      ['out_of_order', 'pass', 204],
      ['forged_signature', 'pass', 401],
      ['replay', 'pass', 401],
    ])
    await expect(lab.report('wh_missing')).rejects.toThrow(/No webhook endpoint wh_missing/)
  })
})

describe('the webhook lab on the dashboard', () => {
  it('shows each endpoint’s report and a button that arms every check', async () => {
    const { sandbox, call } = await setup()
    const app = await receiver(() => 200)
    const hook = await endpointFor(call, app.url)
    const before = await sandbox.app.request(`/_sandbox?partner=${DEFAULT_PARTNER.id}`)
    const page = await before.text()
    expect(page).toContain(`data-testid="lab-arm-${hook.id}"`)
    expect(page).toContain(`data-action="POST /_sandbox/webhooks/${hook.id}/lab"`)
    expect(page).toContain('data-testid="lab-checks-empty"')
    await sandbox.control.webhooks.lab.arm(hook.id, ['forged_signature'])
    await emit(call, 1)
    await sandbox.control.webhooks.flush()
    const after = await (
      await sandbox.app.request(`/_sandbox?partner=${DEFAULT_PARTNER.id}`)
    ).text()
    const row = after.slice(after.indexOf(`data-id="${hook.id}-forged_signature"`))
    expect(row).toMatch(/data-testid="lab-checks-verdict">fail</)
    expect(row).toMatch(/data-testid="lab-checks-receiver-status">200</)
  })
})
