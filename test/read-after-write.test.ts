import { describe, expect, it } from 'vitest'
import { acme, type Call, connectBank, onboardedUser, setup } from './helpers.js'

/**
 * Every kind of write that changes a card's money shows on the very next read of GET
 * /partner/cards/transactions: each step reads the list before the write, then checks it
 * against GET /partner/transactions after it.
 */

const API = '/api/v1/partner'
const CARD_TXNS = `${API}/cards/transactions`

async function cardholder(call: Call) {
  const u = await onboardedUser(call)
  const as = (method: string, path: string, body?: unknown) =>
    call(method, path, { creds: acme, headers: u.bearer, body })
  /** The card list and the transaction list, which must agree. */
  const lists = async (query = 'limit=100') => {
    const cached = await as('GET', `${CARD_TXNS}?${query}`)
    const fresh = await as('GET', `${API}/transactions?${query}`)
    expect(cached.status, cached.text).toBe(200)
    expect(fresh.status, fresh.text).toBe(200)
    expect(cached.json.data).toEqual(fresh.json.data)
    return cached.json.data.data as { id: string; status: string; refunded_amount: number }[]
  }
  return { ...u, as, lists }
}

describe('the card transaction list after every kind of write', () => {
  it('shows funding, purchases, clearing, reversal, refunds, disputes and deposits at once', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    expect(await u.lists()).toEqual([])

    await u.as('POST', `${API}/cards/simulate-fund`, { amount: 100 })
    expect((await u.lists()).map((t) => t.status)).toEqual(['posted'])

    const buy = async () =>
      (
        await u.as('POST', `${API}/cards/simulate-purchase`, {
          amount: 10,
          merchant: { name: 'S' },
        })
      ).json.data.id as string
    const first = await buy()
    expect((await u.lists())[0]).toMatchObject({ id: first, status: 'pending' })

    await u.as('POST', `${API}/transactions/${first}/simulate-clearing`)
    expect((await u.lists())[0]).toMatchObject({ id: first, status: 'posted' })

    await u.as('POST', `${API}/transactions/${first}/simulate-refund`, { amount: 2.5 })
    const afterRefund = await u.lists()
    expect(afterRefund.find((t) => t.id === first)?.refunded_amount).toBe(2.5)

    const second = await buy()
    await u.lists()
    await u.as('POST', `${API}/transactions/${second}/simulate-reversal`)
    expect((await u.lists()).find((t) => t.id === second)?.status).toBe('reversed')

    const before = (await u.lists()).length
    const dispute = await u.as('POST', `${API}/disputes`, {
      transaction_id: first,
      reason: 'fraudulent',
    })
    expect(dispute.status, dispute.text).toBe(201)
    expect((await u.lists()).length).toBeGreaterThan(before)

    const bank = await connectBank(call, u.bearer)
    const deposit = await u.as('POST', `${API}/cards/deposits`, {
      amount: 25,
      external_bank_account_id: bank,
    })
    expect(deposit.status, deposit.text).toBe(201)
    const txnId = deposit.json.data.transaction_id
    expect((await u.lists()).find((t) => t.id === txnId)?.status).toBe('pending')
    // Settled by the clock, not by a request of the user's.
    const advanced = await call('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { by: '31m' },
    })
    expect(advanced.status, advanced.text).toBe(200)
    expect((await u.lists()).find((t) => t.id === txnId)?.status).toBe('posted')
  })

  it('pages are kept apart by limit and cursor', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.as('POST', `${API}/cards/simulate-fund`, { amount: 50 })
    for (let i = 0; i < 3; i++)
      await u.as('POST', `${API}/cards/simulate-purchase`, { amount: 1, merchant: { name: 'S' } })
    const all = await u.lists()
    const firstTwo = await u.lists('limit=2')
    expect(firstTwo.map((t) => t.id)).toEqual(all.slice(0, 2).map((t) => t.id))
    const rest = await u.lists(`limit=2&starting_after=${firstTwo[1]?.id}`)
    expect(rest.map((t) => t.id)).toEqual(all.slice(2, 4).map((t) => t.id))
  })

  it('a reset or a restored snapshot is never answered from before', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    const snapshot = await call('GET', '/_sandbox/snapshot', { creds: null })
    await u.as('POST', `${API}/cards/simulate-fund`, { amount: 5 })
    expect(await u.lists()).toHaveLength(1)
    const restored = await call('POST', '/_sandbox/snapshot', { creds: null, body: snapshot.json })
    expect(restored.status, restored.text).toBe(200)
    expect(await u.lists()).toHaveLength(0)
    await u.as('POST', `${API}/cards/simulate-fund`, { amount: 5 })
    expect(await u.lists()).toHaveLength(1)
    const reset = await call('POST', '/_sandbox/reset', { creds: null })
    expect(reset.status, reset.text).toBe(200)
    expect((await u.as('GET', CARD_TXNS)).status).toBe(401)
  })
})

describe('the records kept serialized: /partner/me and /partner/users/me', () => {
  it('show an update on the next read', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    expect((await u.as('GET', `${API}/me`)).json.partner.display_name).not.toBe('Renamed')
    const patched = await u.as('PATCH', `${API}/me`, { display_name: 'Renamed' })
    expect(patched.status, patched.text).toBe(200)
    expect((await u.as('GET', `${API}/me`)).json.partner.display_name).toBe('Renamed')

    expect((await u.as('GET', `${API}/users/me`)).json.first_name).not.toBe('Changed')
    const edited = await u.as('PATCH', `${API}/users/me`, { first_name: 'Changed' })
    expect(edited.status, edited.text).toBe(200)
    expect((await u.as('GET', `${API}/users/me`)).json.first_name).toBe('Changed')
  })

  it('a picture link follows the Host of each request', async () => {
    const { sandbox, call } = await setup()
    const u = await cardholder(call)
    const form = new FormData()
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
    form.append('profile_picture', new File([png], 'a.png', { type: 'image/png' }))
    const upload = await sandbox.app.request(`${API}/users/me/profile-picture`, {
      method: 'PATCH',
      body: form,
      headers: { 'x-partner-key': acme.key, 'x-partner-secret': acme.secret, ...u.bearer },
    })
    expect(upload.status, await upload.clone().text()).toBe(200)
    const pictureOf = async (host: string) =>
      (await call('GET', `${API}/users/me`, { headers: { ...u.bearer, host } })).json
        .profile_picture_url as string
    expect(await pictureOf('one.example:1')).toMatch(/^http:\/\/one\.example:1\/files\//)
    expect(await pictureOf('two.example:2')).toMatch(/^http:\/\/two\.example:2\/files\//)
  })
})
