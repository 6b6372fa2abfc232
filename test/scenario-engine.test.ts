import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createSandbox, ScenarioError } from '../src/index.js'
import { listBundledScenarios } from '../src/scenarios/loader.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { spawnCli, stopCliProcesses } from './cli-process.js'
import {
  acme,
  type Call,
  type Creds,
  createPartner,
  hostedOnboarding,
  journalOf,
  newUser,
  onboardingApplicant,
  orgHeaders,
  type Receiver,
  receiverForTest,
  registerAndLogin,
  servedForTest,
  setup,
  tempDirForTest,
} from './helpers.js'

/**
 * The scenario engine: scenarios per partner and per request, switched at run time; bad
 * scenarios refused with the path of the bad value; rules from the control plane; the
 * request journal; the CLI's scenario commands; and the control plane in the OpenAPI document.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read response fields freely and assert each one
type Json = any

const API = '/api/v1/partner'
const ME = `${API}/me`
const USAGE = `${API}/usage`
const STATUS = `${API}/cards/status`
const LOGIN = `${API}/auth/login`
const VERIFY = `${API}/auth/verify-otp`
const HEADER = 'X-Sandbox-Scenario'

const cleanup: (() => unknown)[] = []
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close()
})

const tempDir = () => tempDirForTest('scenario-engine-')

async function loadScenarioDoc(call: Call, doc: Record<string, unknown>) {
  const res = await call('POST', '/_sandbox/scenarios', { creds: null, body: doc })
  expect(res.status, res.text).toBe(201)
  return res.json
}

/** A rule for one partner's requests, or (without `partnerId`) every partner's. */
async function addRule(call: Call, body: Record<string, unknown>, partnerId?: string) {
  const path = partnerId ? `/_sandbox/partners/${partnerId}/rules` : '/_sandbox/rules'
  const res = await call('POST', path, { creds: null, body })
  expect(res.status, res.text).toBe(201)
  return res.json.rule
}

/** Whether a journal entry shows a rule met. */
const ruled = (entry: { rules: unknown[] }) => entry.rules.length > 0

async function inboxMessages(call: Call, query: Record<string, string>): Promise<Json[]> {
  const res = await call('GET', `/_sandbox/inbox?${new URLSearchParams(query)}`, { creds: null })
  expect(res.status, res.text).toBe(200)
  return res.json.data
}

/** The codes the inbox shows: a code only while it can be used, `null` once used or expired. */
async function inboxCodes(call: Call, query: Record<string, string>): Promise<string[]> {
  return (await inboxMessages(call, query)).map((m: Json) => m.code)
}

/** Logs `user` in; answers the code the inbox shows for it, read before anything uses it. */
async function loginCode(
  call: Call,
  user: { email: string; password: string },
  headers: Record<string, string> = {},
): Promise<string> {
  const login = await call('POST', LOGIN, {
    body: { email: user.email, password: user.password },
    headers,
  })
  expect(login.status, login.text).toBe(200)
  const [code] = await inboxCodes(call, { email: user.email })
  return code as string
}

/** Redeems a login code; answers the session's headers. */
async function verify(call: Call, email: string, code: string) {
  const verified = await call('POST', VERIFY, { body: { email, code } })
  expect(verified.status, verified.text).toBe(200)
  return { authorization: `Bearer ${verified.json.sessionToken}` }
}

/** A new user of the default partner, registered; not logged in yet. */
async function registered(call: Call) {
  const user = newUser()
  const res = await call('POST', `${API}/auth/register`, { body: user })
  expect(res.status, res.text).toBe(201)
  return user
}

async function eventIds(call: Call, partnerId: string): Promise<string[]> {
  const res = await call('GET', `/_sandbox/events?partner_id=${partnerId}&limit=500`, {
    creds: null,
  })
  expect(res.status, res.text).toBe(200)
  return res.json.data.map((e: Json) => e.id)
}

const fieldsOf = (res: { json: Json }) =>
  (res.json?.error?.details ?? []).map((d: { field: string }) => d.field)

const APPLICANT_SSN = '000000001'

/** Resolves each caller's wait once `parties` callers wait: flows meet there, then go on. */
function meetingPoint(parties: number): () => Promise<void> {
  let waiting: (() => void)[] = []
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve)
      if (waiting.length < parties) return
      const all = waiting
      waiting = []
      for (const go of all) go()
    })
}

describe('two partners with different scenarios, at the same time', () => {
  it('each sees only its own outcomes, codes, webhooks and rules', async () => {
    const { call } = await setup()
    const hooksA = await receiverForTest()
    const hooksB = await receiverForTest()
    await loadScenarioDoc(call, {
      name: 'qa-kyc-fail-random-otp',
      description: 'Onboardings fail KYC; login codes are random.',
      otp: { random: true },
      onboarding: { magic_values: false, default: 'kyc_fail' },
    })
    const a = await createPartner(call, {
      name: 'Worker A',
      scenario: 'qa-kyc-fail-random-otp',
      webhook_url: hooksA.url,
    })
    const b = await createPartner(call, {
      name: 'Worker B',
      scenario: 'happy-path',
      webhook_url: hooksB.url,
    })
    // Rules for A only: its first GET /partner/me answers 503, every other call is slower.
    await addRule(
      call,
      {
        match: { method: 'GET', path: '/api/v1/partner/me' },
        respond: { status: 503 },
        once: true,
      },
      a.id,
    )
    await addRule(call, { match: { path: '/api/v1/*' }, latency_ms: 5 }, a.id)

    // The two flows meet before each phase, so their requests are in flight together.
    const together = meetingPoint(2)
    /** A partner's whole flow: register, log in with the code from the inbox, onboard. */
    const flow = async (creds: Creds, partnerId: string) => {
      const user = newUser()
      await together()
      const reg = await call('POST', `${API}/auth/register`, { creds, body: user })
      expect(reg.status, reg.text).toBe(201)
      await together()
      const login = await call('POST', LOGIN, {
        creds,
        body: { email: user.email, password: user.password },
      })
      expect(login.status, login.text).toBe(200)
      await together()
      const [code] = await inboxCodes(call, { partner_id: partnerId, email: user.email })
      // The partner's whole inbox, while its code can still be used (neither flow verified yet).
      const inbox = await inboxCodes(call, { partner_id: partnerId })
      await together()
      const verified = await call('POST', VERIFY, {
        creds,
        body: { email: user.email, code },
      })
      expect(verified.status, verified.text).toBe(200)
      const headers = { authorization: `Bearer ${verified.json.sessionToken}` }
      await together()
      // A client that retries once on a 503.
      const meStatuses: number[] = []
      for (let n = 0; n < 2; n++) {
        const me = await call('GET', ME, { creds })
        meStatuses.push(me.status)
        if (me.status === 200) {
          expect(me.json.partner.id).toBe(partnerId)
          break
        }
      }
      await together()
      const onboarding = await hostedOnboarding(
        call,
        headers,
        { ...onboardingApplicant(user), ssn: APPLICANT_SSN },
        creds,
      )
      await together()
      const status = await call('GET', STATUS, { creds, headers })
      expect(status.status, status.text).toBe(200)
      return { user, code, inbox, meStatuses, onboarding, card: status.json.data.card }
    }

    const [ra, rb] = await Promise.all([flow(a.creds, a.id), flow(b.creds, b.id)])

    // The two flows really ran interleaved.
    const order = (await journalOf(call, { limit: '1000' }))
      .filter((e) => e.partner_id === a.id || e.partner_id === b.id)
      .map((e) => e.partner_id)
    const switches = order.filter((id, i) => i > 0 && id !== order[i - 1]).length
    expect(switches).toBeGreaterThanOrEqual(6)

    // Outcomes: A fails KYC, B (magic values off) passes with the same SSN.
    expect(ra.onboarding.steps).toEqual(['identity_verification'])
    expect(ra.onboarding.completion).toMatchObject({
      status: 'failed',
      failure_reason: 'identity_verification_failed',
      card: null,
    })
    expect(ra.card).toBeNull()
    expect(rb.onboarding.completion).toMatchObject({
      status: 'completed',
      card: { status: 'active' },
    })
    expect(rb.card).toMatchObject({ status: 'active' })

    // Codes: A's are random, B's the fixed default; each inbox holds only its own partner's.
    expect(ra.inbox).toEqual([ra.code])
    expect(ra.code).toMatch(/^\d{6}$/)
    expect(ra.code).not.toBe('000000')
    expect(rb.inbox).toEqual(['000000'])
    // Each verify-otp used its code: the message stays in its own partner's inbox, without it.
    const usedBy = async (partnerId: string) =>
      (await inboxMessages(call, { partner_id: partnerId })).map((m: Json) => ({
        to: m.to,
        code: m.code,
        code_ended: m.code_ended,
      }))
    expect(await usedBy(a.id)).toEqual([{ to: ra.user.email, code: null, code_ended: 'used' }])
    expect(await usedBy(b.id)).toEqual([{ to: rb.user.email, code: null, code_ended: 'used' }])

    // Rules: only A's requests met them.
    expect(ra.meStatuses).toEqual([503, 200])
    expect(rb.meStatuses).toEqual([200])
    const journalA = await journalOf(call, { partner_id: a.id })
    const journalB = await journalOf(call, { partner_id: b.id })
    expect(journalA.length).toBeGreaterThan(5)
    expect(journalB.length).toBeGreaterThan(5)
    // Rules are the partner API's: the hosted pages A's user opened are A's entries too
    // (attributed by their token), and never met one.
    const api = (entry: { path: string }) => entry.path.startsWith('/api/v1/')
    expect(journalA.filter((e) => !api(e)).length).toBeGreaterThan(0)
    for (const entry of journalA.filter(api)) expect(ruled(entry), entry.path).toBe(true)
    for (const entry of journalA.filter((e) => !api(e)))
      expect(ruled(entry), entry.path).toBe(false)
    for (const entry of journalB) expect(ruled(entry), entry.path).toBe(false)
    expect(await journalOf(call, { partner_id: b.id, ruled: 'true' })).toEqual([])
    expect(new Set(journalA.map((e) => e.scenario))).toEqual(new Set(['qa-kyc-fail-random-otp']))
    expect(new Set(journalB.map((e) => e.scenario))).toEqual(new Set(['happy-path']))

    // Webhooks: each receiver got exactly its own partner's events.
    const idsA = await eventIds(call, a.id)
    const idsB = await eventIds(call, b.id)
    await hooksA.waitFor(idsA.length)
    await hooksB.waitFor(idsB.length)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const received = (r: Receiver) => r.requests.map((q) => q.headers['webhook-id'])
    expect(new Set(received(hooksA))).toEqual(new Set(idsA))
    expect(new Set(received(hooksB))).toEqual(new Set(idsB))
    const typesOf = (r: Receiver) => r.requests.map((q) => JSON.parse(q.body.toString()).type)
    expect(typesOf(hooksA)).toContain('onboarding.failed')
    expect(typesOf(hooksA)).not.toContain('card.created')
    expect(typesOf(hooksB)).toContain('card.created')
    expect(typesOf(hooksB)).not.toContain('onboarding.failed')
    const bodies = (r: Receiver) => r.requests.map((q) => q.body.toString()).join('\n')
    expect(bodies(hooksA)).not.toContain(rb.user.email)
    expect(bodies(hooksB)).not.toContain(ra.user.email)
  })
})

describe('X-Sandbox-Scenario: a scenario for one request', () => {
  it('a name: that one onboarding fails KYC, the partner’s next one passes', async () => {
    const { call } = await setup()
    const p = await createPartner(call, { name: 'Header user', scenario: 'happy-path' })
    const u = await registerAndLogin(call, {}, p.creds)
    const applicant = { ...onboardingApplicant(u.user), ssn: '123456789' }
    const failed = await hostedOnboarding(call, u.bearer, applicant, p.creds, {
      [HEADER]: 'kyc-fail',
    })
    expect(failed.steps).toEqual(['identity_verification'])
    expect(failed.completion).toMatchObject({
      status: 'failed',
      failure_reason: 'identity_verification_failed',
    })
    // The journal names the scenario that request ran under.
    const [start] = await journalOf(call, {
      partner_id: p.id,
      path: '/api/v1/partner/cards/onboarding',
      limit: '1000',
    }).then((entries) => entries.filter((e) => e.method === 'POST' && !e.path.endsWith('complete')))
    expect(start).toMatchObject({ status: 200, scenario: 'kyc-fail' })

    const passed = await hostedOnboarding(call, u.bearer, applicant, p.creds)
    expect(passed.completion).toMatchObject({ status: 'completed', card: { status: 'active' } })
    // The partner's own scenario was never touched.
    const partners = await call('GET', '/_sandbox/partners', { creds: null })
    expect(partners.json.data.find((x: Json) => x.id === p.id).scenario).toBe('happy-path')
  })

  it('a JSON override: that login’s code is 123456, the next login’s the partner’s default', async () => {
    const { call } = await setup()
    const user = await registered(call)
    // Each login's code as the inbox shows it when sent, before verify-otp uses it.
    const codes: string[] = []
    codes.push(await loginCode(call, user))
    expect(codes).toEqual(['000000'])
    await verify(call, user.email, '000000')
    codes.push(await loginCode(call, user, { [HEADER]: '{"otp":{"code":"123456"}}' }))
    expect(codes.at(-1)).toBe('123456')
    const [journaled] = await journalOf(call, { path: LOGIN, limit: '1' })
    expect(journaled).toMatchObject({ status: 200, scenario: 'default+request' })
    await verify(call, user.email, '123456')
    codes.push(await loginCode(call, user))
    await verify(call, user.email, codes.at(-1) as string)
    expect(codes).toEqual(['000000', '123456', '000000'])
    // All three were used: the messages stay, without their codes.
    const messages = await inboxMessages(call, { email: user.email })
    expect(messages.map((m: Json) => [m.code, m.code_ended])).toEqual([
      [null, 'used'],
      [null, 'used'],
      [null, 'used'],
    ])
  })

  it('refuses an unknown name, invalid JSON and an invalid override with a 400; nothing happens', async () => {
    const { call } = await setup()
    const user = await registered(call)
    // The one login that sends a code; read while it can be used, then used.
    const code = await loginCode(call, user)
    expect(code).toBe('000000')
    await verify(call, user.email, code)
    const login = (value: string) =>
      call('POST', LOGIN, {
        body: { email: user.email, password: user.password },
        headers: { [HEADER]: value },
      })

    const unknown = await login('no-such-scenario')
    expect(unknown.status, unknown.text).toBe(400)
    expect(unknown.json.error.code).toBe('validation_error')
    expect(unknown.json.error.message).toMatch(/^X-Sandbox-Scenario: .*no-such-scenario/)
    expect(unknown.json.error.details).toEqual([
      { field: 'X-Sandbox-Scenario', message: expect.any(String), location: 'header' },
    ])

    const broken = await login('{"otp":')
    expect(broken.status, broken.text).toBe(400)
    expect(broken.json.error.message).toMatch(/X-Sandbox-Scenario: .*valid JSON/)
    expect(fieldsOf(broken)).toEqual(['X-Sandbox-Scenario'])

    const invalid = await login('{"otp":{"code":"12"}}')
    expect(invalid.status, invalid.text).toBe(400)
    expect(invalid.json.error.message).toContain('otp.code')
    expect(invalid.json.error.message).toContain('a code is 6 digits')

    // None of them sent a code: the only message is the first login's, its code used.
    const messages = await inboxMessages(call, { email: user.email })
    expect(messages.map((m: Json) => [m.code, m.code_ended])).toEqual([[null, 'used']])
  })

  it('names a scenario, never a file on the server’s disk', async () => {
    const { call } = await setup()
    const file = join(tempDir(), 'kyc.json')
    writeFileSync(
      file,
      JSON.stringify({
        name: 'from-disk',
        description: 'read from disk',
        onboarding: { magic_values: false, default: 'kyc_fail' },
      }),
    )
    const u = await registerAndLogin(call)
    for (const value of [file, '../scenarios/kyc-fail.json', '/etc/hostname']) {
      const res = await call('GET', ME, { headers: { [HEADER]: value } })
      expect(res.status, `${value}: ${res.text}`).toBe(400)
      expect(fieldsOf(res)).toEqual(['X-Sandbox-Scenario'])
    }
    const patch = await call('PATCH', `/_sandbox/partners/${DEFAULT_PARTNER.id}`, {
      creds: null,
      body: { scenario: file },
    })
    expect(patch.status, patch.text).toBe(400)
    const passed = await hostedOnboarding(call, u.bearer, {
      ...onboardingApplicant(u.user),
      ssn: '123456789',
    })
    expect(passed.completion.status).toBe('completed')
  })

  it('does not leak into the webhook deliveries of another partner', async () => {
    const { call } = await setup()
    const hooksA = await receiverForTest()
    const hooksB = await receiverForTest()
    hooksA.script(500)
    await loadScenarioDoc(call, {
      name: 'slow-retries',
      description: 'One second between attempts.',
      webhooks: { retry_delays_ms: [0, 1000, 1000, 1000] },
    })
    const a = await createPartner(call, {
      name: 'A',
      scenario: 'slow-retries',
      webhook_url: hooksA.url,
    })
    const b = await createPartner(call, { name: 'B', webhook_url: hooksB.url })
    // A's first delivery fails at its receiver; its retry is due a second later.
    const first = await call('POST', `${API}/auth/register`, { creds: a.creds, body: newUser() })
    expect(first.status, first.text).toBe(201)
    await hooksA.waitFor(1)
    await new Promise((resolve) => setTimeout(resolve, 50))
    // Meanwhile B makes one request under an override that fails every webhook attempt.
    const other = await call('POST', `${API}/auth/register`, {
      creds: b.creds,
      body: newUser(),
      headers: { [HEADER]: '{"webhooks":{"fail_first_attempts":4}}' },
    })
    expect(other.status, other.text).toBe(201)
    // A's retry still reaches A's receiver, under A's own scenario.
    await hooksA.waitFor(2)
    const res = await call('GET', `${API}/webhooks`, { creds: a.creds })
    const webhookId = res.json.data[0].id
    // The receiver sees the request before the sandbox records the answer: wait for it.
    const attempts = async () =>
      (await call('GET', `${API}/webhooks/${webhookId}/deliveries`, { creds: a.creds })).json
        .data[0].attempts as Json[]
    const deadline = Date.now() + 15_000
    while ((await attempts()).length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10))
    expect((await attempts()).map((x) => x.status_code)).toEqual([500, 200])
  })
})

describe('switching scenarios at run time', () => {
  it('PATCH /_sandbox/partners/:id changes the next request’s outcome; sessions live on', async () => {
    const { call } = await setup()
    const p = await createPartner(call, { name: 'Switcher', scenario: 'happy-path' })
    const first = await registerAndLogin(call, {}, p.creds)
    const second = await registerAndLogin(call, {}, p.creds)
    const onboard = (u: typeof first) =>
      hostedOnboarding(
        call,
        u.bearer,
        { ...onboardingApplicant(u.user), ssn: '123456789' },
        p.creds,
      )
    expect((await onboard(first)).completion.status).toBe('completed')

    const switched = await call('PATCH', `/_sandbox/partners/${p.id}`, {
      creds: null,
      body: { scenario: 'kyc-fail' },
    })
    expect(switched.status, switched.text).toBe(200)
    expect(switched.json.scenario).toBe('kyc-fail')
    // The session made before the switch still works: no restart happened.
    expect((await onboard(second)).completion).toMatchObject({
      status: 'failed',
      failure_reason: 'identity_verification_failed',
    })

    const unknown = await call('PATCH', `/_sandbox/partners/${p.id}`, {
      creds: null,
      body: { scenario: 'no-such-scenario' },
    })
    expect(unknown.status, unknown.text).toBe(400)
    expect(unknown.json.error.message).toContain('no-such-scenario')
    const partners = await call('GET', '/_sandbox/partners', { creds: null })
    expect(partners.json.data.find((x: Json) => x.id === p.id).scenario).toBe('kyc-fail')
  })

  it('PUT /_sandbox/scenario switches the partners without their own scenario', async () => {
    const { call } = await setup()
    const own = await createPartner(call, { name: 'Own', scenario: 'happy-path' })
    const onboardNew = async (creds: Creds) => {
      const u = await registerAndLogin(call, {}, creds)
      return hostedOnboarding(
        call,
        u.bearer,
        { ...onboardingApplicant(u.user), ssn: '123456789' },
        creds,
      )
    }
    const put = await call('PUT', '/_sandbox/scenario', { creds: null, body: { name: 'kyc-fail' } })
    expect(put.status, put.text).toBe(200)
    expect(put.json).toEqual({ default: 'kyc-fail' })
    expect((await call('GET', '/_sandbox/health', { creds: null })).json.scenario).toBe('kyc-fail')
    expect((await onboardNew(acme)).completion.status).toBe('failed')
    expect((await onboardNew(own.creds)).completion.status).toBe('completed')
    const journal = await journalOf(call, { partner_id: DEFAULT_PARTNER.id, limit: '1' })
    expect(journal[0].scenario).toBe('kyc-fail')

    const bad = await call('PUT', '/_sandbox/scenario', { creds: null, body: { name: 'nope' } })
    expect(bad.status, bad.text).toBe(400)
    const scenarios = await call('GET', '/_sandbox/scenarios', { creds: null })
    expect(scenarios.json.default).toBe('kyc-fail')

    expect(
      (await call('PUT', '/_sandbox/scenario', { creds: null, body: { name: 'default' } })).status,
    ).toBe(200)
    expect((await onboardNew(acme)).completion.status).toBe('completed')
  })
})

describe('bad scenarios are refused with the path of the bad value', () => {
  const bad = {
    name: 'x',
    description: 'd',
    onboarding: { rules: [{ outcome: 'maybe' }] },
  }

  it('POST /_sandbox/scenarios: 400 naming each bad path; the running scenario is unchanged', async () => {
    const { call } = await setup()
    const res = await call('POST', '/_sandbox/scenarios', { creds: null, body: bad })
    expect(res.status, res.text).toBe(400)
    expect(res.json.error.code).toBe('validation_error')
    expect(fieldsOf(res)).toContain('onboarding.rules.0.outcome')
    expect(res.json.error.message).toContain('onboarding.rules.0.outcome')
    const messages = res.json.error.details.map((d: Json) => d.message).join('\n')
    expect(messages).toContain('give at least one of email, last_name, ssn')
    const list = await call('GET', '/_sandbox/scenarios', { creds: null })
    expect(list.json.default).toBe('default')
    expect(list.json.data.map((s: Json) => s.name)).not.toContain('x')
    // And it cannot be used by name.
    const use = await call('PUT', '/_sandbox/scenario', { creds: null, body: { name: 'x' } })
    expect(use.status).toBe(400)
  })

  it('a bad new version of a loaded scenario leaves the old one running', async () => {
    const { call } = await setup()
    await loadScenarioDoc(call, {
      name: 'qa',
      description: 'KYC fails.',
      onboarding: { magic_values: false, default: 'kyc_fail' },
    })
    const p = await createPartner(call, { name: 'QA', scenario: 'qa' })
    const refused = await call('POST', '/_sandbox/scenarios', {
      creds: null,
      body: { ...bad, name: 'qa', onboarding: { default: 'pass', rules: [{ outcome: 'maybe' }] } },
    })
    expect(refused.status).toBe(400)
    const u = await registerAndLogin(call, {}, p.creds)
    const result = await hostedOnboarding(
      call,
      u.bearer,
      { ...onboardingApplicant(u.user), ssn: '123456789' },
      p.creds,
    )
    expect(result.completion.status).toBe('failed')
    const list = await call('GET', '/_sandbox/scenarios', { creds: null })
    expect(list.json.data.find((s: Json) => s.name === 'qa').description).toBe('KYC fails.')
  })

  it('createSandbox({ scenario: file }) rejects with a ScenarioError naming the file and the path', async () => {
    const file = join(tempDir(), 'bad.json')
    writeFileSync(file, JSON.stringify(bad))
    const attempt = createSandbox({ scenario: file, logLevel: 'silent' })
    await expect(attempt).rejects.toBeInstanceOf(ScenarioError)
    await expect(attempt).rejects.toThrow(file)
    await expect(attempt).rejects.toThrow(/onboarding\.rules\.0\.outcome/)
  })

  it('the CLI with --scenario pointing at a bad file exits 1 naming the path', async () => {
    const file = join(tempDir(), 'bad.json')
    writeFileSync(file, JSON.stringify(bad))
    const { code, stdout, stderr } = await runCli(['--scenario', file, '--port', '0'])
    expect(code).toBe(1)
    expect(stderr).toContain(file)
    expect(stderr).toContain('onboarding.rules.0.outcome')
    expect(stdout).not.toContain('ready')
  })
})

describe('rules that fail requests (what faults did)', () => {
  it('an error status on the next 2 calls: two 500s in the error envelope, then 200', async () => {
    const { call } = await setup()
    const rule = await addRule(call, {
      match: { method: 'GET', path: ME },
      respond: { status: 500 },
      times: 2,
    })
    expect(rule).toMatchObject({
      id: expect.stringMatching(/^rul_/),
      partner_id: null,
      times: 2,
      used: 0,
    })
    for (let n = 0; n < 2; n++) {
      const res = await call('GET', ME)
      expect(res.status).toBe(500)
      expect(res.json).toEqual({
        success: false,
        error: { code: 'internal_error', message: expect.stringContaining('on purpose') },
        requestId: expect.any(String),
      })
    }
    expect((await call('GET', ME)).status).toBe(200)
    // Other methods of the route are not matched.
    expect((await call('PATCH', ME, { body: { contact_name: 'Ada' } })).status).toBe(200)
    // It met its 2 requests: it is gone.
    const list = await call('GET', '/_sandbox/rules', { creds: null })
    expect(list.json.data).toEqual([])
    const met = await journalOf(call, { ruled: 'true' })
    expect(met.map((e) => [e.status, e.rules])).toEqual([
      [500, [{ id: rule.id, effect: 'respond', status: 500, off_contract: false }]],
      [500, [{ id: rule.id, effect: 'respond', status: 500, off_contract: false }]],
    ])
  })

  it('latency_ms slows the matching route only', async () => {
    const { call } = await setup()
    await addRule(call, { match: { path: USAGE }, latency_ms: 200 })
    const time = async (path: string) => {
      const started = performance.now()
      const res = await call('GET', path)
      expect(res.status, res.text).toBe(200)
      return performance.now() - started
    }
    // The delay is a floor (load only adds to it); that the other route was not delayed is
    // what the journal records for it, not a race of the two durations.
    expect(await time(USAGE)).toBeGreaterThanOrEqual(195)
    await time(ME)
    const [me, usage] = await journalOf(call, { limit: '2' })
    expect(me).toMatchObject({ path: ME, rules: [] })
    expect(usage).toMatchObject({ path: USAGE, rules: [{ effect: 'latency', latency_ms: 200 }] })
  })

  it('rate 0 never fires, rate 1 always does', async () => {
    const { call } = await setup()
    await addRule(call, { match: { method: 'GET', path: ME }, respond: { status: 502 }, rate: 0 })
    for (let n = 0; n < 20; n++) expect((await call('GET', ME)).status).toBe(200)
    await addRule(call, {
      match: { method: 'GET', path: USAGE },
      respond: { status: 504 },
      rate: 1,
    })
    for (let n = 0; n < 5; n++) {
      const res = await call('GET', USAGE)
      expect(res.status).toBe(504)
      expect(res.json.error.code).toBe('gateway_timeout')
    }
    expect(await journalOf(call, { path: ME, ruled: 'true' })).toEqual([])
  })

  it("a partner's rule affects that partner only; an unknown partner is a 404", async () => {
    const { call } = await setup()
    const p = await createPartner(call, { name: 'Faulty' })
    await addRule(call, { match: { path: '/api/v1/*' }, respond: { status: 503 } }, p.id)
    const theirs = await call('GET', ME, { creds: p.creds })
    expect(theirs.status).toBe(503)
    expect(theirs.headers.get('retry-after')).toBe('1')
    expect((await call('GET', ME)).status).toBe(200)
    const unknown = await call(
      'POST',
      '/_sandbox/partners/00000000-0000-4000-8000-000000000000/rules',
      { creds: null, body: { match: { path: '/api/v1/*' }, respond: { status: 503 } } },
    )
    expect(unknown.status, unknown.text).toBe(404)
  })

  it('a dropped connection over a real socket: the client sees a network error', async () => {
    const sandbox = await servedForTest()
    const admin = (method: string, path: string, body?: unknown) =>
      fetch(`${sandbox.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const added = await admin('POST', '/_sandbox/rules', {
      match: { method: 'GET', path: ME },
      drop_connection: true,
      once: true,
    })
    expect(added.status).toBe(201)
    const me = () => fetch(`${sandbox.url}${ME}`, { headers: orgHeaders(acme) })
    await expect(me()).rejects.toThrow(TypeError)
    expect((await me()).status).toBe(200)
    const journal = (await (await admin('GET', '/_sandbox/requests?ruled=true')).json()) as Json
    expect(journal.data).toHaveLength(1)
    expect(journal.data[0]).toMatchObject({
      path: ME,
      partner_id: DEFAULT_PARTNER.id,
      rules: [{ effect: 'drop_connection' }],
    })
  })

  it.each([
    ['no effect', { match: { path: '/api/v1/*' } }, 'body', 'give an effect'],
    [
      'a bad path',
      { match: { path: 'api/v1/*' }, respond: { status: 500 } },
      'match.path',
      'partner API path',
    ],
    [
      'a bad method',
      { match: { method: 'FETCH', path: '/api/v1/*' }, latency_ms: 5 },
      'match.method',
      '',
    ],
    [
      'both an answer and a dropped connection',
      { match: { path: '/api/v1/*' }, respond: { status: 500 }, drop_connection: true },
      'drop_connection',
      'not respond and drop_connection',
    ],
    [
      'a status the route does not document',
      { match: { path: '/api/v1/*' }, respond: { status: 404 } },
      'match.method',
      'names its operation',
    ],
    [
      'a rate above 1',
      { match: { path: '/api/v1/*' }, respond: { status: 500 }, rate: 2 },
      'rate',
      '',
    ],
    [
      'an unknown field',
      { match: { path: '/api/v1/*' }, respond: { status: 500 }, delay: 5 },
      'delay',
      'delay',
    ],
  ])('refuses a rule with %s: 400 with details, nothing added', async (_, body, field, message) => {
    const { call } = await setup()
    const res = await call('POST', '/_sandbox/rules', { creds: null, body })
    expect(res.status, res.text).toBe(400)
    expect(res.json.error.code).toBe('validation_error')
    expect(fieldsOf(res)).toContain(field)
    expect(res.json.error.message).toContain(message)
    expect((await call('GET', '/_sandbox/rules', { creds: null })).json.data).toEqual([])
  })

  it('DELETE /_sandbox/rules clears them all', async () => {
    const { call } = await setup()
    await addRule(call, { match: { path: '/api/v1/*' }, respond: { status: 503 } })
    expect((await call('GET', ME)).status).toBe(503)
    const cleared = await call('DELETE', '/_sandbox/rules', { creds: null })
    expect(cleared.status).toBe(200)
    expect((await call('GET', '/_sandbox/rules', { creds: null })).json.data).toEqual([])
    expect((await call('GET', ME)).status).toBe(200)
  })
})

describe('the request journal', () => {
  it('records every request with partner, status, duration and scenario, newest first', async () => {
    const { call } = await setup()
    const p = await createPartner(call, { name: 'Journaled', scenario: 'kyc-fail' })
    const began = performance.now()
    await call('DELETE', '/_sandbox/requests', { creds: null })
    const ok = await call('GET', ME, { creds: p.creds })
    const unauthorized = await call('GET', ME, {
      creds: { key: p.creds.key, secret: 'sk_test_wrong' },
    })
    const notFound = await call('GET', `${API}/transactions/txn_nope`, { creds: p.creds })
    const acmeCall = await call('GET', USAGE)
    expect([ok.status, unauthorized.status, notFound.status, acmeCall.status]).toEqual([
      200, 401, 401, 200,
    ])
    const entries = await journalOf(call)
    // Each request took part of the time the test waited for them all (to 0.1 ms).
    const waited = performance.now() - began + 0.1
    // Newest first; the journal read itself is not in its own answer.
    expect(entries.map((e) => [e.method, e.path, e.status, e.partner_id, e.scenario])).toEqual([
      ['GET', USAGE, 200, DEFAULT_PARTNER.id, 'default'],
      ['GET', `${API}/transactions/txn_nope`, 401, p.id, 'kyc-fail'],
      ['GET', ME, 401, null, null],
      ['GET', ME, 200, p.id, 'kyc-fail'],
      ['DELETE', '/_sandbox/requests', 200, null, null],
    ])
    for (const e of entries) {
      expect(e.duration_ms).toBeGreaterThanOrEqual(0)
      expect(e.duration_ms).toBeLessThanOrEqual(waited)
      expect(e.id).toEqual(expect.any(String))
      expect(Number.isNaN(Date.parse(e.at))).toBe(false)
      expect(e.rules).toEqual([])
    }
    expect(entries[0].id).toBe(acmeCall.headers.get('x-request-id'))
  })

  it('filters by partner_id, status, ruled and limit', async () => {
    const { call } = await setup()
    const p = await createPartner(call, { name: 'Filtered' })
    await addRule(call, { match: { method: 'GET', path: USAGE }, respond: { status: 502 } }, p.id)
    for (let n = 0; n < 3; n++) await call('GET', ME, { creds: p.creds })
    await call('GET', USAGE, { creds: p.creds })
    await call('GET', ME)
    const mine = await journalOf(call, { partner_id: p.id })
    expect(mine.map((e) => e.path)).toEqual([USAGE, ME, ME, ME])
    expect((await journalOf(call, { partner_id: p.id, limit: '2' })).map((e) => e.path)).toEqual([
      USAGE,
      ME,
    ])
    const errors = await journalOf(call, { status: '502' })
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({
      partner_id: p.id,
      path: USAGE,
      rules: [{ effect: 'respond', status: 502 }],
    })
    expect((await journalOf(call, { ruled: 'true' })).map((e) => e.path)).toEqual([USAGE])
    const unmet = await journalOf(call, { ruled: 'false', partner_id: p.id })
    expect(unmet.map((e) => e.path)).toEqual([ME, ME, ME])
    const bad = await call('GET', '/_sandbox/requests?limit=0', { creds: null })
    expect(bad.status).toBe(400)
    expect(fieldsOf(bad)).toContain('limit')
  })

  it('holds no secret, password, code or session token', async () => {
    const { call } = await setup()
    const p = await createPartner(call, { name: 'Secretive' })
    const u = await registerAndLogin(call, {}, p.creds)
    await call('GET', `${API}/users/me`, { creds: p.creds, headers: u.bearer })
    await call('GET', ME, { creds: p.creds, headers: { [HEADER]: '{"otp":{"code":"987654"}}' } })
    const res = await call('GET', '/_sandbox/requests?limit=1000', { creds: null })
    expect(res.json.data.length).toBeGreaterThan(4)
    for (const secret of [p.creds.secret, u.token, u.user.password, '987654']) {
      expect(res.text).not.toContain(secret)
    }
  })
})

/** The CLI, run from the sources: exit code and output. */
async function runCli(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = spawnCli(args)
  cleanup.push(() => stopCliProcesses())
  const { code } = await cli.exited
  return { code, ...cli.output }
}

describe('the CLI and the OpenAPI document', () => {
  it('`partner-sandbox scenarios` lists every bundled scenario with its description', async () => {
    const { code, stdout } = await runCli(['scenarios'])
    expect(code).toBe(0)
    const lines = stdout.trim().split('\n')
    const bundled = listBundledScenarios()
    expect(lines).toHaveLength(bundled.length)
    for (const s of bundled) {
      const line = lines.find((l) => l.split(/\s+/)[0] === s.name)
      expect(line, s.name).toBeDefined()
      expect(line).toContain(s.description)
    }
  })

  it('/openapi.json documents the scenario, rule and journal control routes', async () => {
    const { call } = await setup()
    const doc = (await call('GET', '/openapi.json', { creds: null })).json
    expect(Object.keys(doc.paths['/_sandbox/scenarios']).sort()).toEqual(['get', 'post'])
    expect(Object.keys(doc.paths['/_sandbox/scenario'])).toEqual(['put'])
    expect(Object.keys(doc.paths['/_sandbox/requests']).sort()).toEqual(['delete', 'get'])
    expect(Object.keys(doc.paths['/_sandbox/rules']).sort()).toEqual(['delete', 'get', 'post'])
    const params = doc.paths['/_sandbox/requests'].get.parameters.map((q: Json) => q.name)
    expect(params).toEqual(expect.arrayContaining(['partner_id', 'status', 'ruled', 'limit']))
  })
})
