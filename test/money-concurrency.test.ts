import { describe, expect, it, onTestFinished } from 'vitest'
import { acme, connectBank, onboardedUser, testSandbox } from './helpers.js'

/**
 * Money under concurrency (issue 20, item 3): the seam runs one transaction at a time, so
 * requests fired together on one card, each reading the balance and writing it back across
 * awaits, lose nothing and overdraw nothing. Every request here is in flight at once.
 */

const API = '/api/v1/partner'

async function cardholder() {
  const t = await testSandbox({ rateLimit: 'off' })
  onTestFinished(() => t.sandbox.close())
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

describe('money under concurrency', () => {
  it('200 simulate-fund of 0.01 at once leave exactly 2.00, one transaction each', async () => {
    const u = await cardholder()
    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        u.as('POST', `${API}/cards/simulate-fund`, { amount: 0.01 }),
      ),
    )
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(200))
    expect(await u.balance()).toEqual({ available: 2, ledger: 2 })
    // Each answer saw its own step: the balances after are 0.01 … 2.00, each once.
    const after = answers
      .map((a) => Math.round(a.json.availableBalance * 100))
      .sort((a, b) => a - b)
    expect(after).toEqual(Array.from({ length: 200 }, (_, i) => i + 1))
    const list = await u.as('GET', `${API}/transactions?limit=100&type=funding`)
    expect(list.json.data.data).toHaveLength(100)
    expect(list.json.data.has_more).toBe(true)
  })

  it('purchases fired at a balance that covers some of them: the rest are declined, none overdraws', async () => {
    const u = await cardholder()
    expect((await u.as('POST', `${API}/cards/simulate-fund`, { amount: 1 })).status).toBe(200)
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        u.as('POST', `${API}/cards/simulate-purchase`, { amount: 0.1, merchant: { name: 'Shop' } }),
      ),
    )
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(201))
    const txns = answers.map((a) => a.json.data)
    expect(txns.filter((t) => t.status === 'pending')).toHaveLength(10)
    const declined = txns.filter((t) => t.status === 'declined')
    expect(declined).toHaveLength(20)
    for (const t of declined) expect(t.decline_reason).toBe('insufficient_funds')
    for (const t of txns) expect(t.available_balance_after).toBeGreaterThanOrEqual(0)
    expect(await u.balance()).toEqual({ available: 0, ledger: 1 })
  })

  it('one posted purchase refunded many times at once is refunded once', async () => {
    const u = await cardholder()
    await u.as('POST', `${API}/cards/simulate-fund`, { amount: 50 })
    const bought = await u.as('POST', `${API}/cards/simulate-purchase`, {
      amount: 20,
      merchant: { name: 'Shop' },
    })
    const id = bought.json.data.id as string
    expect((await u.as('POST', `${API}/transactions/${id}/simulate-clearing`)).status).toBe(200)
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => u.as('POST', `${API}/transactions/${id}/simulate-refund`)),
    )
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 409)).toHaveLength(9)
    expect(await u.balance()).toEqual({ available: 50, ledger: 50 })
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
