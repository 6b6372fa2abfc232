import { describe, expect, it } from 'vitest'
import {
  ControlPlaneError,
  createControlClient,
  NotFoundInSandboxError,
  WaitTimeoutError,
} from '../src/index.js'
import { sharedControlClient } from './helpers.js'

const TOKEN = 'ctl-test-token'
const shared = sharedControlClient(TOKEN)

/** The partner API, called the way a partner's backend does: plain fetch with the headers. */
async function api(
  partner: { headers: Record<string, string>; apiBase: string },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${partner.apiBase}${path}`, {
    method,
    headers: { ...partner.headers, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  // biome-ignore lint/suspicious/noExplicitAny: the test reads response fields freely
  return { status: res.status, json: (await res.json()) as any }
}

const user = (n: string) => ({
  email: `client-${n}@example.test`,
  phone_number: '+14155550199',
  first_name: 'Casey',
  last_name: 'Client',
  password: 'Client-Passw0rd!',
  ssn: '123-45-6789',
  date_of_birth: '1991-02-03',
})

async function signIn(
  partner: Awaited<ReturnType<typeof shared.control.createPartner>>,
  n: string,
) {
  const u = user(n)
  const reg = await api(partner, 'POST', '/partner/auth/register', u)
  expect(reg.status).toBe(201)
  await api(partner, 'POST', '/partner/auth/login', { email: u.email, password: u.password })
  const code = await partner.inbox.latestCode(u.email)
  const verify = await api(partner, 'POST', '/partner/auth/verify-otp', { email: u.email, code })
  expect(verify.status).toBe(200)
  return { ...u, id: reg.json.userId as string, token: verify.json.sessionToken as string }
}

describe('createControlClient against a running sandbox (admin token, real socket)', () => {
  it('honours the admin token: without it every call is a typed 401', async () => {
    const anonymous = createControlClient(shared.sandbox.url)
    const error = await anonymous.partners.list().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ControlPlaneError)
    expect(error).toMatchObject({ status: 401, code: 'unauthorized' })
    const wrong = createControlClient(shared.sandbox.url, { adminToken: 'nope' })
    await expect(wrong.clock.get()).rejects.toMatchObject({ status: 401 })
    expect((await shared.control.health()).status).toBe('ok')
  })

  it('createPartner gives credentials and ready headers that work on the partner API', async () => {
    const partner = await shared.control.createPartner({ name: 'Client Worker 1' })
    expect(partner.apiKey).toMatch(/^pk_test_/)
    expect(partner.apiSecret).toMatch(/^sk_test_/)
    expect(partner.headers).toEqual({
      'X-Partner-Key': partner.apiKey,
      'X-Partner-Secret': partner.apiSecret,
    })
    const me = await api(partner, 'GET', '/partner/me')
    expect(me.json.partner.id).toBe(partner.id)
    const listed = await shared.control.partners.list()
    expect(listed.data.map((p) => p.id)).toContain(partner.id)
  })

  it('turns a 4xx into a ControlPlaneError naming the bad field', async () => {
    const error = await shared.control.createPartner({ name: '' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ControlPlaneError)
    const e = error as ControlPlaneError
    expect(e.status).toBe(400)
    expect(e.code).toBe('validation_error')
    expect(e.details.map((d) => d.field)).toContain('name')
    expect(e.requestId).toMatch(/^req_/)
    expect(e.message).toContain('POST /_sandbox/partners answered 400')
  })

  it('inbox.latestCode reads the code sent to that user of that partner only', async () => {
    const partner = await shared.control.createPartner({
      name: 'Client Inbox',
      scenario: 'random-otp',
    })
    const u = await signIn(partner, 'inbox')
    expect(u.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    await api(partner, 'POST', '/partner/auth/forgot-password/request', { email: u.email })
    const reset = await partner.inbox.latestCode(u.email, { kind: 'password_reset_code' })
    expect(reset).toMatch(/^\d{6}$/)
    const other = await shared.control.createPartner({ name: 'Client Inbox Other' })
    await expect(other.inbox.latestCode(u.email)).rejects.toBeInstanceOf(NotFoundInSandboxError)
  })

  it('webhooks.waitFor answers when the event happens, with where and a timeout', async () => {
    const partner = await shared.control.createPartner({ name: 'Client Waiter' })
    const pending = partner.webhooks.waitFor('card.funded', {
      timeout: 5000,
      where: (e) => e.data.object.amount === 2,
    })
    await partner.webhooks.trigger('card.funded', { amount: 1 })
    await partner.webhooks.trigger('card.funded', { amount: 2 })
    const event = await pending
    expect(event).toMatchObject({ type: 'card.funded', data: { object: { amount: 2 } } })
    const latest = await partner.webhooks.latest()
    expect(latest?.id).toBe(event.id)
    const late = partner.webhooks.waitFor('card.funded', { after: event.id, timeout: 100 })
    await expect(late).rejects.toBeInstanceOf(WaitTimeoutError)
    const all = await partner.webhooks.events({ type: 'card.funded' })
    expect(all.data).toHaveLength(2)
  })

  it('waitForDelivery waits until the sink got the event, signature checked', async () => {
    const sink = shared.control.sinks.url('client-test')
    const partner = await shared.control.createPartner({ name: 'Client Sink', webhook_url: sink })
    await shared.control.sinks.configure('client-test', { secret: partner.webhookSecret })
    await partner.webhooks.trigger('webhook.test', { hello: 'world' })
    const { event, delivery } = await partner.webhooks.waitForDelivery('webhook.test')
    expect(delivery).toMatchObject({ event_id: event.id, status: 'succeeded' })
    const received = await shared.control.sinks.get('client-test')
    expect(received.data[0]?.signature).toEqual({ service: true, standard: true })
    expect(JSON.parse(received.data[0]?.body ?? '{}').id).toBe(event.id)
    await shared.control.sinks.clear('client-test')
  })

  it('requests.find and count see only that partner; scenario.use switches it', async () => {
    const partner = await shared.control.createPartner({ name: 'Client Journal' })
    await api(partner, 'GET', '/partner/me')
    await api(partner, 'GET', '/partner/me', undefined, { prefer: 'code=503' })
    expect(await partner.requests.count({ path: '/api/v1/partner/me' })).toBe(2)
    expect(await partner.requests.count({ status: 503 })).toBe(1)
    const [latest] = await partner.requests.find({ limit: 1 })
    expect(latest).toMatchObject({
      status: 503,
      rules: [{ id: 'Prefer: code=503', effect: 'respond', status: 503 }],
    })
    expect(latest?.request?.headers['x-partner-secret']).toBe('[redacted]')
    const switched = await partner.scenario.use('kyc-fail')
    expect(switched.scenario).toBe('kyc-fail')
    await api(partner, 'GET', '/partner/me')
    expect((await partner.requests.find({ limit: 1 }))[0]?.scenario).toBe('kyc-fail')
  })

  it("the partner's clock moves only that partner", async () => {
    const a = await shared.control.createPartner({ name: 'Client Clock A' })
    const b = await shared.control.createPartner({ name: 'Client Clock B' })
    const before = await a.clock.now()
    const moved = await a.clock.advance('11m')
    expect(moved.partner_id).toBe(a.id)
    expect(moved.offset_ms).toBeGreaterThanOrEqual(11 * 60_000)
    expect((await a.clock.now()).getTime() - before.getTime()).toBeGreaterThanOrEqual(11 * 60_000)
    const frozen = await a.clock.freeze('2031-01-01T00:00:00Z')
    expect(frozen).toMatchObject({ frozen: true, now: '2031-01-01T00:00:00.000Z' })
    expect((await a.clock.unfreeze()).frozen).toBe(false)
    expect((await b.clock.state()).offset_ms).toBe(0)
    const bad = await a.clock.advance('soon').catch((e: unknown) => e)
    expect(bad).toMatchObject({ status: 400, code: 'validation_error' })
  })

  it("a partner's clock advance expires its code and not another partner's", async () => {
    const a = await shared.control.createPartner({ name: 'Client Clock A' })
    const b = await shared.control.createPartner({ name: 'Client Clock B' })
    const ua = user('clock-a')
    const ub = user('clock-b')
    for (const [p, u] of [
      [a, ua],
      [b, ub],
    ] as const) {
      await api(p, 'POST', '/partner/auth/register', u)
      await api(p, 'POST', '/partner/auth/login', { email: u.email, password: u.password })
    }
    // Read while both can still be used: the inbox shows a code only until it ends.
    const codeA = await a.inbox.latestCode(ua.email)
    const codeB = await b.inbox.latestCode(ub.email)
    const before = await a.clock.now()
    const moved = await a.clock.advance('11m')
    expect(moved.offset_ms).toBeGreaterThanOrEqual(11 * 60_000)
    expect((await a.clock.now()).getTime() - before.getTime()).toBeGreaterThanOrEqual(11 * 60_000)
    // A's code has expired on A's clock: its message stays, without the code.
    await expect(a.inbox.latestCode(ua.email)).rejects.toBeInstanceOf(NotFoundInSandboxError)
    const [endedA] = (await a.inbox.list({ email: ua.email, kind: 'login_code' })).data
    expect(endedA).toMatchObject({ code: null, code_ended: 'expired' })
    // B's clock did not move: its code is still shown.
    expect(await b.inbox.latestCode(ub.email)).toBe(codeB)
    const expired = await api(a, 'POST', '/partner/auth/verify-otp', {
      email: ua.email,
      code: codeA,
    })
    expect(expired.status).toBe(401)
    const fine = await api(b, 'POST', '/partner/auth/verify-otp', { email: ub.email, code: codeB })
    expect(fine.status).toBe(200)
    const frozen = await a.clock.freeze()
    expect(frozen.frozen).toBe(true)
    expect((await a.clock.unfreeze()).frozen).toBe(false)
    expect((await b.clock.state()).offset_ms).toBe(0)
  })

  it("reset, snapshot and restore touch only that partner's data", async () => {
    const a = await shared.control.createPartner({ name: 'Client Reset A' })
    const b = await shared.control.createPartner({ name: 'Client Reset B' })
    await signIn(a, 'reset-a')
    await signIn(b, 'reset-b')
    const saved = await a.snapshot()
    expect((await a.reset()).ok).toBe(true)
    const gone = await api(a, 'POST', '/partner/auth/login', {
      email: user('reset-a').email,
      password: user('reset-a').password,
    })
    expect(gone.status).toBe(401)
    expect((await api(a, 'GET', '/partner/me')).status).toBe(200)
    expect((await a.restore(saved)).ok).toBe(true)
    const back = await api(a, 'POST', '/partner/auth/login', {
      email: user('reset-a').email,
      password: user('reset-a').password,
    })
    expect(back.status).toBe(200)
    const bLogin = await api(b, 'POST', '/partner/auth/login', {
      email: user('reset-b').email,
      password: user('reset-b').password,
    })
    expect(bLogin.status).toBe(200)
    expect((await a.delete()).ok).toBe(true)
    expect((await api(a, 'GET', '/partner/me')).status).toBe(401)
  })

  it('covers the sandbox-wide helpers: clock, rules, scenarios, journal, inbox', async () => {
    const clock = await shared.control.clock.get()
    expect(typeof clock.frozen).toBe('boolean')
    const partner = await shared.control.createPartner({ name: 'Client Wide' })
    const rule = await partner.rules.add({
      match: { method: 'GET', path: '/api/v1/partner/usage' },
      respond: { status: 502 },
      once: true,
    })
    expect(rule).toMatchObject({ partner_id: partner.id, times: 1, respond: { status: 502 } })
    expect((await api(partner, 'GET', '/partner/usage')).status).toBe(502)
    expect((await api(partner, 'GET', '/partner/usage')).status).toBe(200)
    const global = await shared.control.rules.add({
      match: { method: 'GET', path: '/api/v1/partner/usage' },
      latency_ms: 1,
    })
    expect((await shared.control.rules.list()).map((r) => r.id)).toContain(global.id)
    await shared.control.rules.clear()
    expect(await shared.control.rules.list()).toEqual([])
    const scenarios = await shared.control.scenarios.list()
    expect(scenarios.data.map((s) => s.name)).toContain('kyc-fail')
    const loaded = await shared.control.scenarios.load({
      name: 'client-loaded',
      description: 'Loaded by the client test.',
      otp: { code: '424242' },
    })
    expect(loaded).toEqual({
      name: 'client-loaded',
      description: expect.any(String),
      bundled: false,
    })
    await shared.control.scenarios.load({ name: 'client-dropped', description: 'Deleted next.' })
    expect(await shared.control.scenarios.delete('client-dropped')).toMatchObject({ ok: true })
    expect((await shared.control.scenarios.list()).data.map((s) => s.name)).not.toContain(
      'client-dropped',
    )
    expect(await shared.control.requests.count({ partner_id: partner.id, status: 502 })).toBe(1)
    const wide = await signIn(partner, 'wide')
    // Newest first: the one message asked for is the login code just sent, used by signIn.
    expect((await shared.control.inbox.list({ limit: 1 })).data).toEqual([
      expect.objectContaining({
        partner_id: partner.id,
        user_id: wide.id,
        to: wide.email,
        kind: 'login_code',
        code: null,
        code_ended: 'used',
      }),
    ])
    // Every delivery of the tests above was made: none is due, so a flush attempts none.
    expect((await shared.control.webhooks.flush()).attempted).toBe(0)
  })

  it('is also shared.sandbox.control, in process, with the same types', async () => {
    const partner = await shared.sandbox.control.createPartner({ name: 'In Process' })
    const me = await api(partner, 'GET', '/partner/me')
    expect(me.json.partner.id).toBe(partner.id)
    expect(shared.sandbox.control.url).toBe(shared.sandbox.url)
  })
})
