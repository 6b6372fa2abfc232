import { describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { type Call, onboardedUser, setup } from './helpers.js'

const trigger = (call: Call, body: object) =>
  call('POST', '/_sandbox/events', {
    creds: null,
    body: { partner_id: DEFAULT_PARTNER.id, ...body },
  })

describe('POST /_sandbox/events makes events from the partner’s real state', () => {
  it('card_transaction.created carries a real purchase the API then returns', async () => {
    const { call } = await setup()
    const u = await onboardedUser(call)
    const res = await trigger(call, { type: 'card_transaction.created' })
    expect(res.status, res.text).toBe(201)
    const object = res.json.event.data.object
    expect(object).toMatchObject({
      object: 'card_transaction',
      type: 'purchase',
      card_id: u.cardId,
    })
    expect(object).not.toHaveProperty('triggered_by')
    const txn = await call('GET', `/api/v1/partner/transactions/${object.id}`, {
      headers: u.bearer,
    })
    expect(txn.status, txn.text).toBe(200)
    expect(txn.json.data).toMatchObject({ id: object.id, amount: object.amount })
  })

  it('card.funded funds the card for real; other types resend the newest real object', async () => {
    const { call } = await setup()
    const u = await onboardedUser(call)
    const funded = await trigger(call, { type: 'card.funded' })
    expect(funded.json.event.data.object).toMatchObject({ card_id: u.cardId, amount: 25 })
    const status = await call('GET', '/api/v1/partner/cards/status', { headers: u.bearer })
    expect(status.json.data.balances.available).toBe(25)
    const user = await trigger(call, { type: 'user.created' })
    expect(user.status, user.text).toBe(201)
    expect(user.json.event.data.object).toMatchObject({ id: u.userId, email: u.user.email })
  })

  it('409 naming what to do when the partner has nothing to base it on; object overrides', async () => {
    const { call } = await setup()
    const none = await trigger(call, { type: 'card_transaction.created' })
    expect(none.status).toBe(409)
    expect(none.json.error.message).toMatch(/no user with an active card: onboard one/)
    const dispute = await trigger(call, { type: 'dispute.created' })
    expect(dispute.status).toBe(409)
    expect(dispute.json.error.message).toContain('open a dispute')
    const given = await trigger(call, { type: 'dispute.created', object: { id: 'dsp_given' } })
    expect(given.status).toBe(201)
    expect(given.json.event.data.object).toEqual({ id: 'dsp_given' })
  })
})
