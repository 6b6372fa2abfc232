import { describe, expect, it } from 'vitest'
import type { EventType } from '../src/domain/events.js'
import { ControlPlaneError } from '../src/index.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { eventObjectSchemas } from '../src/webhooks/event-objects.js'
import { type Call, onboardedUser, setup, storedRow, storedRows } from './helpers.js'

/** Events with chosen data: POST /_sandbox/events `overrides`, and the typed client's. */

const trigger = (call: Call, body: object) =>
  call('POST', '/_sandbox/events', {
    creds: null,
    body: { partner_id: DEFAULT_PARTNER.id, ...body },
  })

/** How many events and transactions the sandbox holds (its snapshot). */
const counts = async (call: Call) => ({
  events: (await storedRows(call, 'events')).length,
  transactions: (await storedRows(call, 'transactions')).length,
})

describe('POST /_sandbox/events with overrides', () => {
  it('card.funded with a chosen amount funds that amount for real and names what it made', async () => {
    const { call } = await setup()
    const u = await onboardedUser(call)
    const res = await trigger(call, {
      type: 'card.funded',
      overrides: { 'data.object.amount': 12.34 },
    })
    expect(res.status, res.text).toBe(201)
    expect(res.json.event.data.object).toMatchObject({ amount: 12.34, available_balance: 12.34 })
    expect(res.json.made).toEqual([
      { object: 'card_transaction', id: res.json.event.data.object.transaction_id },
    ])
    const txn = await call('GET', `/api/v1/partner/transactions/${res.json.made[0].id}`, {
      headers: u.bearer,
    })
    expect(txn.json.data).toMatchObject({ type: 'funding', amount: 12.34 })
    // What the endpoint receives is the stored event, overrides included.
    const stored = await storedRow(call, 'events', res.json.event.id)
    expect(stored?.data.object.amount).toBe(12.34)
  })

  it('a purchase takes its merchant from overrides; other fields are set on the event', async () => {
    const { call } = await setup()
    const u = await onboardedUser(call)
    await trigger(call, { type: 'card.funded' })
    const res = await trigger(call, {
      type: 'card_transaction.created',
      overrides: {
        'data.object.merchant.name': 'Blue Bottle Coffee',
        'data.object.description': 'Chosen description',
      },
    })
    expect(res.status, res.text).toBe(201)
    expect(res.json.event.data.object.merchant.name).toBe('Blue Bottle Coffee')
    expect(res.json.event.data.object.description).toBe('Chosen description')
    const txn = await call('GET', `/api/v1/partner/transactions/${res.json.made[0].id}`, {
      headers: u.bearer,
    })
    expect(txn.json.data.merchant.name).toBe('Blue Bottle Coffee')
  })

  it('a resent object takes overrides too, nested values whole', async () => {
    const { call } = await setup()
    await onboardedUser(call)
    const res = await trigger(call, {
      type: 'user.created',
      overrides: { 'data.object.metadata': { plan: 'gold' }, 'data.object.kyc_status': 'x' },
    })
    expect(res.status, res.text).toBe(201)
    expect(res.json.event.data.object).toMatchObject({
      metadata: { plan: 'gold' },
      kyc_status: 'x',
    })
    expect(res.json.made).toEqual([])
  })

  it("chosen fields stay on their event: the next trigger resends the partner's real object", async () => {
    const { call } = await setup()
    await onboardedUser(call)
    const real = (await trigger(call, { type: 'user.created' })).json.event.data.object
    const chosen = await trigger(call, {
      type: 'user.created',
      overrides: { 'data.object.first_name': 'Chosen', 'data.object.metadata': { plan: 'gold' } },
    })
    expect(chosen.json.event.data.object.first_name).toBe('Chosen')
    const given = await trigger(call, {
      type: 'user.created',
      object: { ...real, first_name: 'Given' },
    })
    expect(given.status, given.text).toBe(201)
    const next = await trigger(call, { type: 'user.created' })
    expect(next.json.event.data.object).toEqual(real)
  })

  it('a bad override is a 400 naming the path and what is wrong, and changes nothing', async () => {
    const { call } = await setup()
    await onboardedUser(call)
    const before = await counts(call)
    const cases: [object, string, RegExp][] = [
      [{ 'data.object.amount': 'lots' }, 'overrides.data.object.amount', /must be a number/],
      [
        { 'data.object.colour': 'red' },
        'overrides.data.object.colour',
        /is not a field of this object \(its fields: .*amount/,
      ],
      [{ type: 'x' }, 'overrides.type', /only fields of the event's object/],
      [{ 'data.object.amount': -5 }, 'overrides.data.object.amount', /./],
      [{ 'data.object.object': 'card' }, 'overrides.data.object.object', /card_funding/],
      [{ 'data.object.toString': 1 }, 'overrides.data.object.toString', /not a field/],
      [{ 'data.object.__proto__.x': 1 }, 'overrides.data.object.__proto__.x', /no event object/],
    ]
    for (const [overrides, field, message] of cases) {
      const res = await trigger(call, { type: 'card.funded', overrides })
      expect(res.status, res.text).toBe(400)
      expect(res.json.error.code).toBe('validation_error')
      expect(res.json.error.message).toContain(field.slice('overrides.'.length))
      expect(res.json.error.details[0].field).toBe(field)
      expect(res.json.error.details[0].message).toMatch(message)
    }
    // A whole value that leaves the object invalid is refused too, with the inner path.
    const merchant = await trigger(call, {
      type: 'card_transaction.created',
      overrides: { 'data.object.merchant': { name: 7 } },
    })
    expect(merchant.status, merchant.text).toBe(400)
    expect(merchant.json.error.details[0].field).toBe('overrides.data.object.merchant.name')
    // A record field (metadata) takes any key, but never one into the prototype.
    const polluted = await trigger(call, {
      type: 'user.created',
      overrides: { 'data.object.metadata.__proto__.polluted': 'yes' },
    })
    expect(polluted.status).toBe(400)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(await counts(call)).toEqual(before)
  })

  it('every real event of a flow fits its type’s object schema', async () => {
    const { call } = await setup()
    await onboardedUser(call)
    await trigger(call, { type: 'card.funded' })
    await trigger(call, { type: 'card_transaction.created' })
    const events = await storedRows(call, 'events')
    expect(new Set(events.map((e) => e.type)).size).toBeGreaterThanOrEqual(6)
    for (const e of events) {
      const parsed = eventObjectSchemas[e.type as EventType].safeParse(e.data.object)
      expect(parsed.success, `${e.type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true)
    }
  })
})

describe('the typed client', () => {
  it('trigger(…, { overrides }) sets fields, and a bad one throws with the path', async () => {
    const { sandbox, call } = await setup()
    await onboardedUser(call)
    const event = await sandbox.control.events.trigger(
      DEFAULT_PARTNER.id,
      'card.funded',
      undefined,
      {
        overrides: { 'data.object.amount': 3.5 },
      },
    )
    expect(event.data.object).toMatchObject({ amount: 3.5 })
    const partner = await sandbox.control.createPartner({ name: 'Overrides' })
    await expect(
      partner.webhooks.trigger('api_key.rotated', undefined, {
        overrides: { 'data.object.api_key': 'pk_test_chosen' },
      }),
    ).rejects.toThrow(/no api_key\.rotated event/)
    const error = await sandbox.control.events
      .trigger(DEFAULT_PARTNER.id, 'card.funded', undefined, {
        overrides: { 'data.object.amount': true },
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ControlPlaneError)
    expect((error as ControlPlaneError).status).toBe(400)
    expect((error as Error).message).toContain('data.object.amount')
  })
})
