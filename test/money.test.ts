import { describe, expect, it } from 'vitest'
import type { SandboxOptions } from '../src/index.js'
import {
  acme,
  type Call,
  type Creds,
  connectBank,
  loginAs,
  newUser,
  northwind,
  offeredBankAccounts,
  onboardedUser,
  onboardingApplicant,
  receiverForTest,
  registerAndLogin,
  setup,
  walkAndComplete,
} from './helpers.js'

/**
 * Money through the API only (app.request): simulate-fund, bank connect and deposits,
 * purchases and their lifecycle, disputes, the transaction lists, the ledger invariant and
 * tenant isolation. Spec sections 1, 4 and 6; DESIGN.md section 3 (decimal USD with at most
 * 2 decimals, never a rounding error; lists with limit / starting_after / has_more).
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read response fields freely and assert each one
type Json = any

const API = '/api/v1'
const FUND = `${API}/partner/cards/simulate-fund`
const STATUS = `${API}/partner/cards/status`
const CARD_TXNS = `${API}/partner/cards/transactions`
const DEPOSITS = `${API}/partner/cards/deposits`
const PURCHASE = `${API}/partner/cards/simulate-purchase`
const FREEZE = `${API}/partner/cards/freeze`
const UNFREEZE = `${API}/partner/cards/unfreeze`
const TXNS = `${API}/partner/transactions`
const DISPUTES = `${API}/partner/disputes`
const CONNECT = `${API}/external-bank-account-connect`
const ENROLL = `${CONNECT}/enrollment/public`

const MINUTE = 60_000
const DAY = 86_400_000

/** A sandbox whose one scenario has the given money sections. */
const withScenario = (sections: Record<string, unknown>, options: SandboxOptions = {}) =>
  setup({
    ...options,
    scenario: { name: 'money-test', description: 'money test scenario', ...sections },
  })

const advance = async (call: Call, by: string) => {
  const res = await call('POST', '/_sandbox/clock/advance', { creds: null, body: { by } })
  expect(res.status, res.text).toBe(200)
  return res.json
}

const freezeClock = async (call: Call) => {
  const res = await call('POST', '/_sandbox/clock/freeze', { creds: null })
  expect(res.status, res.text).toBe(200)
}

/** A 400 validation error whose details name `field`. */
function expectFieldError(res: { status: number; json: Json; text: string }, field: string) {
  expect(res.status, res.text).toBe(400)
  expect(res.json.success).toBe(false)
  expect(res.json.error.code).toBe('validation_error')
  expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(field)
}

/** A user with an active card, and calls made with their session. */
async function cardholder(call: Call, creds: Creds = acme) {
  const u = await onboardedUser(call, {}, creds)
  const as = (method: string, path: string, body?: unknown) =>
    call(method, path, { creds, headers: u.bearer, body })
  return { ...u, creds, ...moneyCalls(as) }
}

type As = (method: string, path: string, body?: unknown) => ReturnType<Call>

function moneyCalls(as: As) {
  return {
    as,
    async balances(): Promise<{ available: number; ledger: number }> {
      const res = await as('GET', STATUS)
      expect(res.status, res.text).toBe(200)
      const { available, ledger } = res.json.data.balances
      return { available, ledger }
    },
    async fund(amount: number) {
      const res = await as('POST', FUND, { amount })
      expect(res.status, res.text).toBe(200)
      return res.json
    },
    async purchase(amount: number, name = 'Corner Shop') {
      const res = await as('POST', PURCHASE, { amount, merchant: { name } })
      expect(res.status, res.text).toBe(201)
      return res.json.data
    },
    async clear(id: string) {
      const res = await as('POST', `${TXNS}/${id}/simulate-clearing`)
      expect(res.status, res.text).toBe(200)
      return res.json.data
    },
    async reverse(id: string) {
      const res = await as('POST', `${TXNS}/${id}/simulate-reversal`)
      expect(res.status, res.text).toBe(200)
      return res.json.data
    },
    async txn(id: string) {
      const res = await as('GET', `${TXNS}/${id}`)
      expect(res.status, res.text).toBe(200)
      return res.json.data
    },
    async list(path = TXNS) {
      const res = await as('GET', `${path}${path.includes('?') ? '&' : '?'}limit=100`)
      expect(res.status, res.text).toBe(200)
      return res.json.data.data as Json[]
    },
    async dispute(transaction_id: string, extra: Record<string, unknown> = {}) {
      const res = await as('POST', DISPUTES, { transaction_id, reason: 'fraudulent', ...extra })
      expect(res.status, res.text).toBe(201)
      return res.json.data
    },
    async deposit(amount: number, external_bank_account_id: string) {
      const res = await as('POST', DEPOSITS, { amount, external_bank_account_id })
      expect(res.status, res.text).toBe(201)
      return res.json.data
    },
  }
}

/** A posted purchase of `amount` (authorized, then cleared). */
async function postedPurchase(u: ReturnType<typeof moneyCalls>, amount: number, name?: string) {
  const auth = await u.purchase(amount, name)
  expect(auth.status).toBe('pending')
  return u.clear(auth.id)
}

/** Events from the control plane, newest first. */
async function eventsOf(call: Call, type?: string, partnerId?: string): Promise<Json[]> {
  const q = new URLSearchParams({ limit: '500' })
  if (type) q.set('type', type)
  if (partnerId) q.set('partner_id', partnerId)
  const res = await call('GET', `/_sandbox/events?${q}`, { creds: null })
  expect(res.status, res.text).toBe(200)
  return res.json.data
}

async function partnerId(call: Call, creds: Creds): Promise<string> {
  const res = await call('GET', `${API}/partner/me`, { creds })
  expect(res.status, res.text).toBe(200)
  return res.json.partner.id
}

async function snapshotRows(call: Call, collection: string): Promise<Json[]> {
  const res = await call('GET', '/_sandbox/snapshot', { creds: null })
  expect(res.status, res.text).toBe(200)
  return Object.values(res.json.collections[collection])
}

describe('the happy path (spec section 1)', () => {
  it('register → login → verify-otp → onboarding → complete → simulate-fund → status → transactions', async () => {
    const { call } = await setup()
    const user = newUser()
    const reg = await call('POST', `${API}/partner/auth/register`, { body: user })
    expect(reg.status, reg.text).toBe(201)
    expect(reg.json.email).toBe(user.email)

    const login = await call('POST', `${API}/partner/auth/login`, {
      body: { email: user.email, password: user.password },
    })
    expect(login.status, login.text).toBe(200)
    const inbox = await call(
      'GET',
      `/_sandbox/inbox?kind=login_code&email=${encodeURIComponent(user.email)}`,
      { creds: null },
    )
    const verify = await call('POST', `${API}/partner/auth/verify-otp`, {
      body: { email: user.email, code: inbox.json.data[0].code },
    })
    expect(verify.status, verify.text).toBe(200)
    const headers = { authorization: `Bearer ${verify.json.sessionToken}` }

    const start = await call('POST', `${API}/partner/cards/onboarding`, {
      headers,
      body: onboardingApplicant(user),
    })
    expect(start.status, start.text).toBe(200)
    const done = await walkAndComplete(call, start.json.data.onboardingId, {
      headers,
      body: { result: 'pass', data: { from: 'embed' }, agreement_accepted: true },
    })
    expect(done.status, done.text).toBe(200)
    const card = done.json.data.card
    expect(card).toMatchObject({ status: 'active', available_balance: 0, ledger_balance: 0 })

    const funded = await call('POST', FUND, { headers, body: { amount: 125.5 } })
    expect(funded.status, funded.text).toBe(200)
    expect(funded.json.success).toBe(true)
    expect(typeof funded.json.message).toBe('string')
    expect(funded.json.message).toContain('125.50')
    expect(funded.json.availableBalance).toBe(125.5)

    const status = await call('GET', STATUS, { headers })
    expect(status.status, status.text).toBe(200)
    expect(status.json.success).toBe(true)
    expect(status.json.data.balances).toEqual({ available: 125.5, ledger: 125.5, currency: 'USD' })
    expect(status.json.data.card).toMatchObject({
      id: card.id,
      available_balance: 125.5,
      ledger_balance: 125.5,
    })

    const txns = await call('GET', `${CARD_TXNS}?limit=5`, { headers })
    expect(txns.status, txns.text).toBe(200)
    expect(txns.json.success).toBe(true)
    expect(txns.json.data.has_more).toBe(false)
    expect(txns.json.data.data).toHaveLength(1)
    const [txn] = txns.json.data.data
    expect(txn).toMatchObject({
      card_id: card.id,
      type: 'funding',
      status: 'posted',
      direction: 'credit',
      amount: 125.5,
      currency: 'USD',
      available_balance_after: 125.5,
      ledger_balance_after: 125.5,
    })
    expect(txn.id).toMatch(/^txn_/)
    expect(txn.posted_at).toEqual(expect.any(String))

    const events = await eventsOf(call, 'card.funded')
    const event = events.find((e) => e.data.object.card_id === card.id)
    expect(event).toMatchObject({
      object: 'event',
      type: 'card.funded',
      livemode: false,
      data: {
        object: {
          card_id: card.id,
          user_id: reg.json.userId,
          amount: 125.5,
          transaction_id: txn.id,
          available_balance: 125.5,
        },
      },
    })
    expect(event.id).toMatch(/^evt_/)
  })
})

describe('simulate-fund', () => {
  it('refuses a bad amount with a 400 naming amount, and changes nothing', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(10)
    const bad: unknown[] = [
      { amount: 0 },
      { amount: -5 },
      { amount: 1.005 },
      { amount: 0.001 },
      { amount: '10' },
      {},
      { amount: null },
      { amount: 10000.01 },
    ]
    for (const body of bad) {
      const res = await call('POST', FUND, { headers: u.bearer, body })
      expectFieldError(res, 'amount')
    }
    expect(await u.balances()).toEqual({ available: 10, ledger: 10 })
    expect(await u.list(CARD_TXNS)).toHaveLength(1)
    // The maximum itself is fine.
    expect((await u.fund(10000)).availableBalance).toBe(10010)
  })

  it('a scenario funding.max_amount lowers the maximum', async () => {
    const { call } = await withScenario({ funding: { max_amount: 50 } })
    const u = await cardholder(call)
    expectFieldError(await u.as('POST', FUND, { amount: 50.01 }), 'amount')
    expect(await u.balances()).toEqual({ available: 0, ledger: 0 })
    expect((await u.fund(50)).availableBalance).toBe(50)
  })

  it('needs a card (409), an active one (409), and a session (401)', async () => {
    const { call } = await setup()
    const noCard = await registerAndLogin(call)
    const res = await call('POST', FUND, { headers: noCard.bearer, body: { amount: 5 } })
    expect(res.status, res.text).toBe(409)
    expect(res.json.error.code).toBe('conflict')

    const u = await cardholder(call)
    await u.fund(5)
    expect((await u.as('POST', FREEZE)).json.data.status).toBe('frozen')
    const frozen = await u.as('POST', FUND, { amount: 5 })
    expect(frozen.status, frozen.text).toBe(409)
    expect(await u.balances()).toEqual({ available: 5, ledger: 5 })
    expect((await u.as('POST', UNFREEZE)).json.data.status).toBe('active')
    expect((await u.fund(5)).availableBalance).toBe(10)

    const anonymous = await call('POST', FUND, { body: { amount: 5 } })
    expect(anonymous.status, anonymous.text).toBe(401)
    const noOrg = await call('POST', FUND, { creds: null, headers: u.bearer, body: { amount: 5 } })
    expect(noOrg.status, noOrg.text).toBe(401)
    const otherPartner = await call('POST', FUND, {
      creds: northwind,
      headers: u.bearer,
      body: { amount: 5 },
    })
    expect(otherPartner.status, otherPartner.text).toBe(401)
    expect(await u.balances()).toEqual({ available: 10, ledger: 10 })
  })

  it('amounts never drift: 0.1 + 0.2 is exactly 0.3', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(0.1)
    const second = await call('POST', FUND, { headers: u.bearer, body: { amount: 0.2 } })
    expect(second.json.availableBalance).toBe(0.3)
    expect(second.text).not.toContain('0.30000000000000004')
    expect(await u.balances()).toEqual({ available: 0.3, ledger: 0.3 })
    const [latest] = await u.list(CARD_TXNS)
    expect(latest.available_balance_after).toBe(0.3)
    expect(latest.ledger_balance_after).toBe(0.3)
    // More sums that go wrong in floating point: 0.3 + 1.1 + 2.2 + 0.07 = 3.67.
    for (const amount of [1.1, 2.2, 0.07]) await u.fund(amount)
    expect(await u.balances()).toEqual({ available: 3.67, ledger: 3.67 })
    const status = await u.as('GET', STATUS)
    expect(status.text).toContain('"available":3.67')
  })

  it('100 concurrent fundings of 0.01 end at exactly 1.00, none lost', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        call('POST', FUND, { headers: u.bearer, body: { amount: 0.01 } }),
      ),
    )
    for (const res of answers) expect(res.status, res.text).toBe(200)
    const expected = Array.from({ length: 100 }, (_, i) => (i + 1) / 100)
    expect(answers.map((r) => r.json.availableBalance).sort((a, b) => a - b)).toEqual(expected)
    expect(await u.balances()).toEqual({ available: 1, ledger: 1 })

    const txns = await u.list(CARD_TXNS)
    expect(txns).toHaveLength(100)
    for (const t of txns)
      expect(t).toMatchObject({ type: 'funding', status: 'posted', amount: 0.01 })
    const sortedAfter = (key: string) => txns.map((t) => t[key] as number).sort((a, b) => a - b)
    expect(sortedAfter('available_balance_after')).toEqual(expected)
    expect(sortedAfter('ledger_balance_after')).toEqual(expected)
    // Newest first: the newest transaction carries the final balance.
    expect(txns[0].available_balance_after).toBe(1)
    const funded = (await eventsOf(call, 'card.funded')).filter(
      (e) => e.data.object.card_id === u.cardId,
    )
    expect(funded).toHaveLength(100)
  })
})

describe('bank connect and deposits', () => {
  /** A connect session: the token, and the accounts its hosted page offers. */
  async function connectSession(u: Awaited<ReturnType<typeof cardholder>>, call: Call) {
    const res = await u.as('POST', `${CONNECT}/token`)
    expect(res.status, res.text).toBe(201)
    const { connect_token: token, connect_url } = res.json.data
    const url = new URL(connect_url)
    expect(url.pathname).toBe(`${CONNECT}/connect`)
    const page = await call('GET', `${url.pathname}${url.search}`, { creds: null })
    return { token: token as string, path: `${url.pathname}${url.search}`, page }
  }

  it('connects a bank through the hosted page; the token works once and for 15 minutes', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    const { token, path, page } = await connectSession(u, call)
    expect(page.status).toBe(200)
    const offered = offeredBankAccounts(page.text)
    expect(offered.length).toBeGreaterThan(0)

    // An account the page did not offer: 400, and the token is still good.
    const notOffered = await call('POST', ENROLL, {
      creds: null,
      body: { token, institution_id: offered[0]?.institution_id, account_id: 'acct_made_up' },
    })
    expectFieldError(notOffered, 'account_id')
    const wrongBank = offered.find((a) => a.institution_id !== offered[0]?.institution_id)
    const mixed = await call('POST', ENROLL, {
      creds: null,
      body: {
        token,
        institution_id: wrongBank?.institution_id,
        account_id: offered[0]?.account_id,
      },
    })
    expectFieldError(mixed, 'account_id')

    const enrolled = await call('POST', ENROLL, { creds: null, body: { token, ...offered[0] } })
    expect(enrolled.status, enrolled.text).toBe(201)
    expect(enrolled.json.data).toMatchObject({
      institution_id: offered[0]?.institution_id,
      status: 'active',
    })
    expect(enrolled.json.data.id).toMatch(/^bank_/)

    const again = await call('POST', ENROLL, { creds: null, body: { token, ...offered[1] } })
    expect(again.status, again.text).toBe(401)
    const usedPage = await call('GET', path, { creds: null })
    expect(usedPage.status).toBe(410)
    expect(usedPage.text).toContain('already used')

    const accounts = await u.as('GET', `${CONNECT}/accounts`)
    expect(accounts.json.data.data.map((a: Json) => a.id)).toEqual([enrolled.json.data.id])
    const created = (await eventsOf(call, 'external_bank_account.created')).filter(
      (e) => e.data.object.id === enrolled.json.data.id,
    )
    expect(created).toHaveLength(1)

    // An expired token: 16 minutes later, neither the page nor the enrollment works.
    const late = await connectSession(u, call)
    await advance(call, '16m')
    const expiredPage = await call('GET', late.path, { creds: null })
    expect(expiredPage.status).toBe(410)
    expect(expiredPage.headers.get('content-type')).toContain('text/html')
    expect(expiredPage.text).toContain('has expired')
    const expired = await call('POST', ENROLL, {
      creds: null,
      body: { token: late.token, ...offeredBankAccounts(late.page.text)[0] },
    })
    expect(expired.status, expired.text).toBe(401)
    expect((await u.as('GET', `${CONNECT}/accounts`)).json.data.data).toHaveLength(1)
  })

  it('a deposit is pending for 30 minutes, then succeeds and credits the card', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    const bank = await connectBank(call, u.bearer)
    const dep = await u.deposit(250, bank)
    expect(dep).toMatchObject({
      card_id: u.cardId,
      external_bank_account_id: bank,
      amount: 250,
      currency: 'USD',
      status: 'pending',
      failure_reason: null,
    })
    expect(dep.id).toMatch(/^dep_/)
    expect(Date.parse(dep.settles_at) - Date.parse(dep.created_at)).toBe(30 * MINUTE)
    expect(await u.balances()).toEqual({ available: 0, ledger: 0 })
    expect(await u.txn(dep.transaction_id)).toMatchObject({
      type: 'deposit',
      status: 'pending',
      direction: 'credit',
      amount: 250,
      deposit_id: dep.id,
    })

    await advance(call, '29m')
    expect((await u.as('GET', `${DEPOSITS}/${dep.id}`)).json.data.status).toBe('pending')
    expect(await u.balances()).toEqual({ available: 0, ledger: 0 })

    await advance(call, '1m')
    const settled = await u.as('GET', `${DEPOSITS}/${dep.id}`)
    expect(settled.status, settled.text).toBe(200)
    expect(settled.json.data).toMatchObject({
      id: dep.id,
      status: 'succeeded',
      failure_reason: null,
    })
    expect(await u.balances()).toEqual({ available: 250, ledger: 250 })
    const txn = await u.txn(dep.transaction_id)
    expect(txn).toMatchObject({ status: 'posted', available_balance_after: 250 })
    expect(txn.posted_at).toEqual(expect.any(String))

    const mine = (events: Json[]) => events.filter((e) => e.data.object.id === dep.id)
    expect(mine(await eventsOf(call, 'deposit.created'))).toHaveLength(1)
    const succeeded = mine(await eventsOf(call, 'deposit.succeeded'))
    expect(succeeded).toHaveLength(1)
    expect(succeeded[0].data.object).toMatchObject({ status: 'succeeded', amount: 250 })
    expect(mine(await eventsOf(call, 'deposit.failed'))).toHaveLength(0)
    // Settling again (another advance) changes nothing.
    await advance(call, '1h')
    expect(await u.balances()).toEqual({ available: 250, ledger: 250 })
  })

  it('an amount with cents .51 fails with insufficient_funds and credits nothing', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(10)
    const bank = await connectBank(call, u.bearer)
    const dep = await u.deposit(40.51, bank)
    expect(dep.status).toBe('pending')
    await advance(call, '30m')
    const failed = await u.as('GET', `${DEPOSITS}/${dep.id}`)
    expect(failed.json.data).toMatchObject({
      status: 'failed',
      failure_reason: 'insufficient_funds',
    })
    expect(await u.balances()).toEqual({ available: 10, ledger: 10 })
    expect((await u.txn(dep.transaction_id)).status).toBe('failed')
    const events = (await eventsOf(call, 'deposit.failed')).filter(
      (e) => e.data.object.id === dep.id,
    )
    expect(events).toHaveLength(1)
    expect(events[0].data.object.failure_reason).toBe('insufficient_funds')
    expect(
      (await eventsOf(call, 'deposit.succeeded')).filter((e) => e.data.object.id === dep.id),
    ).toHaveLength(0)
  })

  it('lists deposits newest first and reads one; other users and bad input are refused', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    const bank = await connectBank(call, u.bearer)
    const first = await u.deposit(10, bank)
    const second = await u.deposit(20.25, bank)

    const list = await u.as('GET', DEPOSITS)
    expect(list.status, list.text).toBe(200)
    expect(list.json.success).toBe(true)
    expect(list.json.data.data.map((d: Json) => d.id)).toEqual([second.id, first.id])
    expect(list.json.data.has_more).toBe(false)
    const paged = await u.as('GET', `${DEPOSITS}?limit=1`)
    expect(paged.json.data).toMatchObject({ has_more: true, data: [{ id: second.id }] })
    const one = await u.as('GET', `${DEPOSITS}/${first.id}`)
    expect(one.json.data).toMatchObject({ id: first.id, amount: 10, status: 'pending' })

    const other = await cardholder(call)
    expect((await other.as('GET', `${DEPOSITS}/${first.id}`)).status).toBe(404)
    expect((await other.as('GET', DEPOSITS)).json.data.data).toEqual([])
    expect((await u.as('GET', `${DEPOSITS}/dep_nope`)).status).toBe(404)
    expect((await u.as('GET', `${DEPOSITS}/nope`)).status).toBe(400)

    // Another user's bank account cannot be used.
    const stolen = await other.as('POST', DEPOSITS, { amount: 5, external_bank_account_id: bank })
    expectFieldError(stolen, 'external_bank_account_id')
    expectFieldError(
      await u.as('POST', DEPOSITS, { amount: 5, external_bank_account_id: 'bank_nope' }),
      'external_bank_account_id',
    )
    expectFieldError(
      await u.as('POST', DEPOSITS, { amount: 5.001, external_bank_account_id: bank }),
      'amount',
    )
    expectFieldError(
      await u.as('POST', DEPOSITS, { amount: 10000.01, external_bank_account_id: bank }),
      'amount',
    )
    expect((await u.as('GET', DEPOSITS)).json.data.data).toHaveLength(2)
  })

  it('a removed bank account cannot be used; a frozen card takes no deposit', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    const bank = await connectBank(call, u.bearer)
    const removed = await u.as('DELETE', `${CONNECT}/accounts/${bank}`)
    expect(removed.status, removed.text).toBe(200)
    expect(removed.json.data.status).toBe('removed')
    expect((await u.as('GET', `${CONNECT}/accounts`)).json.data.data).toEqual([])
    expectFieldError(
      await u.as('POST', DEPOSITS, { amount: 5, external_bank_account_id: bank }),
      'external_bank_account_id',
    )
    expect((await u.as('DELETE', `${CONNECT}/accounts/${bank}`)).status).toBe(404)
    expect((await u.as('GET', DEPOSITS)).json.data.data).toEqual([])

    const other = await connectBank(call, u.bearer)
    await u.as('POST', FREEZE)
    const frozen = await u.as('POST', DEPOSITS, { amount: 5, external_bank_account_id: other })
    expect(frozen.status, frozen.text).toBe(409)
    expect((await u.as('GET', DEPOSITS)).json.data.data).toEqual([])
  })
})

describe('purchases', () => {
  it('an approved purchase is a pending hold: available drops, ledger does not', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(100)
    const res = await u.as('POST', PURCHASE, {
      amount: 30.25,
      merchant: { name: 'Blue Bottle', category: 'restaurants', city: 'Oakland' },
    })
    expect(res.status, res.text).toBe(201)
    expect(res.json.data).toMatchObject({
      type: 'purchase',
      status: 'pending',
      direction: 'debit',
      amount: 30.25,
      decline_reason: null,
      merchant: { name: 'Blue Bottle', category: 'restaurants', city: 'Oakland', country: 'US' },
      available_balance_after: 69.75,
      ledger_balance_after: 100,
      posted_at: null,
    })
    expect(await u.balances()).toEqual({ available: 69.75, ledger: 100 })
    const created = (await eventsOf(call, 'card_transaction.created')).filter(
      (e) => e.data.object.id === res.json.data.id,
    )
    expect(created).toHaveLength(1)
    expect(created[0].data.object).toMatchObject({ status: 'pending', amount: 30.25 })
    expectFieldError(
      await u.as('POST', PURCHASE, { amount: 1.005, merchant: { name: 'X' } }),
      'amount',
    )
    expectFieldError(await u.as('POST', PURCHASE, { amount: 1 }), 'merchant')
    expect(await u.balances()).toEqual({ available: 69.75, ledger: 100 })
  })

  it('declines for insufficient funds without touching the balances', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(20)
    const declined = await u.purchase(20.01)
    expect(declined).toMatchObject({ status: 'declined', decline_reason: 'insufficient_funds' })
    expect(await u.balances()).toEqual({ available: 20, ledger: 20 })
    // Holds count: 15 held, so 5.01 more is too much, 5 is not.
    await u.purchase(15)
    expect((await u.purchase(5.01)).decline_reason).toBe('insufficient_funds')
    expect((await u.purchase(5)).status).toBe('pending')
    expect(await u.balances()).toEqual({ available: 0, ledger: 20 })
    const declinedList = await u.list(`${TXNS}?status=declined`)
    expect(declinedList.map((t) => t.amount)).toEqual([5.01, 20.01])
  })

  it('a frozen card declines with card_frozen', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(50)
    await u.as('POST', FREEZE)
    expect(await u.purchase(10)).toMatchObject({
      status: 'declined',
      decline_reason: 'card_frozen',
    })
    expect(await u.balances()).toEqual({ available: 50, ledger: 50 })
    await u.as('POST', UNFREEZE)
    expect((await u.purchase(10)).status).toBe('pending')
    expect(await u.balances()).toEqual({ available: 40, ledger: 50 })

    const noCard = await registerAndLogin(call)
    const res = await call('POST', PURCHASE, {
      headers: noCard.bearer,
      body: { amount: 1, merchant: { name: 'X' } },
    })
    expect(res.status, res.text).toBe(409)
  })

  it('scenario purchases.rules decline by merchant pattern and amount', async () => {
    const { call } = await withScenario({
      purchases: {
        rules: [
          { merchant: 'Lucky*Casino', decline_reason: 'merchant_blocked' },
          { amount_over: 500, decline_reason: 'amount_limit' },
        ],
      },
    })
    const u = await cardholder(call)
    await u.fund(1000)
    expect(await u.purchase(5, 'Lucky Star Casino')).toMatchObject({
      status: 'declined',
      decline_reason: 'merchant_blocked',
    })
    expect(await u.purchase(500.01, 'Hardware Store')).toMatchObject({
      status: 'declined',
      decline_reason: 'amount_limit',
    })
    expect(await u.balances()).toEqual({ available: 1000, ledger: 1000 })
    expect((await u.purchase(500, 'Hardware Store')).status).toBe('pending')
    expect((await u.purchase(5, 'Casino Lucky')).status).toBe('pending')
    expect(await u.balances()).toEqual({ available: 495, ledger: 1000 })
  })

  it('clearing posts a purchase once; reversal releases a pending hold once', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(100)
    const a = await u.purchase(30)
    const cleared = await u.clear(a.id)
    expect(cleared).toMatchObject({
      id: a.id,
      status: 'posted',
      available_balance_after: 70,
      ledger_balance_after: 70,
    })
    expect(cleared.posted_at).toEqual(expect.any(String))
    expect(await u.balances()).toEqual({ available: 70, ledger: 70 })
    expect((await u.as('POST', `${TXNS}/${a.id}/simulate-clearing`)).status).toBe(409)
    expect((await u.as('POST', `${TXNS}/${a.id}/simulate-reversal`)).status).toBe(409)
    expect(await u.balances()).toEqual({ available: 70, ledger: 70 })

    const b = await u.purchase(25)
    expect(await u.balances()).toEqual({ available: 45, ledger: 70 })
    expect(await u.reverse(b.id)).toMatchObject({ status: 'reversed', available_balance_after: 70 })
    expect(await u.balances()).toEqual({ available: 70, ledger: 70 })
    expect((await u.as('POST', `${TXNS}/${b.id}/simulate-reversal`)).status).toBe(409)
    expect((await u.as('POST', `${TXNS}/${b.id}/simulate-clearing`)).status).toBe(409)

    const declined = await u.purchase(1000)
    expect((await u.as('POST', `${TXNS}/${declined.id}/simulate-clearing`)).status).toBe(409)
    const [funding] = await u.list(`${TXNS}?type=funding`)
    expect((await u.as('POST', `${TXNS}/${funding.id}/simulate-clearing`)).status).toBe(409)
    expect(await u.balances()).toEqual({ available: 70, ledger: 70 })

    const updated = await eventsOf(call, 'card_transaction.updated')
    const statuses = (id: string) =>
      updated.filter((e) => e.data.object.id === id).map((e) => e.data.object.status)
    expect(statuses(a.id)).toEqual(['posted'])
    expect(statuses(b.id)).toEqual(['reversed'])
  })

  it('refunds credit a posted purchase, whole or in part, never more than is left', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(100)
    const p = await postedPurchase(u, 40)
    expect(await u.balances()).toEqual({ available: 60, ledger: 60 })

    const part = await u.as('POST', `${TXNS}/${p.id}/simulate-refund`, { amount: 15.1 })
    expect(part.status, part.text).toBe(201)
    expect(part.json.data).toMatchObject({
      type: 'refund',
      status: 'posted',
      direction: 'credit',
      amount: 15.1,
      original_transaction_id: p.id,
      available_balance_after: 75.1,
      ledger_balance_after: 75.1,
    })
    expect(await u.balances()).toEqual({ available: 75.1, ledger: 75.1 })
    expect((await u.txn(p.id)).refunded_amount).toBe(15.1)

    expectFieldError(
      await u.as('POST', `${TXNS}/${p.id}/simulate-refund`, { amount: 24.91 }),
      'amount',
    )
    expectFieldError(await u.as('POST', `${TXNS}/${p.id}/simulate-refund`, { amount: 0 }), 'amount')
    expect(await u.balances()).toEqual({ available: 75.1, ledger: 75.1 })

    // No amount: what is left (24.90).
    const rest = await u.as('POST', `${TXNS}/${p.id}/simulate-refund`)
    expect(rest.status, rest.text).toBe(201)
    expect(rest.json.data.amount).toBe(24.9)
    expect(await u.balances()).toEqual({ available: 100, ledger: 100 })
    expect((await u.txn(p.id)).refunded_amount).toBe(40)
    // Wholly refunded: nothing is left, a conflict with its state (as a dispute would be).
    for (const body of [undefined, { amount: 0.01 }]) {
      const res = await u.as('POST', `${TXNS}/${p.id}/simulate-refund`, body)
      expect(res.status, res.text).toBe(409)
      expect(res.json.error.message).toMatch(/Nothing is left to refund/)
    }
    expect(await u.balances()).toEqual({ available: 100, ledger: 100 })

    const pending = await u.purchase(10)
    expect((await u.as('POST', `${TXNS}/${pending.id}/simulate-refund`)).status).toBe(409)
    expect(await u.balances()).toEqual({ available: 90, ledger: 100 })

    const created = (await eventsOf(call, 'card_transaction.created')).filter(
      (e) => e.data.object.original_transaction_id === p.id,
    )
    expect(created.map((e) => e.data.object.amount).sort((x, y) => x - y)).toEqual([15.1, 24.9])
  })
})

describe('disputes', () => {
  it('opens on a posted purchase with a provisional credit; evidence is added', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(100)
    const p = await postedPurchase(u, 40)
    expect(await u.balances()).toEqual({ available: 60, ledger: 60 })

    const d = await u.dispute(p.id, { description: 'Not me' })
    expect(d).toMatchObject({
      transaction_id: p.id,
      card_id: u.cardId,
      reason: 'fraudulent',
      description: 'Not me',
      amount: 40,
      status: 'under_review',
      evidence: [],
      reversal_transaction_id: null,
      resolved_at: null,
    })
    expect(d.id).toMatch(/^dsp_/)
    expect(Date.parse(d.resolves_at) - Date.parse(d.created_at)).toBe(7 * DAY)
    expect(await u.balances()).toEqual({ available: 100, ledger: 100 })
    expect(await u.txn(d.provisional_credit_transaction_id)).toMatchObject({
      type: 'dispute_credit',
      status: 'posted',
      direction: 'credit',
      amount: 40,
      dispute_id: d.id,
      original_transaction_id: p.id,
    })
    const created = (await eventsOf(call, 'dispute.created')).filter(
      (e) => e.data.object.id === d.id,
    )
    expect(created).toHaveLength(1)

    const ev = await u.as('POST', `${DISPUTES}/${d.id}/evidence`, { text: 'Card was in my wallet' })
    expect(ev.status, ev.text).toBe(200)
    expect(ev.json.data.evidence).toEqual([
      { id: expect.any(String), text: 'Card was in my wallet', added_at: expect.any(String) },
    ])
    const read = await u.as('GET', `${DISPUTES}/${d.id}`)
    expect(read.json.data.evidence.map((e: Json) => e.text)).toEqual(['Card was in my wallet'])
    const list = await u.as('GET', DISPUTES)
    expect(list.json.data).toMatchObject({ has_more: false, data: [{ id: d.id }] })
    const updated = (await eventsOf(call, 'dispute.updated')).filter(
      (e) => e.data.object.id === d.id,
    )
    expect(updated).toHaveLength(1)
    expect(updated[0].data.object.evidence).toHaveLength(1)
    expectFieldError(await u.as('POST', `${DISPUTES}/${d.id}/evidence`, { text: ' ' }), 'text')
  })

  it('refuses a second dispute, a pending or declined purchase, another user’s, and too much', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(100)
    const p = await postedPurchase(u, 40)
    const tooMuch = await u.as('POST', DISPUTES, {
      transaction_id: p.id,
      reason: 'incorrect_amount',
      amount: 40.01,
    })
    expectFieldError(tooMuch, 'amount')
    expect(await u.balances()).toEqual({ available: 60, ledger: 60 })

    const part = await u.dispute(p.id, { reason: 'incorrect_amount', amount: 12.34 })
    expect(part.amount).toBe(12.34)
    expect(await u.balances()).toEqual({ available: 72.34, ledger: 72.34 })
    const twice = await u.as('POST', DISPUTES, { transaction_id: p.id, reason: 'duplicate' })
    expect(twice.status, twice.text).toBe(409)

    const pending = await u.purchase(5)
    const declined = await u.purchase(5000)
    const [funding] = await u.list(`${TXNS}?type=funding`)
    for (const t of [pending, declined, funding]) {
      const res = await u.as('POST', DISPUTES, { transaction_id: t.id, reason: 'other' })
      expect(res.status, res.text).toBe(409)
    }

    const other = await cardholder(call)
    await other.fund(10)
    const theirs = await postedPurchase(other, 10)
    const foreign = await u.as('POST', DISPUTES, { transaction_id: theirs.id, reason: 'other' })
    expect(foreign.status, foreign.text).toBe(404)
    expect((await other.as('GET', `${DISPUTES}/${part.id}`)).status).toBe(404)
    expect(
      (await other.as('POST', `${DISPUTES}/${part.id}/evidence`, { text: 'mine' })).status,
    ).toBe(404)
    expect((await u.as('GET', `${DISPUTES}/${part.id}`)).json.data.evidence).toEqual([])
    expect((await u.as('GET', DISPUTES)).json.data.data).toHaveLength(1)
    expect(await u.balances()).toEqual({ available: 67.34, ledger: 72.34 })
    expect(await other.balances()).toEqual({ available: 0, ledger: 0 })
  })

  it('nothing left to dispute after a whole refund: no dispute, no credit', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(100)
    const p = await postedPurchase(u, 40)
    expect((await u.as('POST', `${TXNS}/${p.id}/simulate-refund`)).status).toBe(201)
    expect(await u.balances()).toEqual({ available: 100, ledger: 100 })
    const res = await u.as('POST', DISPUTES, { transaction_id: p.id, reason: 'other' })
    expect(res.status, res.text).toBe(409)
    expect(await u.balances()).toEqual({ available: 100, ledger: 100 })
    expect((await u.as('GET', DISPUTES)).json.data.data).toEqual([])
  })

  it('won on the clock after 7 days keeps the credit (a new login after the old session ended)', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(100)
    const p = await postedPurchase(u, 40)
    const d = await u.dispute(p.id)
    expect(await u.balances()).toEqual({ available: 100, ledger: 100 })

    await advance(call, '6d')
    const fresh = await loginAs(call, u.user.email, u.user.password)
    const as6: As = (method, path, body) =>
      call(method, path, { headers: { authorization: `Bearer ${fresh}` }, body })
    expect((await as6('GET', `${DISPUTES}/${d.id}`)).json.data.status).toBe('under_review')

    await advance(call, '1d')
    // Sessions last 24 hours: the first one is long gone.
    expect((await u.as('GET', STATUS)).status).toBe(401)
    const token = await loginAs(call, u.user.email, u.user.password)
    const later = moneyCalls((method, path, body) =>
      call(method, path, { headers: { authorization: `Bearer ${token}` }, body }),
    )
    const won = await later.as('GET', `${DISPUTES}/${d.id}`)
    expect(won.json.data).toMatchObject({
      status: 'won',
      resolves_at: null,
      reversal_transaction_id: null,
    })
    expect(won.json.data.resolved_at).toEqual(expect.any(String))
    expect(await later.balances()).toEqual({ available: 100, ledger: 100 })
    expect(await later.list(`${TXNS}?type=dispute_reversal`)).toEqual([])
    expect((await later.as('POST', `${DISPUTES}/${d.id}/evidence`, { text: 'x' })).status).toBe(409)
    const updated = (await eventsOf(call, 'dispute.updated')).filter(
      (e) => e.data.object.id === d.id,
    )
    expect(updated.map((e) => e.data.object.status)).toEqual(['won'])
  })

  it('lost through the control plane reverses the credit with a dispute_reversal debit', async () => {
    const { call } = await setup({ sessionTtl: '30d' })
    const u = await cardholder(call)
    await u.fund(100)
    const p = await postedPurchase(u, 40)
    const d = await u.dispute(p.id)
    expect(await u.balances()).toEqual({ available: 100, ledger: 100 })

    const lost = await call('POST', `/_sandbox/disputes/${d.id}/resolve`, {
      creds: null,
      body: { outcome: 'lost' },
    })
    expect(lost.status, lost.text).toBe(200)
    expect(lost.json.dispute).toMatchObject({ id: d.id, status: 'lost', resolves_at: null })
    expect(await u.balances()).toEqual({ available: 60, ledger: 60 })
    const reversal = await u.txn(lost.json.dispute.reversal_transaction_id)
    expect(reversal).toMatchObject({
      type: 'dispute_reversal',
      status: 'posted',
      direction: 'debit',
      amount: 40,
      dispute_id: d.id,
      original_transaction_id: p.id,
      available_balance_after: 60,
      ledger_balance_after: 60,
    })

    const again = await call('POST', `/_sandbox/disputes/${d.id}/resolve`, {
      creds: null,
      body: { outcome: 'won' },
    })
    expect(again.status, again.text).toBe(409)
    // The clock reaching resolves_at later changes nothing.
    await advance(call, '8d')
    expect((await u.as('GET', `${DISPUTES}/${d.id}`)).json.data.status).toBe('lost')
    expect(await u.balances()).toEqual({ available: 60, ledger: 60 })
    expect(await u.list(`${TXNS}?type=dispute_reversal`)).toHaveLength(1)
    const unknown = await call('POST', '/_sandbox/disputes/dsp_nope/resolve', {
      creds: null,
      body: { outcome: 'lost' },
    })
    expect(unknown.status).toBe(404)
  })

  it('a scenario disputes.outcome lost makes the clock resolve to lost', async () => {
    const { call } = await withScenario({ disputes: { outcome: 'lost' } }, { sessionTtl: '30d' })
    const u = await cardholder(call)
    await u.fund(50)
    const p = await postedPurchase(u, 20.5)
    const d = await u.dispute(p.id)
    expect(await u.balances()).toEqual({ available: 50, ledger: 50 })
    await advance(call, '7d')
    const read = await u.as('GET', `${DISPUTES}/${d.id}`)
    expect(read.json.data.status).toBe('lost')
    expect(read.json.data.reversal_transaction_id).toMatch(/^txn_/)
    expect(await u.balances()).toEqual({ available: 29.5, ledger: 29.5 })
  })
})

describe('/partner/transactions', () => {
  it('filters by type and status', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await u.fund(100)
    const pending = await u.purchase(10)
    const posted = await postedPurchase(u, 20)
    const declined = await u.purchase(500)
    await u.as('POST', `${TXNS}/${posted.id}/simulate-refund`, { amount: 5 })

    const ids = async (query: string) => (await u.list(`${TXNS}?${query}`)).map((t) => t.id)
    expect(await ids('type=purchase')).toEqual([declined.id, posted.id, pending.id])
    expect(await ids('status=pending')).toEqual([pending.id])
    expect(await ids('type=purchase&status=posted')).toEqual([posted.id])
    expect(await ids('type=purchase&status=declined')).toEqual([declined.id])
    expect((await u.list(`${TXNS}?type=refund`)).map((t) => t.amount)).toEqual([5])
    expect(await ids('type=funding&status=pending')).toEqual([])
    expect(await u.list(TXNS)).toHaveLength(5)
    expectFieldError(await u.as('GET', `${TXNS}?type=bogus`), 'type')
    expectFieldError(await u.as('GET', `${TXNS}?status=settled`), 'status')
  })

  it('pages newest first with limit, starting_after and has_more, creation order deciding ties', async () => {
    const { call } = await setup()
    await freezeClock(call)
    const u = await cardholder(call)
    const hold = await u.purchase(1) // declined: no money yet
    for (const amount of [1, 2, 3, 4]) await u.fund(amount)
    const all = await u.list(TXNS)
    expect(all.map((t) => t.amount)).toEqual([4, 3, 2, 1, 1])
    expect(all[4].id).toBe(hold.id)
    // Every row has the same time: the order of creation decides.
    expect(new Set(all.map((t) => t.created_at)).size).toBe(1)

    const seen: number[] = []
    let cursor: string | undefined
    const pages: boolean[] = []
    for (;;) {
      const res = await u.as('GET', `${TXNS}?limit=2${cursor ? `&starting_after=${cursor}` : ''}`)
      expect(res.status, res.text).toBe(200)
      const { data, has_more } = res.json.data
      seen.push(...data.map((t: Json) => t.amount))
      pages.push(has_more)
      if (!has_more) break
      cursor = data[data.length - 1].id
    }
    expect(seen).toEqual([4, 3, 2, 1, 1])
    expect(pages).toEqual([true, true, false])

    // The card list pages the same way.
    const first = await u.as('GET', `${CARD_TXNS}?limit=2`)
    expect(first.json.data.data.map((t: Json) => t.amount)).toEqual([4, 3])
    const next = await u.as(
      'GET',
      `${CARD_TXNS}?limit=2&starting_after=${first.json.data.data[1].id}`,
    )
    expect(next.json.data).toMatchObject({ has_more: true, data: [{ amount: 2 }, { amount: 1 }] })
    expectFieldError(await u.as('GET', `${TXNS}?starting_after=txn_nope`), 'starting_after')

    // Clearing an older purchase keeps its place in the list.
    const p = await u.purchase(2)
    await u.fund(9)
    await u.clear(p.id)
    expect((await u.list(TXNS)).slice(0, 2).map((t) => t.id)).toEqual([
      (await u.list(`${TXNS}?type=funding`))[0].id,
      p.id,
    ])
  })

  it('limit defaults to 20; 0, 101, x and 1.5 are a 400 naming limit', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    await Promise.all(Array.from({ length: 21 }, () => u.fund(1)))
    for (const path of [TXNS, CARD_TXNS]) {
      const res = await u.as('GET', path)
      expect(res.json.data.data).toHaveLength(20)
      expect(res.json.data.has_more).toBe(true)
      const max = await u.as('GET', `${path}?limit=100`)
      expect(max.json.data).toMatchObject({ has_more: false })
      expect(max.json.data.data).toHaveLength(21)
    }
    for (const path of [TXNS, CARD_TXNS, DEPOSITS, DISPUTES]) {
      for (const limit of ['0', '101', 'x', '1.5', '-1']) {
        expectFieldError(await u.as('GET', `${path}?limit=${limit}`), 'limit')
      }
    }
  })

  it('reads one transaction; another user’s is a 404', async () => {
    const { call } = await setup()
    const u = await cardholder(call)
    const funded = await u.fund(12.34)
    const one = await u.as('GET', `${TXNS}/${funded.data.transaction.id}`)
    expect(one.status, one.text).toBe(200)
    expect(one.json).toEqual({ success: true, data: funded.data.transaction })

    const other = await cardholder(call)
    const res = await other.as('GET', `${TXNS}/${funded.data.transaction.id}`)
    expect(res.status, res.text).toBe(404)
    expect(res.json.error.code).toBe('not_found')
    expect(res.text).not.toContain('12.34')
    expect((await u.as('GET', `${TXNS}/txn_nope`)).status).toBe(404)
    expect((await u.as('GET', `${TXNS}/nope`)).status).toBe(400)
    expect((await call('GET', TXNS)).status).toBe(401)
  })
})

describe('the ledger invariant', () => {
  it('after a mixed sequence, posted credits − posted debits = ledger, less pending holds = available', async () => {
    const { call } = await setup({ sessionTtl: '30d' })
    const u = await cardholder(call)
    const bank = await connectBank(call, u.bearer)
    await u.fund(500) //                                   ledger 500
    await postedPurchase(u, 100) //                        ledger 400
    await u.reverse((await u.purchase(50)).id)
    await u.purchase(30) //                                 hold 30
    await u.purchase(10_000) //                             declined
    const refunded = await postedPurchase(u, 80.8) //      ledger 319.20
    await u.as('POST', `${TXNS}/${refunded.id}/simulate-refund`, { amount: 20.2 }) // 339.40
    const ok = await u.deposit(200, bank)
    const bad = await u.deposit(99.51, bank)
    await advance(call, '30m') //                          ledger 539.40
    await u.deposit(70, bank) //                            pending credit: nothing yet
    const disputed = await postedPurchase(u, 60.6) //      ledger 478.80
    const d = await u.dispute(disputed.id) //              ledger 539.40
    await call('POST', `/_sandbox/disputes/${d.id}/resolve`, {
      creds: null,
      body: { outcome: 'lost' },
    }) //                                                   ledger 478.80
    await u.fund(0.07) //                                   ledger 478.87
    await u.purchase(0.03) //                               hold 30.03

    expect((await u.as('GET', `${DEPOSITS}/${ok.id}`)).json.data.status).toBe('succeeded')
    expect((await u.as('GET', `${DEPOSITS}/${bad.id}`)).json.data.status).toBe('failed')
    expect(await u.balances()).toEqual({ available: 448.84, ledger: 478.87 })

    const txns = (await snapshotRows(call, 'transactions')).filter((t) => t.card_id === u.cardId)
    const sum = (pick: (t: Json) => boolean) =>
      txns.filter(pick).reduce((total, t) => total + t.amount_cents, 0)
    for (const t of txns) expect(Number.isInteger(t.amount_cents)).toBe(true)
    const ledger =
      sum((t) => t.status === 'posted' && t.direction === 'credit') -
      sum((t) => t.status === 'posted' && t.direction === 'debit')
    const available = ledger - sum((t) => t.status === 'pending' && t.direction === 'debit')
    const card = (await snapshotRows(call, 'cards')).find((c) => c.id === u.cardId)
    expect(card.ledger_balance_cents).toBe(ledger)
    expect(card.available_balance_cents).toBe(available)
    expect(ledger).toBe(47_887)
    expect(available).toBe(44_884)
    const { available: a, ledger: l } = await u.balances()
    expect(Math.round(a * 100)).toBe(available)
    expect(Math.round(l * 100)).toBe(ledger)
    // Every type and status of the sequence is there.
    expect(new Set(txns.map((t) => `${t.type}:${t.status}`))).toEqual(
      new Set([
        'funding:posted',
        'purchase:posted',
        'purchase:reversed',
        'purchase:pending',
        'purchase:declined',
        'refund:posted',
        'deposit:posted',
        'deposit:failed',
        'deposit:pending',
        'dispute_credit:posted',
        'dispute_reversal:posted',
      ]),
    )
  })
})

describe('tenant isolation', () => {
  it('partner B sees none of partner A’s money, through the API or its events', async () => {
    const { call } = await setup()
    const hooksA = await receiverForTest()
    const hooksB = await receiverForTest()
    const endpoint = async (creds: Creds, url: string) => {
      const res = await call('POST', `${API}/partner/webhooks`, {
        creds,
        body: { url, events: [] },
      })
      expect(res.status, res.text).toBe(201)
      return res.json.webhook.id as string
    }
    const hookA = await endpoint(acme, hooksA.url)
    const hookB = await endpoint(northwind, hooksB.url)

    const a = await cardholder(call, acme)
    const b = await cardholder(call, northwind)
    await a.fund(100)
    await b.fund(1)
    const pending = await a.purchase(10)
    const posted = await postedPurchase(a, 20)
    const dispute = await a.dispute(posted.id)
    const bankA = await connectBank(call, a.bearer)
    const dep = await a.deposit(30, bankA)
    const aIds = [a.userId, a.cardId, pending.id, posted.id, dispute.id, bankA, dep.id]

    expect((await b.as('GET', `${TXNS}/${pending.id}`)).status).toBe(404)
    expect((await b.as('POST', `${TXNS}/${pending.id}/simulate-clearing`)).status).toBe(404)
    expect((await b.as('POST', `${TXNS}/${posted.id}/simulate-refund`)).status).toBe(404)
    expect((await b.as('GET', `${DISPUTES}/${dispute.id}`)).status).toBe(404)
    expect(
      (await b.as('POST', DISPUTES, { transaction_id: posted.id, reason: 'other' })).status,
    ).toBe(404)
    expect((await b.as('GET', `${DEPOSITS}/${dep.id}`)).status).toBe(404)
    expectFieldError(
      await b.as('POST', DEPOSITS, { amount: 5, external_bank_account_id: bankA }),
      'external_bank_account_id',
    )
    expect((await b.as('DELETE', `${CONNECT}/accounts/${bankA}`)).status).toBe(404)
    const bLists = [
      await b.as('GET', `${TXNS}?limit=100`),
      await b.as('GET', `${CARD_TXNS}?limit=100`),
      await b.as('GET', DISPUTES),
      await b.as('GET', DEPOSITS),
      await b.as('GET', `${CONNECT}/accounts`),
    ]
    for (const res of bLists) {
      expect(res.status, res.text).toBe(200)
      for (const id of aIds) expect(res.text).not.toContain(id)
    }
    expect((await b.list(TXNS)).map((t) => t.amount)).toEqual([1])
    // A's session with B's credentials is refused.
    const crossed = await call('GET', TXNS, { creds: northwind, headers: a.bearer })
    expect(crossed.status).toBe(401)
    // A's state is untouched by B's attempts.
    expect((await a.txn(pending.id)).status).toBe('pending')
    expect(await a.balances()).toEqual({ available: 90, ledger: 100 })

    // Events: A's money events are A's only.
    const [idA, idB] = [await partnerId(call, acme), await partnerId(call, northwind)]
    const eventsA = await eventsOf(call, undefined, idA)
    const eventsB = await eventsOf(call, undefined, idB)
    const moneyTypes = ['card.funded', 'card_transaction.created', 'dispute.created']
    for (const type of [...moneyTypes, 'deposit.created'])
      expect(eventsA.some((e) => e.type === type && e.data.object.user_id === a.userId)).toBe(true)
    const textB = JSON.stringify(eventsB)
    for (const id of aIds) expect(textB).not.toContain(id)
    expect(
      eventsB.some((e) => e.type === 'card.funded' && e.data.object.user_id === b.userId),
    ).toBe(true)

    // Webhook deliveries: B's endpoint gets B's events, never A's.
    const deliveries = async (creds: Creds, id: string) => {
      const res = await call('GET', `${API}/partner/webhooks/${id}/deliveries?limit=100`, { creds })
      expect(res.status, res.text).toBe(200)
      return res.json.data as Json[]
    }
    const toB = await deliveries(northwind, hookB)
    const bEventIds = new Set(eventsB.map((e) => e.id))
    expect(toB.length).toBeGreaterThan(0)
    for (const dl of toB) expect(bEventIds.has(dl.event_id)).toBe(true)
    const toA = await deliveries(acme, hookA)
    expect(toA.some((dl) => dl.event_type === 'card.funded')).toBe(true)
    await hooksB.waitFor(toB.length)
    await hooksA.waitFor(toA.length)
    for (const req of hooksB.requests) {
      const body = req.body.toString()
      for (const id of aIds) expect(body).not.toContain(id)
    }
    expect(hooksA.requests.some((r) => r.body.toString().includes(a.cardId))).toBe(true)
  })
})

describe('refunds and disputes never pay twice', () => {
  it('a disputed purchase can only be refunded for what the dispute did not cover', async () => {
    const { call } = await setup()
    const u = await onboardedUser(call)
    const as = (method: string, path: string, body?: unknown) =>
      call(method, path, { headers: u.bearer, body })
    await as('POST', '/api/v1/partner/cards/simulate-fund', { amount: 100 })
    const buy = (
      await as('POST', '/api/v1/partner/cards/simulate-purchase', {
        amount: 40,
        merchant: { name: 'Shop' },
      })
    ).json.data
    await as('POST', `/api/v1/partner/transactions/${buy.id}/simulate-clearing`)
    const dispute = await as('POST', '/api/v1/partner/disputes', {
      transaction_id: buy.id,
      reason: 'incorrect_amount',
      amount: 15,
    })
    expect(dispute.status).toBe(201)
    const tooMuch = await as('POST', `/api/v1/partner/transactions/${buy.id}/simulate-refund`, {
      amount: 30,
    })
    expect(tooMuch.status).toBe(400)
    const rest = await as('POST', `/api/v1/partner/transactions/${buy.id}/simulate-refund`)
    expect(rest.status).toBe(201)
    expect(rest.json.data.amount).toBe(25)
    const again = await as('POST', `/api/v1/partner/transactions/${buy.id}/simulate-refund`)
    expect(again.status).toBe(409)
    const status = (await as('GET', '/api/v1/partner/cards/status')).json.data.balances
    expect(status).toEqual({ available: 100, ledger: 100, currency: 'USD' })
  })
})

describe('hosted bank-connect links', () => {
  it('the error page of a used or unknown link is never cached, and the page may only be framed by allowed origins', async () => {
    const { call } = await setup()
    const u = await registerAndLogin(call)
    const token = (
      await call('POST', '/api/v1/external-bank-account-connect/token', { headers: u.bearer })
    ).json.data
    const url = new URL(token.connect_url)
    const page = await call('GET', `${url.pathname}${url.search}`, { creds: null })
    expect(page.status).toBe(200)
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.headers.get('content-security-policy')).toContain(
      'frame-ancestors http://localhost:* http://127.0.0.1:*',
    )
    const [account] = offeredBankAccounts(page.text)
    await call('POST', '/api/v1/external-bank-account-connect/enrollment/public', {
      creds: null,
      body: {
        token: token.connect_token,
        institution_id: account?.institution_id,
        account_id: account?.account_id,
      },
    })
    for (const [search, status] of [
      [url.search, 410],
      ['?token=bct_nope.bctok_nope', 404],
    ] as const) {
      const error = await call('GET', `${url.pathname}${search}`, { creds: null })
      expect(error.status).toBe(status)
      expect(error.text).toContain('data-testid="embed-error"')
      expect(error.headers.get('cache-control')).toBe('no-store')
    }
  })
})
