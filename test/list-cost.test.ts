import { describe, expect, it } from 'vitest'
import type { EventRow, VerificationCodeRow } from '../src/store/records.js'
import type { TransactionRow } from '../src/store/records-money.js'
import { acme, loginSession, onboardedUser, setup, testEngine } from './helpers.js'
import { journalEntry, standaloneJournal } from './journal-entry.js'

/**
 * A list or a login costs its page, not the history (issue 22): each test gives one user or
 * partner a long history of rows that count every read of their fields, then reads a page and
 * counts the rows it touched. Reading the history would touch every one of them.
 */

const API = '/api/v1/partner'

/** Rows that note their id in `touched` whenever a field other than `id` is read. */
function tracer() {
  const touched = new Set<string>()
  const wrap = <T extends { id: string }>(row: T): T =>
    new Proxy(row, {
      get(target, key, receiver) {
        if (key !== 'id') touched.add(target.id)
        return Reflect.get(target, key, receiver)
      },
    })
  return { touched, wrap }
}

const FROZEN = { frozenAt: true } as const

const at = (base: number, i: number) => new Date(base + i * 1000).toISOString()

/**
 * The traced rows live in the memory engine's store, which hands the same objects to every
 * read. PostgreSQL sends each read's rows over the wire as new objects, so nothing can trace
 * them; there a page is one indexed query with a LIMIT (src/state/postgres/statements.ts).
 */
const memoryStore = it.skipIf(testEngine === 'postgres')

describe('a page of a long history', () => {
  memoryStore(
    'a page of 50 of 10,000 transactions touches about 50 rows, cursor included, read after read',
    async () => {
      const { sandbox, call } = await setup({}, FROZEN)
      const u = await onboardedUser(call)
      const card = sandbox.store.get('cards', u.cardId)
      if (!card) throw new Error('no card')
      const { touched, wrap } = tracer()
      const base = sandbox.clock.now() - 20_000_000
      const template: TransactionRow = {
        id: '',
        partner_id: card.partner_id,
        user_id: u.userId,
        card_id: card.id,
        type: 'purchase',
        status: 'posted',
        direction: 'debit',
        amount_cents: 100,
        currency: 'USD',
        description: 'Coffee',
        merchant: null,
        deposit_id: null,
        dispute_id: null,
        original_transaction_id: null,
        decline_reason: null,
        available_balance_after_cents: 0,
        ledger_balance_after_cents: 0,
        refunded_cents: 0,
        created_at: '',
        updated_at: '',
        posted_at: null,
      }
      const id = (i: number) => `txn_hist${String(i).padStart(5, '0')}`
      sandbox.store.batch((w) => {
        for (let i = 0; i < 10_000; i++) {
          const time = at(base, i)
          w.put(
            'transactions',
            wrap({ ...template, id: id(i), created_at: time, updated_at: time }),
          )
        }
      })
      const as = (path: string) => call('GET', path, { creds: acme, headers: u.bearer })

      touched.clear()
      const first = await as(`${API}/cards/transactions?limit=50`)
      expect(first.status, first.text).toBe(200)
      expect(first.json.data.data.map((t: { id: string }) => t.id)).toEqual(
        Array.from({ length: 50 }, (_, i) => id(9_999 - i)),
      )
      expect(first.json.data.has_more).toBe(true)
      expect(touched.size).toBeLessThanOrEqual(51)

      touched.clear()
      const second = await as(`${API}/cards/transactions?limit=50&starting_after=${id(9_950)}`)
      expect(second.json.data.data[0].id).toBe(id(9_949))
      expect(second.json.data.data).toHaveLength(50)
      // The page, the row past it (has_more) and the cursor: a partner's reads check the
      // partner of each row they answer or accept (TenantScope), each row once.
      expect(touched.size).toBeLessThanOrEqual(52)

      // The other list, with a filter that matches the newest rows.
      touched.clear()
      const filtered = await as(
        `${API}/transactions?limit=50&type=purchase&starting_after=${id(5)}`,
      )
      expect(filtered.json.data.data.map((t: { id: string }) => t.id)).toEqual(
        [4, 3, 2, 1, 0].map(id),
      )
      expect(touched.size).toBeLessThanOrEqual(6)

      // Read again after another user's write: the same page, read through at the same cost
      // (no copy is kept: a replica holds nothing another may change).
      await onboardedUser(call)
      touched.clear()
      const again = await as(`${API}/cards/transactions?limit=50`)
      expect(again.text).toBe(first.text)
      expect(touched.size).toBeLessThanOrEqual(51)

      // The user's own write shows at once.
      const funded = await call('POST', `${API}/cards/simulate-fund`, {
        creds: acme,
        headers: u.bearer,
        body: { amount: 5 },
      })
      expect(funded.status, funded.text).toBe(200)
      const after = await as(`${API}/cards/transactions?limit=50`)
      expect(after.json.data.data[0].type).toBe('funding')
      expect(after.json.data.data[1].id).toBe(id(9_999))
    },
  )

  memoryStore(
    'login and verify for a user with 5,000 past codes touch only the open one',
    async () => {
      const { sandbox, call } = await setup({}, FROZEN)
      const u = await onboardedUser(call)
      const [template] = sandbox.store.lookup('verification_codes', 'codes_by_user', u.userId)
      if (!template) throw new Error('no code')
      const { touched, wrap } = tracer()
      sandbox.store.batch((w) => {
        for (let i = 0; i < 5_000; i++) {
          const row: VerificationCodeRow = { ...template, id: `otp_past${i}`, ended_reason: 'used' }
          w.put('verification_codes', wrap(row))
        }
      })
      touched.clear()
      const session = await loginSession(call, u.user.email, u.user.password)
      expect(session.user.id).toBe(u.userId)
      expect(touched.size).toBe(0)
    },
  )

  memoryStore(
    "a page of a partner's 10,000 events touches about the page, with or without the partner",
    async () => {
      const { sandbox, call } = await setup({}, FROZEN)
      const partnerId = sandbox.store.lookup('partners', 'partners_by_api_key', acme.key)[0]
        ?.id as string
      const { touched, wrap } = tracer()
      const base = sandbox.clock.now() - 20_000_000
      const id = (i: number) => `evt_hist${String(i).padStart(5, '0')}`
      sandbox.store.batch((w) => {
        for (let i = 0; i < 10_000; i++) {
          const row: EventRow = {
            id: id(i),
            partner_id: partnerId,
            type: 'webhook.test',
            created_at: at(base, i),
            data: { object: { n: i } },
          }
          w.put('events', wrap(row))
        }
      })
      for (const query of [`partner_id=${partnerId}&limit=50`, 'limit=50']) {
        touched.clear()
        const page = await call('GET', `/_sandbox/events?${query}`, { creds: null })
        expect(page.status, page.text).toBe(200)
        expect(page.json.data[0].id).toBe(id(9_999))
        expect(page.json.data).toHaveLength(50)
        expect(page.json.has_more).toBe(true)
        expect(touched.size).toBeLessThanOrEqual(51)
      }
    },
  )
})

describe('the request journal', () => {
  it("a partner's page reads only that partner's entries, however busy the others are", async () => {
    const journal = await standaloneJournal(5_000, 10)
    const { touched, wrap } = tracer()
    for (let n = 0; n < 7_000; n++) {
      journal.add(wrap(journalEntry(n, n % 100 === 0 ? 'quiet' : 'busy')))
    }
    touched.clear()
    const page = await journal.list({ partner_id: 'quiet', limit: 10 })
    expect(page.data.map((e) => e.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `req_${6_900 - 100 * i}`),
    )
    expect(page.has_more).toBe(true)
    expect(touched.size).toBeLessThanOrEqual(11)
    touched.clear()
    // 50 of the quiet partner's 70 entries are still among the newest 5,000.
    expect(await journal.count({ partner_id: 'quiet' })).toBe(50)
    expect(touched.size).toBe(50)
  })
})

describe('time order', () => {
  it('a transaction made after the clock moved back is listed by its time, not its creation', async () => {
    const { sandbox, call } = await setup({}, FROZEN)
    const u = await onboardedUser(call)
    const fund = (amount: number) =>
      call('POST', `${API}/cards/simulate-fund`, {
        creds: acme,
        headers: u.bearer,
        body: { amount },
      })
    expect((await fund(1)).status).toBe(200)
    expect((await fund(2)).status).toBe(200)
    await sandbox.clock.set(sandbox.clock.now() - 3_600_000)
    expect((await fund(3)).status).toBe(200)
    for (const path of ['/cards/transactions', '/transactions']) {
      const list = await call('GET', `${API}${path}?limit=2`, { creds: acme, headers: u.bearer })
      const amounts = list.json.data.data.map((t: { amount: number }) => t.amount)
      expect(amounts).toEqual([2, 1])
      const rest = await call(
        'GET',
        `${API}${path}?limit=2&starting_after=${list.json.data.data[1].id}`,
        {
          creds: acme,
          headers: u.bearer,
        },
      )
      expect(rest.json.data.data.map((t: { amount: number }) => t.amount)).toEqual([3])
      expect(rest.json.data.has_more).toBe(false)
    }
  })
})
