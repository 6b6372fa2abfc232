import { describe, expect, it } from 'vitest'
import type { SandboxOptions } from '../src/index.js'
import { listBundledScenarios } from '../src/scenarios/loader.js'
import {
  bearer,
  type Call,
  type Creds,
  connectBank,
  createPartner,
  hostedOnboarding,
  journalOf,
  newUser,
  onboardedUser,
  onboardingApplicant,
  receiverForTest,
  setup,
} from './helpers.js'

/**
 * The bundled scenario library (scenarios/*.json), played file by file: each test makes a
 * partner with the scenario through the control plane, runs the flow the scenario is about
 * through the API, and checks what the scenario's description promises. The table is keyed
 * by the directory listing, so a new scenario file without a play here fails the suite.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read response fields freely and assert each one
type Json = any

const API = '/api/v1/partner'
const STATUS = `${API}/cards/status`
const FUND = `${API}/cards/simulate-fund`
const PURCHASE = `${API}/cards/simulate-purchase`
const DEPOSITS = `${API}/cards/deposits`
const DISPUTES = `${API}/disputes`
const TXNS = `${API}/transactions`
const SECOND = 1000
const MINUTE = 60 * SECOND

interface Played {
  call: Call
  creds: Creds
  partnerId: string
}

/** A fresh sandbox (setup) and a partner created with scenario `name`. */
async function partnerWith(name: string, options: SandboxOptions = {}): Promise<Played> {
  const { call } = await setup(options)
  const partner = await createPartner(call, { name: `plays ${name}`, scenario: name })
  expect(partner.scenario).toBe(name)
  return { call, creds: partner.creds, partnerId: partner.id }
}

async function freeze(call: Call): Promise<number> {
  const res = await call('POST', '/_sandbox/clock/freeze', { creds: null, body: {} })
  expect(res.status, res.text).toBe(200)
  return Date.parse(res.json.now)
}

async function advance(call: Call, by: string | number) {
  const res = await call('POST', '/_sandbox/clock/advance', { creds: null, body: { by } })
  expect(res.status, res.text).toBe(200)
}

/** The partner's messages to `email` (newest first): a code shows only while it can be used. */
async function inboxOf(p: Played, email: string): Promise<Json[]> {
  const query = new URLSearchParams({ kind: 'login_code', partner_id: p.partnerId, email })
  const res = await p.call('GET', `/_sandbox/inbox?${query}`, { creds: null })
  expect(res.status, res.text).toBe(200)
  return res.json.data
}

/** Logs `user` in; answers the code its login sent, read from the inbox before it is used. */
async function loginCode(p: Played, user: { email: string; password: string }): Promise<string> {
  const res = await p.call('POST', `${API}/auth/login`, {
    creds: p.creds,
    body: { email: user.email, password: user.password },
  })
  expect(res.status, res.text).toBe(200)
  const [message] = await inboxOf(p, user.email)
  expect(message?.code_ended).toBeNull()
  return message?.code
}

/** Redeems a login code; answers the session. */
async function verifyCode(p: Played, email: string, code: string) {
  const res = await p.call('POST', `${API}/auth/verify-otp`, {
    creds: p.creds,
    body: { email, code },
  })
  expect(res.status, res.text).toBe(200)
  const token = res.json.sessionToken as string
  return { token, expiresAt: res.json.expiresAt as number, bearer: bearer(token) }
}

/** A user of the partner, with the code of its login, and calls made with their session. */
async function userOf(p: Played, overrides: Parameters<typeof newUser>[0] = {}) {
  const user = newUser(overrides)
  const res = await p.call('POST', `${API}/auth/register`, { creds: p.creds, body: user })
  expect(res.status, res.text).toBe(201)
  const code = await loginCode(p, user)
  const session = await verifyCode(p, user.email, code)
  const u = { user, userId: res.json.userId as string, code, ...session }
  const as = (method: string, path: string, body?: unknown) =>
    p.call(method, path, { creds: p.creds, headers: u.bearer, body })
  const onboard = (ssn: string) =>
    hostedOnboarding(p.call, u.bearer, { ...onboardingApplicant(u.user), ssn }, p.creds)
  return { ...u, as, onboard }
}

/** A user of the partner holding an active card, and calls made with their session. */
async function cardholderOf(p: Played) {
  const u = await onboardedUser(p.call, {}, p.creds)
  const as = (method: string, path: string, body?: unknown) =>
    p.call(method, path, { creds: p.creds, headers: u.bearer, body })
  const balances = async () => {
    const res = await as('GET', STATUS)
    expect(res.status, res.text).toBe(200)
    const { available, ledger } = res.json.data.balances
    return { available, ledger }
  }
  const fund = async (amount: number) => {
    const res = await as('POST', FUND, { amount })
    expect(res.status, res.text).toBe(200)
  }
  const purchase = async (amount: number, name = 'Corner Shop') => {
    const res = await as('POST', PURCHASE, { amount, merchant: { name } })
    expect(res.status, res.text).toBe(201)
    return res.json.data
  }
  const deposit = async (amount: number) => {
    const bank = await connectBank(p.call, u.bearer, p.creds)
    const res = await as('POST', DEPOSITS, { amount, external_bank_account_id: bank })
    expect(res.status, res.text).toBe(201)
    return res.json.data
  }
  const readDeposit = async (id: string) => (await as('GET', `${DEPOSITS}/${id}`)).json.data
  /** A posted purchase of `amount`, disputed as fraudulent; answers the dispute. */
  const disputedPurchase = async (amount: number) => {
    const auth = await purchase(amount)
    expect(auth.status).toBe('pending')
    const cleared = await as('POST', `${TXNS}/${auth.id}/simulate-clearing`)
    expect(cleared.status, cleared.text).toBe(200)
    const res = await as('POST', DISPUTES, { transaction_id: auth.id, reason: 'fraudulent' })
    expect(res.status, res.text).toBe(201)
    return res.json.data
  }
  const readDispute = async (id: string) => (await as('GET', `${DISPUTES}/${id}`)).json.data
  return {
    ...u,
    as,
    balances,
    fund,
    purchase,
    deposit,
    readDeposit,
    disputedPurchase,
    readDispute,
  }
}

/** A completion that issued no card, failed for `reason`. */
function expectFailed(completion: Json, reason: string) {
  expect(completion).toMatchObject({ status: 'failed', failure_reason: reason, card: null })
}

const plays: Record<string, () => Promise<void>> = {
  async default() {
    const p = await partnerWith('default')
    // The magic values decide: SSN 000000001 fails identity, an ordinary SSN passes.
    const denied = await userOf(p)
    const failed = await denied.onboard('000000001')
    expect(failed.steps).toEqual(['identity_verification'])
    expectFailed(failed.completion, 'identity_verification_failed')
    const ordinary = await userOf(p)
    const passed = await ordinary.onboard('123-45-6789')
    expect(passed.completion).toMatchObject({ status: 'completed', card: { status: 'active' } })
    // Production-like: the fixed login code, as documented (each read before it was used).
    expect([ordinary.code, denied.code]).toEqual(['000000', '000000'])
    // Both were used: the partner's inbox keeps both messages, without their codes.
    const inbox = await p.call('GET', `/_sandbox/inbox?partner_id=${p.partnerId}`, { creds: null })
    expect(inbox.json.data.map((m: Json) => [m.to, m.code, m.code_ended])).toEqual([
      [ordinary.user.email, null, 'used'],
      [denied.user.email, null, 'used'],
    ])
  },

  async 'happy-path'() {
    const p = await partnerWith('happy-path')
    const start = await freeze(p.call)
    // Magic values off: even the magic KYC-failure SSN passes and gets a card.
    const u = await userOf(p)
    const passed = await u.onboard('000000001')
    expect(passed.steps).toEqual(['identity_verification', 'underwriting', 'agreement'])
    expect(passed.completion).toMatchObject({ status: 'completed', card: { status: 'active' } })

    // A deposit (even with the magic failing cents .51) settles after 1 minute and succeeds.
    const holder = await cardholderOf(p)
    const dep = await holder.deposit(40.51)
    expect(dep).toMatchObject({
      status: 'pending',
      settles_at: new Date(start + MINUTE).toISOString(),
    })
    await advance(p.call, 59 * SECOND)
    expect((await holder.readDeposit(dep.id)).status).toBe('pending')
    await advance(p.call, SECOND)
    expect(await holder.readDeposit(dep.id)).toMatchObject({
      status: 'succeeded',
      failure_reason: null,
    })
    expect(await holder.balances()).toEqual({ available: 40.51, ledger: 40.51 })

    // Purchases are approved when funds allow; a dispute is won after 1 hour.
    const d = await holder.disputedPurchase(30)
    expect(Date.parse(d.resolves_at) - Date.parse(d.created_at)).toBe(60 * MINUTE)
    await advance(p.call, '59m')
    expect((await holder.readDispute(d.id)).status).toBe('under_review')
    await advance(p.call, '1m')
    expect(await holder.readDispute(d.id)).toMatchObject({
      status: 'won',
      reversal_transaction_id: null,
    })
    // Won: the provisional credit stays.
    expect(await holder.balances()).toEqual({ available: 40.51, ledger: 40.51 })
  },

  async 'kyc-fail'() {
    const p = await partnerWith('kyc-fail')
    const u = await userOf(p)
    const result = await u.onboard('123-45-6789')
    // The hosted flow ends right after the identity step.
    expect(result.steps).toEqual(['identity_verification'])
    expect(result.flow).toMatchObject({ result: 'fail', reason: 'identity_verification_failed' })
    expectFailed(result.completion, 'identity_verification_failed')
    expect((await u.as('GET', STATUS)).json.data.card).toBeNull()
  },

  async 'underwriting-decline'() {
    const p = await partnerWith('underwriting-decline')
    const u = await userOf(p)
    const result = await u.onboard('123-45-6789')
    expect(result.steps).toEqual(['identity_verification', 'underwriting'])
    expect(result.flow).toMatchObject({ result: 'fail', reason: 'underwriting_declined' })
    expectFailed(result.completion, 'underwriting_declined')
    // KYC approved, but no card.
    expect(result.completion.consumer.kyc_status).toBe('approved')
    expect((await u.as('GET', STATUS)).json.data.card).toBeNull()
  },

  async 'manual-review'() {
    const p = await partnerWith('manual-review')
    const now = await freeze(p.call)
    const u = await userOf(p)
    const result = await u.onboard('123-45-6789')
    expect(result.completion).toMatchObject({
      status: 'manual_review',
      card: null,
      review_resolves_at: new Date(now + 5 * MINUTE).toISOString(),
    })
    await advance(p.call, 5 * MINUTE - SECOND)
    expect((await u.as('GET', STATUS)).json.data.card).toBeNull()
    await advance(p.call, SECOND)
    const status = (await u.as('GET', STATUS)).json.data
    expect(status.onboarding.status).toBe('completed')
    expect(status.card).toMatchObject({ status: 'active' })
    expect(status.kyc_status).toBe('approved')
  },

  async 'insufficient-funds'() {
    const p = await partnerWith('insufficient-funds')
    await freeze(p.call)
    const holder = await cardholderOf(p)
    await holder.fund(500)
    // Declined even though the card holds plenty; nothing is held.
    expect(await holder.purchase(5, 'Corner Shop')).toMatchObject({
      status: 'declined',
      decline_reason: 'insufficient_funds',
    })
    expect(await holder.purchase(0.01, 'Another Merchant')).toMatchObject({
      status: 'declined',
      decline_reason: 'insufficient_funds',
    })
    expect(await holder.balances()).toEqual({ available: 500, ledger: 500 })
    // A deposit fails with insufficient_funds when it settles, and credits nothing.
    const dep = await holder.deposit(100)
    expect(dep.status).toBe('pending')
    await advance(p.call, '1m')
    expect(await holder.readDeposit(dep.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'insufficient_funds',
    })
    expect(await holder.balances()).toEqual({ available: 500, ledger: 500 })
  },

  async 'flaky-webhooks'() {
    const receiver = await receiverForTest()
    const p = await partnerWith('flaky-webhooks')
    const t0 = await freeze(p.call)
    const hook = await p.call('POST', `${API}/webhooks`, {
      creds: p.creds,
      body: { url: receiver.url, events: ['user.created'] },
    })
    expect(hook.status, hook.text).toBe(201)
    const webhookId = hook.json.webhook.id as string
    const register = await p.call('POST', `${API}/auth/register`, {
      creds: p.creds,
      body: newUser(),
    })
    expect(register.status, register.text).toBe(201)
    const deliveries = async () => {
      const res = await p.call('GET', `${API}/webhooks/${webhookId}/deliveries`, { creds: p.creds })
      expect(res.status, res.text).toBe(200)
      expect(res.json.data).toHaveLength(1)
      return res.json.data[0]
    }
    await p.call('POST', '/_sandbox/webhooks/flush', { creds: null })
    // Retries are 100 times faster: +50 ms, then +300 ms.
    await advance(p.call, 50)
    expect((await deliveries()).attempts).toHaveLength(2)
    expect(receiver.requests).toHaveLength(0)
    await advance(p.call, 300)
    expect(receiver.requests).toHaveLength(1)
    expect(receiver.requests[0]?.headers['x-sandbox-attempt']).toBe('3')
    const d = await deliveries()
    expect(d.status).toBe('succeeded')
    expect(d.attempts.map((a: Json) => [a.number, a.at, a.status_code])).toEqual([
      [1, new Date(t0).toISOString(), null],
      [2, new Date(t0 + 50).toISOString(), null],
      [3, new Date(t0 + 350).toISOString(), 200],
    ])
    for (const failed of d.attempts.slice(0, 2)) expect(failed.error).toMatch(/^not sent: /)
  },

  async 'slow-network'() {
    const p = await partnerWith('slow-network')
    const started = performance.now()
    const me = await p.call('GET', `${API}/me`, { creds: p.creds })
    const took = performance.now() - started
    // Answers are otherwise unchanged.
    expect(me.status, me.text).toBe(200)
    expect(me.json.partner.id).toBe(p.partnerId)
    expect(took).toBeGreaterThanOrEqual(150)
    const [entry] = await journalOf(p.call, { partner_id: p.partnerId })
    expect(entry).toMatchObject({ path: `${API}/me`, status: 200, scenario: 'slow-network' })
    const [met] = entry.rules
    expect(entry.rules).toHaveLength(1)
    expect(met).toMatchObject({ effect: 'latency', scenario: 'slow-network rules[0]' })
    expect(met.latency_ms).toBeGreaterThanOrEqual(150)
    expect(met.latency_ms).toBeLessThanOrEqual(400)
    expect(entry.duration_ms).toBeGreaterThanOrEqual(met.latency_ms)
  },

  async 'rate-limited'() {
    const p = await partnerWith('rate-limited')
    // Frozen, so that the ten requests share one rate-limit minute.
    await freeze(p.call)
    for (let n = 1; n <= 10; n++) {
      const res = await p.call('GET', `${API}/me`, { creds: p.creds })
      expect(res.status, `request ${n}: ${res.text}`).toBe(200)
      expect(res.headers.get('x-ratelimit-limit')).toBe('10')
    }
    const eleventh = await p.call('GET', `${API}/me`, { creds: p.creds })
    expect(eleventh.status).toBe(429)
    expect(eleventh.json.error.code).toBe('rate_limited')
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(0)
    // Another partner (the fixtures' default) keeps its own limit.
    expect((await p.call('GET', `${API}/me`)).status).toBe(200)
    await advance(p.call, '1m')
    expect((await p.call('GET', `${API}/me`, { creds: p.creds })).status).toBe(200)
  },

  async 'server-errors'() {
    const p = await partnerWith('server-errors')
    const u = await userOf(p)
    // Requests outside /cards are not affected.
    expect((await u.as('GET', `${API}/me`)).status).toBe(200)
    for (let n = 1; n <= 3; n++) {
      const res = await u.as('GET', STATUS)
      expect(res.status, `card request ${n}`).toBe(503)
      expect(res.json).toMatchObject({ success: false, error: { code: 'service_unavailable' } })
      expect(res.headers.get('retry-after')).toBe('1')
    }
    const recovered = await u.as('GET', STATUS)
    expect(recovered.status, recovered.text).toBe(200)
    expect(recovered.json.data.card).toBeNull()
  },

  async 'random-otp'() {
    const p = await partnerWith('random-otp')
    const u = await userOf(p)
    // A second login of the same user, its code read from the inbox as well (before its use).
    const second = await loginCode(p, u.user)
    await verifyCode(p, u.user.email, second)
    const codes = [second, u.code]
    expect(codes).toHaveLength(2)
    for (const code of codes) expect(code).toMatch(/^\d{6}$/)
    expect(codes[0]).not.toBe(codes[1])
    expect(codes).not.toContain('000000')
    // Both were used: the messages stay, without their codes.
    const inbox = await inboxOf(p, u.user.email)
    expect(inbox.map((m: Json) => [m.code, m.code_ended])).toEqual([
      [null, 'used'],
      [null, 'used'],
    ])
  },

  async 'disputes-lost'() {
    const p = await partnerWith('disputes-lost')
    await freeze(p.call)
    const holder = await cardholderOf(p)
    await holder.fund(100)
    const d = await holder.disputedPurchase(40)
    // The provisional credit first.
    expect(await holder.balances()).toEqual({ available: 100, ledger: 100 })
    expect(Date.parse(d.resolves_at) - Date.parse(d.created_at)).toBe(60 * MINUTE)
    await advance(p.call, '59m')
    expect((await holder.readDispute(d.id)).status).toBe('under_review')
    await advance(p.call, '1m')
    const lost = await holder.readDispute(d.id)
    expect(lost.status).toBe('lost')
    const reversal = await holder.as('GET', `${TXNS}/${lost.reversal_transaction_id}`)
    expect(reversal.json.data).toMatchObject({
      type: 'dispute_reversal',
      direction: 'debit',
      amount: 40,
    })
    expect(await holder.balances()).toEqual({ available: 60, ledger: 60 })
  },

  async 'frozen-clock'() {
    // The clock's start applies to the whole sandbox (there is one clock), so this scenario
    // is played as the sandbox's own (`createSandbox({ scenario })`, like --scenario); a
    // partner created with it then stamps its records with that frozen time.
    const p = await partnerWith('frozen-clock', { scenario: 'frozen-clock' })
    const AT = '2030-01-01T00:00:00.000Z'
    const clock = async () => (await p.call('GET', '/_sandbox/clock', { creds: null })).json
    expect(await clock()).toMatchObject({ now: AT, frozen: true })
    const partner = await p.call('GET', `${API}/me`, { creds: p.creds })
    expect(partner.json.partner.created_at).toBe(AT)
    // Real time passing moves nothing; only an advance does.
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect((await clock()).now).toBe(AT)
    await advance(p.call, '1m')
    expect(await clock()).toMatchObject({ now: '2030-01-01T00:01:00.000Z', frozen: true })
  },
}

const bundled = listBundledScenarios()

describe('the bundled scenario library', () => {
  it('has a play for every scenario file, and no play without a file', () => {
    expect(Object.keys(plays).sort()).toEqual(bundled.map((s) => s.name).sort())
  })

  it.each(bundled.map((s) => [s.name, s.description] as const))('%s: %s', async (name) => {
    const play = plays[name]
    if (!play) throw new Error(`scenarios/${name}.json has no play in this file: add one`)
    await play()
  })
})
