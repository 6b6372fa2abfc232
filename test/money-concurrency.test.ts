import { describe, expect, it } from 'vitest'
import { acme, connectBank, offeredBankAccounts, onboardedUser, setup } from './helpers.js'

/**
 * Money under concurrency beyond fundings and purchases (test/concurrency.test.ts): the seam
 * runs one transaction at a time, so requests fired together, each reading a row and writing
 * it back across awaits, never both act on what only one may: a refund, a dispute, a
 * connect token, a settlement. Every request here is in flight at once.
 */

const API = '/api/v1/partner'
const CONNECT = '/api/v1/external-bank-account-connect'

async function cardholder() {
  const t = await setup({ rateLimit: 'off' })
  const u = await onboardedUser(t.call)
  const as = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { creds: acme, headers: u.bearer, body })
  const balance = async () => {
    const status = await as('GET', `${API}/cards/status`)
    expect(status.status, status.text).toBe(200)
    const { available, ledger } = status.json.data.balances
    return { available, ledger }
  }
  return { ...t, ...u, as, balance }
}

/** A cardholder funded with 50 who made a purchase of 20, cleared (posted). */
async function clearedPurchase() {
  const u = await cardholder()
  await u.as('POST', `${API}/cards/simulate-fund`, { amount: 50 })
  const bought = await u.as('POST', `${API}/cards/simulate-purchase`, {
    amount: 20,
    merchant: { name: 'Shop' },
  })
  const id = bought.json.data.id as string
  expect((await u.as('POST', `${API}/transactions/${id}/simulate-clearing`)).status).toBe(200)
  return { u, id }
}

describe('money under concurrency', () => {
  it('one posted purchase refunded many times at once is refunded once', async () => {
    const { u, id } = await clearedPurchase()
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => u.as('POST', `${API}/transactions/${id}/simulate-refund`)),
    )
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 409)).toHaveLength(9)
    expect(await u.balance()).toEqual({ available: 50, ledger: 50 })
  })

  it('refunds and disputes of one purchase fired together never give back more than it cost', async () => {
    const { u, id } = await clearedPurchase()
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2
          ? u.as('POST', `${API}/transactions/${id}/simulate-refund`)
          : u.as('POST', `${API}/disputes`, { transaction_id: id, reason: 'fraudulent' }),
      ),
    )
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 409)).toHaveLength(9)
    // The purchase's 20.00 came back once, by a refund or a dispute's provisional credit.
    expect(await u.balance()).toEqual({ available: 50, ledger: 50 })
  })

  it('one connect token enrolled many times at once connects one account', async () => {
    const u = await cardholder()
    const token = await u.as('POST', `${CONNECT}/token`)
    expect(token.status, token.text).toBe(201)
    const url = new URL(token.json.data.connect_url)
    const page = await u.call('GET', `${url.pathname}${url.search}`, { creds: null })
    const [account] = offeredBankAccounts(page.text)
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        u.call('POST', `${CONNECT}/enrollment/public`, {
          creds: null,
          body: { token: token.json.data.connect_token, ...account },
        }),
      ),
    )
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 401)).toHaveLength(7)
    const list = await u.as('GET', `${CONNECT}/accounts`)
    expect(list.json.data.data).toHaveLength(1)
  })

  it('deposits settling while funds arrive: every cent is counted once', async () => {
    const u = await cardholder()
    const bank = await connectBank(u.call, u.bearer)
    const deposits = await Promise.all(
      Array.from({ length: 5 }, () =>
        u.as('POST', `${API}/cards/deposits`, { amount: 10, external_bank_account_id: bank }),
      ),
    )
    expect(deposits.map((d) => d.status)).toEqual(Array(5).fill(201))
    const advance = u.call('POST', '/_sandbox/clock/advance', { creds: null, body: { by: '31m' } })
    const funds = Array.from({ length: 20 }, () =>
      u.as('POST', `${API}/cards/simulate-fund`, { amount: 0.5 }),
    )
    const [moved, ...funded] = await Promise.all([advance, ...funds])
    expect(moved?.status, moved?.text).toBe(200)
    expect(funded.map((f) => f.status)).toEqual(Array(20).fill(200))
    expect(await u.balance()).toEqual({ available: 60, ledger: 60 })
  })
})
