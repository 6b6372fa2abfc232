import { describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER, SECOND_PARTNER } from '../src/store/default-credentials.js'
import {
  acme,
  type Call,
  type Creds,
  loginSession,
  northwind,
  onboardedUser,
  onboardingApplicant,
  type Receiver,
  receiverForTest,
  registerAndLogin,
  setup,
  walkAndComplete,
} from './helpers.js'

/**
 * Two partners used at once with the sandbox clock running, as two parallel test workers
 * would: moving one partner's clock must move nothing of the other's.
 */

const A = DEFAULT_PARTNER.id
const B = SECOND_PARTNER.id
// Retries a minute apart: the running clock never reaches them during a test.
const slowRetries = {
  scenario: {
    name: 'slow-retries',
    description: 'retries a minute apart',
    webhooks: { retry_delays_ms: [0, 60_000, 60_000, 60_000] },
  },
}

const advance = (call: Call, partnerId: string, by: string) =>
  call('POST', `/_sandbox/partners/${partnerId}/clock/advance`, { creds: null, body: { by } })

async function latestCode(call: Call, email: string) {
  const inbox = await call(
    'GET',
    `/_sandbox/inbox?kind=login_code&email=${encodeURIComponent(email)}`,
    { creds: null },
  )
  return inbox.json.data[0].code as string
}

/** A user of `creds` who asked for a login code and has not used it yet. */
async function pendingLogin(call: Call, creds: Creds) {
  const { user } = await registerAndLogin(call, {}, creds)
  const login = await call('POST', '/api/v1/partner/auth/login', {
    creds,
    body: { email: user.email, password: user.password },
  })
  expect(login.status, login.text).toBe(200)
  const code = await latestCode(call, user.email)
  return {
    verify: () =>
      call('POST', '/api/v1/partner/auth/verify-otp', {
        creds,
        body: { email: user.email, code },
      }),
  }
}

/** A user of `creds` whose onboarding (SSN 000000004) waits in manual review. */
async function inReview(call: Call, creds: Creds) {
  const { user, bearer } = await registerAndLogin(call, {}, creds)
  const as = (method: string, path: string, body?: unknown) =>
    call(method, path, { creds, headers: bearer, body })
  const start = await as(
    'POST',
    '/api/v1/partner/cards/onboarding',
    onboardingApplicant(user, { ssn: '000000004' }),
  )
  expect(start.status, start.text).toBe(200)
  const done = await walkAndComplete(call, start.json.data.onboardingId, {
    creds,
    headers: bearer,
    body: { result: 'pass', data: { from: 'test' }, agreement_accepted: true },
  })
  expect(done.json.data.status).toBe('manual_review')
  return { status: async () => (await as('GET', '/api/v1/partner/cards/status')).json.data }
}

async function failingEndpoint(call: Call, creds: Creds, receiver: Receiver) {
  const res = await call('POST', '/api/v1/partner/webhooks', {
    creds,
    body: { url: receiver.url, events: ['card.funded'] },
  })
  expect(res.status, res.text).toBe(201)
  return res.json.webhook.id as string
}

async function attemptsOf(call: Call, creds: Creds, webhookId: string) {
  const res = await call('GET', `/api/v1/partner/webhooks/${webhookId}/deliveries`, { creds })
  expect(res.status, res.text).toBe(200)
  return res.json.data[0].attempts.length as number
}

describe('partner clocks move independently while both partners run', () => {
  it("advancing A 11 minutes expires A's login code and resolves A's review; B's still work", async () => {
    const { call } = await setup(slowRetries)
    const [loginA, loginB] = await Promise.all([
      pendingLogin(call, acme),
      pendingLogin(call, northwind),
    ])
    const [reviewA, reviewB] = await Promise.all([inReview(call, acme), inReview(call, northwind)])

    const moved = await advance(call, A, '11m')
    expect(moved.status).toBe(200)
    expect(moved.json.frozen).toBe(false)

    const expired = await loginA.verify()
    expect(expired.status).toBe(401)
    const ok = await loginB.verify()
    expect(ok.status, ok.text).toBe(200)

    const a = await reviewA.status()
    expect(a.onboarding.status).toBe('completed')
    expect(a.card).toMatchObject({ status: 'active' })
    const b = await reviewB.status()
    expect(b.onboarding.status).toBe('manual_review')
    expect(b.card).toBeNull()
  })

  it("advancing A runs A's due webhook retry and not B's", async () => {
    const { call } = await setup(slowRetries)
    const receiver = await receiverForTest()
    receiver.otherwise = 500
    const hookA = await failingEndpoint(call, acme, receiver)
    const hookB = await failingEndpoint(call, northwind, receiver)
    for (const partner_id of [A, B]) {
      const res = await call('POST', '/_sandbox/events', {
        creds: null,
        body: { partner_id, type: 'card.funded', object: { object: 'card', id: 'card_1' } },
      })
      expect(res.status, res.text).toBe(201)
    }
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
    expect(await attemptsOf(call, acme, hookA)).toBe(1)
    expect(await attemptsOf(call, northwind, hookB)).toBe(1)

    const sandboxNow = async () =>
      Date.parse((await call('GET', '/_sandbox/clock', { creds: null })).json.now)
    await advance(call, A, '1m')
    expect(await attemptsOf(call, acme, hookA)).toBe(2)
    expect(await attemptsOf(call, northwind, hookB)).toBe(1)

    // The attempt is stamped with A's time, a minute ahead of the sandbox's: still ahead of the
    // sandbox's time read after it (by up to a minute), however long the requests took.
    const deliveries = await call('GET', `/api/v1/partner/webhooks/${hookA}/deliveries`, {
      creds: acme,
    })
    const second = Date.parse(deliveries.json.data[0].attempts[1].at)
    const after = await sandboxNow()
    expect(second).toBeGreaterThan(after)
    expect(second).toBeLessThanOrEqual(after + 60_000)
  })

  it("A's rows and events carry A's time; B's the sandbox time", async () => {
    const { call } = await setup(slowRetries)
    await advance(call, A, '2d')
    const [a, b] = await Promise.all([
      registerAndLogin(call, {}, acme),
      registerAndLogin(call, {}, northwind),
    ])
    const meA = await call('GET', '/api/v1/partner/users/me', { creds: acme, headers: a.bearer })
    const meB = await call('GET', '/api/v1/partner/users/me', {
      creds: northwind,
      headers: b.bearer,
    })
    const ahead = Date.parse(meA.json.created_at) - Date.parse(meB.json.created_at)
    expect(ahead).toBeGreaterThan(2 * 86_400_000 - 60_000)
    expect(ahead).toBeLessThan(2 * 86_400_000 + 60_000)
    // A session lasts its TTL on its partner's clock: A's expiresAt is two days ahead too.
    expect(a.expiresAt - b.expiresAt).toBeGreaterThan(2 * 86_400_000 - 60_000)
    const events = await call('GET', `/_sandbox/events?partner_id=${A}`, { creds: null })
    const created = events.json.data.find((e: { type: string }) => e.type === 'user.created')
    expect(created.created * 1000).toBeGreaterThan(Date.now() + 86_400_000)
  })

  it("advancing A a week closes A's dispute at its deadline; B's stays under review", async () => {
    const { call } = await setup(slowRetries)
    const disputed = async (creds: Creds) => {
      const holder = await onboardedUser(call, {}, creds)
      const as = (method: string, path: string, body?: unknown) =>
        call(method, path, { creds, headers: holder.bearer, body })
      const fund = await as('POST', '/api/v1/partner/cards/simulate-fund', { amount: 100 })
      expect(fund.status, fund.text).toBe(200)
      const bought = await as('POST', '/api/v1/partner/cards/simulate-purchase', {
        amount: 20,
        merchant: { name: 'Corner Shop' },
      })
      expect(bought.status, bought.text).toBe(201)
      const txn = bought.json.data.id as string
      await as('POST', `/api/v1/partner/transactions/${txn}/simulate-clearing`)
      const opened = await as('POST', '/api/v1/partner/disputes', {
        transaction_id: txn,
        reason: 'fraudulent',
      })
      expect(opened.status, opened.text).toBe(201)
      const id = opened.json.data.id as string
      return async () => {
        // A week on, the first session has expired (on that partner's clock): log in again.
        const { sessionToken } = await loginSession(
          call,
          holder.user.email,
          holder.user.password,
          creds,
        )
        const res = await call('GET', `/api/v1/partner/disputes/${id}`, {
          creds,
          headers: { authorization: `Bearer ${sessionToken}` },
        })
        expect(res.status, res.text).toBe(200)
        return res.json.data.status as string
      }
    }
    const [statusA, statusB] = await Promise.all([disputed(acme), disputed(northwind)])
    await advance(call, A, '7d')
    expect(await statusA()).not.toBe('under_review')
    expect(await statusB()).toBe('under_review')
  })

  it("advancing A past a day ends A's sessions; B's session keeps working", async () => {
    const { call } = await setup(slowRetries)
    const [a, b] = await Promise.all([
      registerAndLogin(call, {}, acme),
      registerAndLogin(call, {}, northwind),
    ])
    await advance(call, A, '25h')
    const meA = await call('GET', '/api/v1/partner/users/me', { creds: acme, headers: a.bearer })
    expect(meA.status).toBe(401)
    expect(meA.json.error.message).toMatch(/expired/)
    const meB = await call('GET', '/api/v1/partner/users/me', {
      creds: northwind,
      headers: b.bearer,
    })
    expect(meB.status).toBe(200)
  })

  it("advancing A into the next minute opens A's rate-limit window; B stays limited", async () => {
    // Frozen, so no real minute boundary can open B's window during the test.
    const { call } = await setup(slowRetries, { frozenAt: true })
    for (const id of [A, B])
      await call('PATCH', `/_sandbox/partners/${id}`, { creds: null, body: { rate_limit: 2 } })
    for (const creds of [acme, northwind]) {
      for (let i = 0; i < 2; i++) await call('GET', '/api/v1/partner/me', { creds })
      expect((await call('GET', '/api/v1/partner/me', { creds })).status).toBe(429)
    }
    await advance(call, A, '1m')
    expect((await call('GET', '/api/v1/partner/me', { creds: acme })).status).toBe(200)
    expect((await call('GET', '/api/v1/partner/me', { creds: northwind })).status).toBe(429)
  })

  it('the sandbox clock moves both partners: a global 11 minutes expires both codes', async () => {
    const { call } = await setup(slowRetries)
    const [loginA, loginB] = await Promise.all([
      pendingLogin(call, acme),
      pendingLogin(call, northwind),
    ])
    await advance(call, B, '1m')
    const global = await call('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { by: '11m' },
    })
    expect(global.status).toBe(200)
    expect((await loginA.verify()).status).toBe(401)
    expect((await loginB.verify()).status).toBe(401)
    const b = await call('GET', `/_sandbox/partners/${B}/clock`, { creds: null })
    expect(b.json.offset_ms).toBeGreaterThanOrEqual(60_000)
    expect(b.json.offset_ms).toBeLessThan(61_000)
  })
})
