import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER, SECOND_PARTNER } from '../src/store/default-credentials.js'
import {
  acme,
  type Call,
  type Creds,
  loginSession,
  northwind,
  onboardedUser,
  receiverForTest,
  setup,
  tempDirForTest,
} from './helpers.js'
import { createEndpoint, onlyDelivery, trigger } from './webhook-steps.js'

/**
 * Reset, delete, snapshot and restore of one partner: the other partner's every row stays
 * exactly as it was (compared through its own export).
 */

const A = DEFAULT_PARTNER.id
const B = SECOND_PARTNER.id
/** A partner with a card holder, money, a webhook endpoint with a delivery, and a code sent. */
async function populate(call: Call, creds: Creds) {
  const holder = await onboardedUser(call, {}, creds)
  const fund = await call('POST', '/api/v1/partner/cards/simulate-fund', {
    creds,
    headers: holder.bearer,
    body: { amount: 42.5 },
  })
  expect(fund.status, fund.text).toBe(200)
  const hook = await call('POST', '/api/v1/partner/webhooks', {
    creds,
    body: { url: 'http://127.0.0.1:9/hooks', events: [] },
  })
  expect(hook.status, hook.text).toBe(201)
  const login = await call('POST', '/api/v1/partner/auth/login', {
    creds,
    body: { email: holder.user.email, password: holder.user.password },
  })
  expect(login.status).toBe(200)
  return holder
}

const snapshotOf = async (call: Call, id: string) => {
  const res = await call('GET', `/_sandbox/partners/${id}/snapshot`, { creds: null })
  expect(res.status, res.text).toBe(200)
  return res.json
}

const inboxOf = async (call: Call, id: string) =>
  (await call('GET', `/_sandbox/inbox?partner_id=${id}`, { creds: null })).json.data

const count = (doc: { collections: Record<string, object> }, name: string) =>
  Object.keys(doc.collections[name] ?? {}).length

describe('one partner at a time: reset, delete, snapshot and restore', () => {
  it("reset removes the partner's data, keeps its credentials, and leaves the other partner identical", async () => {
    const { call } = await setup()
    await populate(call, acme)
    const holderB = await populate(call, northwind)
    const before = await snapshotOf(call, B)
    const inboxB = await inboxOf(call, B)
    expect(count(await snapshotOf(call, A), 'cards')).toBe(1)
    expect((await inboxOf(call, A)).length).toBeGreaterThan(0)

    const res = await call('POST', `/_sandbox/partners/${A}/reset`, { creds: null })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ ok: true, message: expect.stringContaining(A) })

    const after = await snapshotOf(call, A)
    for (const name of ['users', 'sessions', 'verification_codes', 'onboardings', 'cards'])
      expect(count(after, name), name).toBe(0)
    for (const name of ['transactions', 'deposits', 'events', 'webhook_deliveries'])
      expect(count(after, name), name).toBe(0)
    const hooks = Object.values(after.collections.webhooks) as { primary: boolean }[]
    expect(hooks.every((w) => w.primary)).toBe(true)
    expect(await inboxOf(call, A)).toEqual([])
    expect((await call('GET', '/api/v1/partner/me', { creds: acme })).status).toBe(200)

    expect((await snapshotOf(call, B)).collections).toEqual(before.collections)
    expect(await inboxOf(call, B)).toEqual(inboxB)
    const me = await call('GET', '/api/v1/partner/users/me', {
      creds: northwind,
      headers: holderB.bearer,
    })
    expect(me.status).toBe(200)
  })

  it('delete removes the partner wholly: its credentials fail at once, the other partner is identical', async () => {
    const { call } = await setup()
    await populate(call, acme)
    await populate(call, northwind)
    const before = await snapshotOf(call, B)
    expect((await call('GET', '/api/v1/partner/me', { creds: acme })).status).toBe(200)

    const res = await call('DELETE', `/_sandbox/partners/${A}`, { creds: null })
    expect(res.status).toBe(200)
    expect(res.json.ok).toBe(true)

    expect((await call('GET', '/api/v1/partner/me', { creds: acme })).status).toBe(401)
    expect((await call('GET', `/_sandbox/partners/${A}/clock`, { creds: null })).status).toBe(404)
    const partners = await call('GET', '/_sandbox/partners', { creds: null })
    expect(partners.json.data.map((p: { id: string }) => p.id)).not.toContain(A)
    const events = await call('GET', `/_sandbox/events?partner_id=${A}`, { creds: null })
    expect(events.json.data).toEqual([])
    expect((await snapshotOf(call, B)).collections).toEqual(before.collections)
    expect((await call('DELETE', `/_sandbox/partners/${A}`, { creds: null })).status).toBe(404)
  })

  it("a snapshot restored brings the partner's rows and clock back; nothing of the other changes", async () => {
    const { call } = await setup()
    const holder = await populate(call, acme)
    await populate(call, northwind)
    await call('POST', `/_sandbox/partners/${A}/clock/freeze`, {
      creds: null,
      body: { at: '2031-05-05T00:00:00Z' },
    })
    const saved = await snapshotOf(call, A)
    expect(saved.partner_id).toBe(A)
    expect(Object.keys(saved.collections.partners)).toEqual([A])
    const before = await snapshotOf(call, B)

    await onboardedUser(call, {}, acme)
    await call('POST', `/_sandbox/partners/${A}/clock/advance`, { creds: null, body: { by: '3d' } })
    await call('POST', `/_sandbox/partners/${A}/reset`, { creds: null })
    expect(count(await snapshotOf(call, A), 'users')).toBe(0)

    const res = await call('POST', `/_sandbox/partners/${A}/snapshot`, { creds: null, body: saved })
    expect(res.status, res.text).toBe(200)
    const restored = await snapshotOf(call, A)
    expect(restored.collections).toEqual(saved.collections)
    const clock = await call('GET', `/_sandbox/partners/${A}/clock`, { creds: null })
    expect(clock.json).toMatchObject({ now: '2031-05-05T00:00:00.000Z', frozen: true })
    expect((await snapshotOf(call, B)).collections).toEqual(before.collections)
    // The restored user can log in again.
    const session = await loginSession(call, holder.user.email, holder.user.password, acme)
    expect(session.user.email).toBe(holder.user.email)
  })

  it('a restored delivery that is due goes out at once, the sandbox clock frozen', async () => {
    const { call } = await setup()
    // The first attempt fails: the delivery waits for its retry, which a frozen clock never reaches.
    const receiver = await receiverForTest(500)
    const frozen = await call('POST', '/_sandbox/clock/freeze', { creds: null })
    expect(frozen.status, frozen.text).toBe(200)
    const webhookId = await createEndpoint(call, receiver.url)
    await trigger(call)
    await receiver.waitFor(1)
    // Once the failed attempt is recorded, its retry is scheduled.
    await expect
      .poll(async () => (await onlyDelivery(call, webhookId)).status, { timeout: 5_000 })
      .toBe('failed')
    // The partner's snapshot with that retry due now, as one taken later would hold it.
    const saved = await snapshotOf(call, A)
    const now = (await call('GET', `/_sandbox/partners/${A}/clock`, { creds: null })).json.now
    const rows = saved.collections.webhook_deliveries as Record<string, { next_attempt_at: string }>
    for (const row of Object.values(rows)) row.next_attempt_at = now
    await call('POST', `/_sandbox/partners/${A}/reset`, { creds: null })
    const res = await call('POST', `/_sandbox/partners/${A}/snapshot`, { creds: null, body: saved })
    expect(res.status, res.text).toBe(200)
    // Sent without a clock advance or a flush: the restore told the dispatcher.
    await receiver.waitFor(2)
    await expect
      .poll(async () => (await onlyDelivery(call, webhookId)).status, { timeout: 5_000 })
      .toBe('succeeded')
  })

  it('a bad document is refused with the field named, and changes nothing', async () => {
    const { call } = await setup()
    await populate(call, acme)
    await populate(call, northwind)
    const docA = await snapshotOf(call, A)
    const docB = await snapshotOf(call, B)
    const userOfB = Object.values(docB.collections.users)[0] as { id: string }
    const userOfA = Object.values(docA.collections.users)[0] as { id: string }
    const cases: [string, unknown, string][] = [
      ['another partner id', { ...docA, partner_id: B }, 'partner_id'],
      [
        "a row of B's",
        { ...docA, collections: { ...docA.collections, users: docB.collections.users } },
        `collections.users.${userOfB.id}.partner_id`,
      ],
      [
        'a broken row',
        {
          ...docA,
          collections: {
            ...docA.collections,
            users: {
              [userOfA.id]: { ...(docA.collections.users[userOfA.id] as object), email: 7 },
            },
          },
        },
        `collections.users.${userOfA.id}.email`,
      ],
      [
        'the meta row',
        { ...docA, collections: { ...docA.collections, meta: { sandbox: { id: 'sandbox' } } } },
        'collections.meta.sandbox',
      ],
      ['a wrong format', { ...docA, format: 'other' }, 'format'],
      [
        'no collections',
        { format: 'partner-sandbox', schema_version: 1, partner_id: A },
        'collections',
      ],
    ]
    for (const [what, body, field] of cases) {
      const res = await call('POST', `/_sandbox/partners/${A}/snapshot`, { creds: null, body })
      expect(res.status, what).toBe(400)
      expect(res.json.success, what).toBe(false)
      expect(res.json.error.code, what).toBe('validation_error')
      const fields = res.json.error.details.map((d: { field: string }) => d.field)
      expect(
        fields.some((f: string) => f.startsWith(field)),
        `${what}: ${fields}`,
      ).toBe(true)
    }
    expect((await snapshotOf(call, A)).collections).toEqual(docA.collections)
    expect((await snapshotOf(call, B)).collections).toEqual(docB.collections)
  })

  it('answers 404 for an unknown partner and 400 for a malformed id, in the error envelope', async () => {
    const { call } = await setup()
    const missing = '00000000-0000-4000-8000-000000000000'
    for (const [method, path] of [
      ['POST', `/_sandbox/partners/${missing}/reset`],
      ['DELETE', `/_sandbox/partners/${missing}`],
      ['GET', `/_sandbox/partners/${missing}/snapshot`],
    ] as const) {
      const res = await call(method, path, { creds: null })
      expect(res.status, path).toBe(404)
      expect(res.json).toMatchObject({ success: false, error: { code: 'not_found' } })
    }
    const doc = await snapshotOf(call, A)
    const restore = await call('POST', `/_sandbox/partners/${missing}/snapshot`, {
      creds: null,
      body: { ...doc, partner_id: missing },
    })
    expect(restore.status).toBe(404)
    for (const [method, path] of [
      ['POST', '/_sandbox/partners/nope/reset'],
      ['DELETE', '/_sandbox/partners/nope'],
      ['GET', '/_sandbox/partners/nope/snapshot'],
    ] as const) {
      const res = await call(method, path, { creds: null })
      expect(res.status, path).toBe(400)
      expect(res.json.error.details[0].field).toBe('id')
    }
  })

  it('a reset and a delete survive a restart with a data file, without a clean shutdown', async () => {
    const dir = tempDirForTest('partner-state-')
    const data = join(dir, 'sandbox.json')
    const first = await setup({ data })
    await populate(first.call, acme)
    await populate(first.call, northwind)
    const before = await snapshotOf(first.call, B)
    await first.call('POST', `/_sandbox/partners/${A}/reset`, { creds: null })
    const created = await first.call('POST', '/_sandbox/partners', {
      creds: null,
      body: { name: 'Short Lived' },
    })
    await first.call('DELETE', `/_sandbox/partners/${created.json.partner.id}`, { creds: null })

    // A second process on the same file, the first never closed: what kill -9 leaves.
    const second = await setup({ data })
    expect(count(await snapshotOf(second.call, A), 'users')).toBe(0)
    expect((await snapshotOf(second.call, B)).collections).toEqual(before.collections)
    const gone = await second.call('GET', `/_sandbox/partners/${created.json.partner.id}/clock`, {
      creds: null,
    })
    expect(gone.status).toBe(404)
  })
})
