import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SandboxOptions } from '../src/index.js'
import { type Call, httpCall, onboardedUser, servedForTest, tempDirForTest } from './helpers.js'

/**
 * Money under real concurrency: requests fired at once over sockets to a listening sandbox, so
 * they interleave inside the server as a partner's traffic does. The guard of the store's
 * transactions (issue 20, item 3): balances stay exact, none goes negative, nothing is lost,
 * and a data file restores exactly what was answered.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read response fields freely and assert each one
type Json = any

const API = '/api/v1/partner/cards'
const cents = (amount: number) => Math.round(amount * 100)

/** A listening sandbox on 127.0.0.1; the rate limit is off so 200 requests at once all count. */
async function listening(options: SandboxOptions = {}) {
  const sandbox = await servedForTest({ rateLimit: 'off', ...options })
  return { sandbox, call: httpCall(sandbox.url) }
}

/** A card holder and what the card's tests read: balances in cents and every transaction. */
async function cardholder(call: Call) {
  const u = await onboardedUser(call)
  return { ...u, ...cardReads(call, u.bearer) }
}

function cardReads(call: Call, headers: Record<string, string>) {
  return {
    async balances() {
      const res = await call('GET', `${API}/status`, { headers })
      expect(res.status, res.text).toBe(200)
      const { available, ledger } = res.json.data.balances
      return { available: cents(available), ledger: cents(ledger) }
    },
    /** Every card transaction, newest first, paged through 100 at a time. */
    async transactions() {
      const all: Json[] = []
      for (;;) {
        const after = all.length ? `&starting_after=${all[all.length - 1].id}` : ''
        const res = await call('GET', `${API}/transactions?limit=100${after}`, { headers })
        expect(res.status, res.text).toBe(200)
        all.push(...res.json.data.data)
        if (!res.json.data.has_more) return all
      }
    },
  }
}

const fire = (n: number, call: Call, path: string, headers: Record<string, string>, body: Json) =>
  Promise.all(Array.from({ length: n }, () => call('POST', path, { headers, body })))

/** 200 concurrent fundings of 0.01: every one answered, counted once, in one exact sequence. */
async function concurrentFundings(call: Call) {
  const u = await cardholder(call)
  const answers = await fire(200, call, `${API}/simulate-fund`, u.bearer, { amount: 0.01 })
  for (const res of answers) expect(res.status, res.text).toBe(200)
  expect(answers.map((r) => cents(r.json.availableBalance)).sort((a, b) => a - b)).toEqual(
    Array.from({ length: 200 }, (_, i) => i + 1),
  )
  expect(await u.balances()).toEqual({ available: 200, ledger: 200 })

  const txns = await u.transactions()
  expect(txns).toHaveLength(200)
  expect(new Set(txns.map((t) => t.id)).size).toBe(200)
  for (const t of txns)
    expect(t).toMatchObject({
      type: 'funding',
      status: 'posted',
      direction: 'credit',
      amount: 0.01,
    })
  // Newest first, each one cent above the one before it: no two saw the same balance.
  const sequence = Array.from({ length: 200 }, (_, i) => 200 - i)
  expect(txns.map((t) => cents(t.available_balance_after))).toEqual(sequence)
  expect(txns.map((t) => cents(t.ledger_balance_after))).toEqual(sequence)
  return u
}

/** 60 concurrent purchases of 0.25 against 10.00: 40 approved, 20 declined, never below zero. */
async function concurrentPurchases(call: Call) {
  const u = await cardholder(call)
  const funded = await call('POST', `${API}/simulate-fund`, {
    headers: u.bearer,
    body: { amount: 10 },
  })
  expect(funded.status, funded.text).toBe(200)
  const answers = await fire(60, call, `${API}/simulate-purchase`, u.bearer, {
    amount: 0.25,
    merchant: { name: 'Corner Shop' },
  })
  for (const res of answers) expect(res.status, res.text).toBe(201)
  const approved = answers.filter((r) => r.json.data.status === 'pending')
  const declined = answers.filter((r) => r.json.data.status === 'declined')
  expect(approved).toHaveLength(40)
  expect(declined).toHaveLength(20)
  for (const res of declined) expect(res.json.data.decline_reason).toBe('insufficient_funds')
  expect(
    approved.map((r) => cents(r.json.data.available_balance_after)).sort((a, b) => a - b),
  ).toEqual(Array.from({ length: 40 }, (_, i) => i * 25))
  expect(await u.balances()).toEqual({ available: 0, ledger: 1000 })

  const txns = await u.transactions()
  expect(txns).toHaveLength(61)
  expect(new Set(txns.map((t) => t.id)).size).toBe(61)
  expect(txns.filter((t) => t.type === 'purchase' && t.status === 'pending')).toHaveLength(40)
  expect(txns.filter((t) => t.status === 'declined')).toHaveLength(20)
  for (const t of txns) expect(cents(t.available_balance_after)).toBeGreaterThanOrEqual(0)
  return u
}

// On PostgreSQL, requests that collide on one card are run again until each commits
// (SERIALIZABLE): on a loaded machine that takes a while; what is checked is the balance.
describe('concurrent money requests over HTTP', { timeout: 90_000 }, () => {
  it('200 concurrent fundings of 0.01 at one card add exactly 2.00, each listed once', async () => {
    const { call } = await listening()
    await concurrentFundings(call)
  })

  it('60 concurrent purchases of 0.25 against 10.00: 40 approved, 20 declined, never negative', async () => {
    const { call } = await listening()
    await concurrentPurchases(call)
  })

  it('with a data file, a restart restores the same balances and transactions', async () => {
    const dir = tempDirForTest('partner-sandbox-concurrency-')
    const data = join(dir, 'state.json')
    const first = await listening({ data })
    const funder = await concurrentFundings(first.call)
    const buyer = await concurrentPurchases(first.call)
    const before = {
      funder: { balances: await funder.balances(), txns: await funder.transactions() },
      buyer: { balances: await buyer.balances(), txns: await buyer.transactions() },
    }
    // Closed here to write its data file; its teardown's close then does nothing
    // (test/sandbox-close.test.ts).
    await first.sandbox.close()

    const { call } = await listening({ data })
    for (const [who, u] of [
      ['funder', funder],
      ['buyer', buyer],
    ] as const) {
      const reads = cardReads(call, u.bearer)
      expect(await reads.balances(), who).toEqual(before[who].balances)
      const txns = await reads.transactions()
      expect(
        txns.map((t) => t.id),
        who,
      ).toEqual(before[who].txns.map((t) => t.id))
      expect(txns, who).toEqual(before[who].txns)
    }
  })
})
