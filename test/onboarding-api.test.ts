import { describe, expect, it } from 'vitest'
import type { SandboxOptions } from '../src/index.js'
import { DEFAULT_PARTNER, SECOND_PARTNER } from '../src/store/default-credentials.js'
import {
  bearer,
  type Call,
  type FlowEnd,
  northwind,
  registerAndLogin,
  setup,
  walkAndComplete,
} from './helpers.js'

/**
 * Card onboarding through the API only (app.request): start/resume, the hosted flow's step
 * API, latest, complete, the magic values and scenario rules, events, secrecy of the SSN and
 * the access token, and the OpenAPI document. Spec sections 2–4 and 7; DESIGN.md section 3.
 */

const START = '/api/v1/partner/cards/onboarding'
const LATEST = '/api/v1/partner/cards/onboarding/latest'
const STATUS = '/api/v1/partner/cards/status'
const ME = '/api/v1/partner/users/me'
const completePath = (id: string) => `${START}/${id}/complete`
const stepPath = (id: string, step: string) => `/embed/onboarding/${id}/steps/${step}`

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const NO_ONBOARDING = { success: false, error: { message: 'No onboarding found for this user' } }

interface Applicant {
  first_name: string
  last_name: string
  email: string
  phone_number: string
  country_code: string
  date_of_birth: string
  address_line1: string
  address_line2?: string
  address_city: string
  address_state: string
  address_zip: string
  ssn: string
  redirect_uri?: string
}

/** The start body of spec section 4, every field valid; an ordinary SSN (a pass). */
function applicant(overrides: Partial<Applicant> = {}): Applicant {
  return {
    first_name: 'Robin',
    last_name: 'Tester',
    email: 'robin.tester@example.test',
    phone_number: '+14155550123',
    country_code: 'US',
    date_of_birth: '1990-04-12',
    address_line1: '1 Main Street',
    address_line2: 'Apt 4',
    address_city: 'Springfield',
    address_state: 'IL',
    address_zip: '62701',
    ssn: '123-45-6789',
    ...overrides,
  }
}

interface Started {
  message: string
  onboardingEmbedUrl: string
  accessToken: string
  expiresIn: number
  onboardingId: string
  consumerId: string
  status: string
  consumerKycStatus: string
}

const ANSWERS = {
  employment_status: 'employed',
  annual_income: '50k_100k',
  source_of_funds: 'salary',
}
const PASS = { result: 'pass', data: { from: 'embed' }, agreement_accepted: true }

/** A fresh sandbox and a registered, logged-in user of the default partner (acme). */
async function sandboxWithUser(options: SandboxOptions = {}) {
  const { sandbox, call } = await setup(options)
  return { sandbox, call, ...(await userOf(call)) }
}

/** A new user (acme unless told) and calls made with their session. */
async function userOf(call: Call, creds = undefined as typeof northwind | undefined) {
  const user = await registerAndLogin(call, {}, creds)
  const asUser = (method: string, path: string, body?: unknown) =>
    call(method, path, { creds, body, headers: user.bearer })
  /** Starts (or resumes) with the default applicant, changed by `overrides`, less `omit`. */
  const start = async (
    overrides: Partial<Applicant> = {},
    omit: (keyof Applicant)[] = [],
  ): Promise<Started> => {
    const body = applicant(overrides)
    for (const key of omit) delete body[key]
    const res = await asUser('POST', START, body)
    expect(res.status, res.text).toBe(200)
    return res.json.data
  }
  /** The flow walked headlessly to `end`, then completed with `body` (default: its message). */
  const complete = (id: string, body?: unknown, end?: FlowEnd) =>
    walkAndComplete(call, id, { creds, headers: user.bearer, body, end })
  return { user, asUser, start, complete }
}

/** A step of the hosted flow, as the hosted page posts it (no partner credentials). */
const step = (call: Call, id: string, token: string | undefined, name: string, body: unknown) =>
  call('POST', stepPath(id, name), {
    creds: null,
    body,
    headers: token === undefined ? {} : bearer(token),
  })

/** GET of the onboardingEmbedUrl's path and query, on this sandbox. */
const openPage = (call: Call, url: string) => {
  const u = new URL(url)
  return call('GET', `${u.pathname}${u.search}`, { creds: null })
}

/** Runs the whole hosted flow to its end; answers the last step's body. */
async function runFlow(call: Call, s: Started, accept = true) {
  const { onboardingId: id, accessToken: token } = s
  const identity = await step(call, id, token, 'identity_verification', { confirmed: true })
  expect(identity.status, identity.text).toBe(200)
  const underwriting = await step(call, id, token, 'underwriting', ANSWERS)
  expect(underwriting.status, underwriting.text).toBe(200)
  const agreement = await step(call, id, token, 'agreement', { accepted: accept })
  expect(agreement.status, agreement.text).toBe(200)
  return agreement.json
}

// biome-ignore lint/suspicious/noExplicitAny: event envelopes are read field by field
type Event = { id: string; type: string; data: { object: any } }

async function eventsOf(call: Call, type?: string, partnerId: string = DEFAULT_PARTNER.id) {
  const query = new URLSearchParams({ partner_id: partnerId, limit: '500' })
  if (type) query.set('type', type)
  const res = await call('GET', `/_sandbox/events?${query}`, { creds: null })
  expect(res.status, res.text).toBe(200)
  return res.json.data as Event[]
}

async function snapshot(call: Call) {
  const res = await call('GET', '/_sandbox/snapshot', { creds: null })
  expect(res.status).toBe(200)
  return res
}

async function advance(call: Call, by: string) {
  const res = await call('POST', '/_sandbox/clock/advance', { creds: null, body: { by } })
  expect(res.status, res.text).toBe(200)
}

async function freeze(call: Call): Promise<number> {
  const res = await call('POST', '/_sandbox/clock/freeze', { creds: null, body: {} })
  expect(res.status, res.text).toBe(200)
  return Date.parse(res.json.now)
}

const fieldsOf = (json: { error?: { details?: { field: string }[] } }) =>
  (json.error?.details ?? []).map((d) => d.field)

describe('POST /partner/cards/onboarding: start', () => {
  it('needs the organization headers and a Bearer session: 401 otherwise, nothing started', async () => {
    const { call, user, asUser } = await sandboxWithUser()
    const body = applicant()
    const noSession = await call('POST', START, { body })
    expect(noSession.status).toBe(401)
    expect(noSession.json.error.code).toBe('unauthorized')
    const badSession = await call('POST', START, { body, headers: bearer('not.a.jwt') })
    expect(badSession.status).toBe(401)
    const noOrg = await call('POST', START, { creds: null, body, headers: user.bearer })
    expect(noOrg.status).toBe(401)
    // A session is bound to its partner: another partner's credentials do not carry it.
    const otherOrg = await call('POST', START, { creds: northwind, body, headers: user.bearer })
    expect(otherOrg.status).toBe(401)
    expect((await asUser('GET', LATEST)).json).toEqual(NO_ONBOARDING)
  })

  const invalid: [string, (b: Record<string, unknown>) => void, string][] = [
    ['first_name missing', (b) => delete b.first_name, 'first_name'],
    ['first_name blank', (b) => (b.first_name = '   '), 'first_name'],
    ['last_name missing', (b) => delete b.last_name, 'last_name'],
    ['email not an email', (b) => (b.email = 'robin-at-example'), 'email'],
    ['email missing', (b) => delete b.email, 'email'],
    ['phone_number missing', (b) => delete b.phone_number, 'phone_number'],
    ['phone_number not a phone number', (b) => (b.phone_number = 'call me'), 'phone_number'],
    ['country_code of 3 letters', (b) => (b.country_code = 'USA'), 'country_code'],
    ['country_code missing', (b) => delete b.country_code, 'country_code'],
    ['date_of_birth not YYYY-MM-DD', (b) => (b.date_of_birth = '12/04/1990'), 'date_of_birth'],
    ['date_of_birth not a real date', (b) => (b.date_of_birth = '1990-02-30'), 'date_of_birth'],
    [
      'date_of_birth of a child',
      (b) => (b.date_of_birth = `${new Date().getUTCFullYear() - 10}-01-01`),
      'date_of_birth',
    ],
    ['date_of_birth missing', (b) => delete b.date_of_birth, 'date_of_birth'],
    ['address_line1 missing', (b) => delete b.address_line1, 'address_line1'],
    ['address_line1 empty', (b) => (b.address_line1 = ''), 'address_line1'],
    ['address_city missing', (b) => delete b.address_city, 'address_city'],
    ['address_state missing', (b) => delete b.address_state, 'address_state'],
    ['address_zip missing', (b) => delete b.address_zip, 'address_zip'],
    ['address_line2 not a string', (b) => (b.address_line2 = 12), 'address_line2'],
    ['ssn missing', (b) => delete b.ssn, 'ssn'],
    ['ssn of 5 digits', (b) => (b.ssn = '12345'), 'ssn'],
    ['ssn with a letter', (b) => (b.ssn = '123-45-678x'), 'ssn'],
    ['ssn of 10 digits', (b) => (b.ssn = '1234567890'), 'ssn'],
    ['an unknown field', (b) => (b.nickname = 'Rob'), 'nickname'],
  ]
  it.each(invalid)('400 naming the field: %s', async (_, mutate, field) => {
    const { asUser } = await sandboxWithUser()
    const body = applicant() as unknown as Record<string, unknown>
    mutate(body)
    const res = await asUser('POST', START, body)
    expect(res.status, res.text).toBe(400)
    expect(res.json.success).toBe(false)
    expect(res.json.error.code).toBe('validation_error')
    expect(fieldsOf(res.json)).toContain(field)
    expect(res.json.error.message).toContain(field)
    expect((await asUser('GET', LATEST)).json).toEqual(NO_ONBOARDING)
  })

  it('accepts address_line2 omitted or empty, and an SSN with dashes or spaces', async () => {
    const { call } = await sandboxWithUser()
    const cases: [Partial<Applicant>, (keyof Applicant)[], string][] = [
      [{}, ['address_line2'], '6789'],
      [{ address_line2: '' }, [], '6789'],
      [{ ssn: '123 45 6789' }, [], '6789'],
      [{ ssn: '111223333' }, [], '3333'],
    ]
    const ids: [string, string][] = []
    for (const [overrides, omit, last4] of cases) {
      const started = await (await userOf(call)).start(overrides, omit)
      expect(started.status).toBe('pending')
      ids.push([started.onboardingId, last4])
    }
    const rows = (await snapshot(call)).json.collections.onboardings
    expect(rows[ids[0]?.[0] as string].applicant.address_line2).toBe('')
    for (const [id, last4] of ids) expect(rows[id].applicant.ssn_last4).toBe(last4)
  })

  it('normalizes the SSN server-side: a dashed magic SSN still decides the outcome', async () => {
    const { start, complete } = await sandboxWithUser()
    const s = await start({ ssn: '000-00-0007' })
    const done = await complete(s.onboardingId)
    expect(done.status).toBe(200)
    expect(done.json.data).toMatchObject({
      status: 'failed',
      failure_reason: 'underwriting_declined',
    })
  })

  it('answers the onboarding session of spec section 2, wrapped in success and data', async () => {
    const { asUser } = await sandboxWithUser()
    const res = await asUser('POST', START, applicant())
    expect(res.status).toBe(200)
    expect(res.json).toEqual({
      success: true,
      data: {
        message: expect.any(String),
        onboardingEmbedUrl: expect.any(String),
        accessToken: expect.any(String),
        expiresIn: 3600,
        onboardingId: expect.stringMatching(UUID),
        consumerId: expect.any(String),
        status: 'pending',
        consumerKycStatus: 'pending',
      },
    })
    const data = res.json.data as Started
    expect(data.message.length).toBeGreaterThan(0)
    expect(data.accessToken.length).toBeGreaterThanOrEqual(20)
    expect(data.consumerId.length).toBeGreaterThan(0)
    const url = new URL(data.onboardingEmbedUrl)
    expect(url.protocol).toMatch(/^https?:$/)
    expect(url.search).not.toBe('')
  })

  it('serves onboardingEmbedUrl: an HTML page framable only by the partner’s allowed_origins', async () => {
    const { call, start } = await sandboxWithUser()
    const s = await start()
    const page = await openPage(call, s.onboardingEmbedUrl)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(page.text).toContain('data-testid="onboarding"')
    expect(page.text).toContain(s.onboardingId)
    const frameAncestors = (csp: string | null) =>
      (csp ?? '')
        .split(';')
        .map((d) => d.trim())
        .find((d) => d.startsWith('frame-ancestors '))
    expect(frameAncestors(page.headers.get('content-security-policy'))).toBe(
      'frame-ancestors http://localhost:* http://127.0.0.1:*',
    )
    // The partner edits its allowed_origins: the page follows.
    const patch = await call('PATCH', '/api/v1/partner/me', {
      body: { allowed_origins: ['https://wallet.partner.example'] },
    })
    expect(patch.status, patch.text).toBe(200)
    const again = await openPage(call, s.onboardingEmbedUrl)
    expect(again.status).toBe(200)
    expect(frameAncestors(again.headers.get('content-security-policy'))).toBe(
      'frame-ancestors https://wallet.partner.example',
    )
  })

  it('resumes a pending onboarding: same id, a new token, the old token’s page is a 401 error page', async () => {
    const { call, start } = await sandboxWithUser()
    const first = await start()
    const second = await start()
    expect(second.onboardingId).toBe(first.onboardingId)
    expect(second.consumerId).toBe(first.consumerId)
    expect(second.accessToken).not.toBe(first.accessToken)
    expect(second.status).toBe('pending')
    expect(second.expiresIn).toBe(3600)
    const old = await openPage(call, first.onboardingEmbedUrl)
    expect(old.status).toBe(401)
    expect(old.headers.get('content-type')).toContain('text/html')
    expect(old.text).not.toContain('data-testid="onboarding"')
    const oldStep = await step(
      call,
      first.onboardingId,
      first.accessToken,
      'identity_verification',
      {
        confirmed: true,
      },
    )
    expect(oldStep.status).toBe(401)
    const fresh = await openPage(call, second.onboardingEmbedUrl)
    expect(fresh.status).toBe(200)
    expect(fresh.text).toContain('data-testid="onboarding"')
  })

  it('resuming with identical applicant data keeps the progress (dashes, omitted line2 alike)', async () => {
    const { call, asUser, start } = await sandboxWithUser()
    const first = await start({ address_line2: '' })
    const id = first.onboardingId
    const identity = await step(call, id, first.accessToken, 'identity_verification', {
      confirmed: true,
    })
    expect(identity.status).toBe(200)
    const second = await start({ ssn: '123456789' }, ['address_line2'])
    expect(second.onboardingId).toBe(id)
    expect(second.status).toBe('in_progress')
    const latest = await asUser('GET', LATEST)
    expect(latest.json.data).toMatchObject({
      onboardingId: id,
      status: 'in_progress',
      steps: { identity_verification: true, underwriting: false, agreement: false },
    })
    // The flow goes on where it was, with the new token.
    expect((await step(call, id, second.accessToken, 'underwriting', ANSWERS)).status).toBe(200)
  })

  it('resuming with changed applicant data starts the steps over, with a new decision', async () => {
    const { call, asUser, start } = await sandboxWithUser()
    const first = await start()
    const id = first.onboardingId
    expect(
      (await step(call, id, first.accessToken, 'identity_verification', { confirmed: true }))
        .status,
    ).toBe(200)
    expect((await step(call, id, first.accessToken, 'underwriting', ANSWERS)).status).toBe(200)
    const second = await start({ ssn: '000-00-0001' })
    expect(second.onboardingId).toBe(id)
    expect(second.status).toBe('pending')
    const latest = await asUser('GET', LATEST)
    expect(latest.json.data).toMatchObject({
      status: 'pending',
      steps: { identity_verification: false, underwriting: false, agreement: false },
    })
    const skip = await step(call, id, second.accessToken, 'agreement', { accepted: true })
    expect(skip.status).toBe(409)
    // The new SSN is a KYC failure: the flow now ends right after identity verification.
    const identity = await step(call, id, second.accessToken, 'identity_verification', {
      confirmed: true,
    })
    expect(identity.status).toBe(200)
    expect(identity.json.finished).toBe(true)
    expect(identity.json.result.reason).toBe('identity_verification_failed')
  })

  it('409 for a user who already holds a card', async () => {
    const { asUser, start, complete } = await sandboxWithUser()
    const s = await start()
    expect((await complete(s.onboardingId, PASS)).status).toBe(200)
    const again = await asUser('POST', START, applicant())
    expect(again.status).toBe(409)
    expect(again.json.error.code).toBe('conflict')
  })

  it.each([
    ['an http URL on allowed_origins', 'http://localhost:3000/onboarding/done'],
    // The fixture partners allow http://localhost:* (any port, for dev servers).
    ['an allowed host on any port', 'http://localhost:5173/done'],
    ['an app link', 'myapp://done'],
  ])('accepts redirect_uri: %s, and carries it to the page', async (_, uri) => {
    const { call, start } = await sandboxWithUser()
    const s = await start({ redirect_uri: uri })
    expect(new URL(s.onboardingEmbedUrl).searchParams.get('redirect_uri')).toBe(uri)
    expect((await openPage(call, s.onboardingEmbedUrl)).status).toBe(200)
  })

  it.each([
    ['another origin', 'https://evil.example/callback'],
    ['an allowed host with another scheme', 'https://localhost:3000/done'],
    ['javascript:', 'javascript:alert(1)'],
    ['not a URL', 'done'],
  ])('400 naming redirect_uri for %s', async (_, uri) => {
    const { asUser } = await sandboxWithUser()
    const res = await asUser('POST', START, applicant({ redirect_uri: uri }))
    expect(res.status, res.text).toBe(400)
    expect(fieldsOf(res.json)).toContain('redirect_uri')
    expect((await asUser('GET', LATEST)).json).toEqual(NO_ONBOARDING)
  })
})

describe('the hosted flow: POST /embed/onboarding/:id/steps/:step', () => {
  it('takes the steps in order: 409 for a step out of order or done twice', async () => {
    const { call, start } = await sandboxWithUser()
    const { onboardingId: id, accessToken: token } = await start()
    const early = await step(call, id, token, 'underwriting', ANSWERS)
    expect(early.status).toBe(409)
    expect(early.json.error.code).toBe('conflict')
    expect((await step(call, id, token, 'agreement', { accepted: true })).status).toBe(409)
    const identity = await step(call, id, token, 'identity_verification', { confirmed: true })
    expect(identity.status).toBe(200)
    expect(identity.json).toMatchObject({
      step: 'identity_verification',
      next_step: 'underwriting',
      finished: false,
    })
    const twice = await step(call, id, token, 'identity_verification', { confirmed: true })
    expect(twice.status).toBe(409)
    expect((await step(call, id, token, 'agreement', { accepted: true })).status).toBe(409)
    expect((await step(call, id, token, 'underwriting', ANSWERS)).json.next_step).toBe('agreement')
    const end = await step(call, id, token, 'agreement', { accepted: true })
    expect(end.json).toMatchObject({ finished: true, result: { result: 'pass' } })
    expect((await step(call, id, token, 'agreement', { accepted: true })).status).toBe(409)
  })

  it('401 without the access token, with a wrong one, or with another onboarding’s', async () => {
    const { call, asUser, start } = await sandboxWithUser()
    const mine = await start()
    const other = await (await userOf(call)).start()
    const id = mine.onboardingId
    const body = { confirmed: true }
    expect((await step(call, id, undefined, 'identity_verification', body)).status).toBe(401)
    const wrong = await step(call, id, 'obt_wrong', 'identity_verification', body)
    expect(wrong.status).toBe(401)
    expect(wrong.json.error.code).toBe('unauthorized')
    const crossed = await step(call, id, other.accessToken, 'identity_verification', body)
    expect(crossed.status).toBe(401)
    // The session token of the partner's user is not an access token either.
    const { user } = await userOf(call)
    expect((await step(call, id, user.token, 'identity_verification', body)).status).toBe(401)
    const latest = await asUser('GET', LATEST)
    expect(latest.json.data.status).toBe('pending')
    expect(latest.json.data.steps.identity_verification).toBe(false)
  })

  it('the access token lasts expiresIn (3600 s): at 59 min it works, at 61 min it is a 401', async () => {
    const { call, start } = await sandboxWithUser()
    const s = await start()
    await freeze(call)
    await advance(call, '59m')
    const ok = await step(call, s.onboardingId, s.accessToken, 'identity_verification', {
      confirmed: true,
    })
    expect(ok.status).toBe(200)
    await advance(call, '2m')
    const late = await step(call, s.onboardingId, s.accessToken, 'underwriting', ANSWERS)
    expect(late.status).toBe(401)
    const page = await openPage(call, s.onboardingEmbedUrl)
    expect(page.status).toBe(410)
    expect(page.text).not.toContain('data-testid="onboarding"')
  })

  it.each([
    ['no confirmed', {}],
    ['confirmed false', { confirmed: false }],
    ['confirmed "true" (a string)', { confirmed: 'true' }],
  ])('identity verification needs confirmed: true (400 naming it): %s', async (_, body) => {
    const { call, asUser, start } = await sandboxWithUser()
    const s = await start()
    const res = await step(call, s.onboardingId, s.accessToken, 'identity_verification', body)
    expect(res.status).toBe(400)
    expect(fieldsOf(res.json)).toEqual(['confirmed'])
    expect((await asUser('GET', LATEST)).json.data.steps.identity_verification).toBe(false)
  })

  it.each([
    [
      'employment_status missing',
      { ...ANSWERS, employment_status: undefined },
      'employment_status',
    ],
    ['annual_income not a choice', { ...ANSWERS, annual_income: 'a lot' }, 'annual_income'],
    ['source_of_funds missing', { ...ANSWERS, source_of_funds: undefined }, 'source_of_funds'],
    ['source_of_funds a number', { ...ANSWERS, source_of_funds: 3 }, 'source_of_funds'],
  ])('underwriting needs valid choices (400 naming the field): %s', async (_, body, field) => {
    const { call, asUser, start } = await sandboxWithUser()
    const { onboardingId: id, accessToken: token } = await start()
    expect((await step(call, id, token, 'identity_verification', { confirmed: true })).status).toBe(
      200,
    )
    const res = await step(call, id, token, 'underwriting', body)
    expect(res.status).toBe(400)
    expect(fieldsOf(res.json)).toEqual([field])
    expect((await asUser('GET', LATEST)).json.data.steps.underwriting).toBe(false)
  })

  it('status goes pending → in_progress, and the step flags of latest follow the steps', async () => {
    const { call, asUser, start } = await sandboxWithUser()
    const s = await start()
    const { onboardingId: id, accessToken: token } = s
    const flags = async () => (await asUser('GET', LATEST)).json.data
    expect(await flags()).toMatchObject({
      status: 'pending',
      steps: { identity_verification: false, underwriting: false, agreement: false },
      current_step: 'identity_verification',
      flow_result: null,
    })
    await step(call, id, token, 'identity_verification', { confirmed: true })
    expect(await flags()).toMatchObject({
      status: 'in_progress',
      steps: { identity_verification: true, underwriting: false, agreement: false },
      current_step: 'underwriting',
    })
    await step(call, id, token, 'underwriting', ANSWERS)
    expect(await flags()).toMatchObject({
      status: 'in_progress',
      steps: { identity_verification: true, underwriting: true, agreement: false },
      current_step: 'agreement',
    })
    await step(call, id, token, 'agreement', { accepted: true })
    expect(await flags()).toMatchObject({
      status: 'in_progress',
      steps: { identity_verification: true, underwriting: true, agreement: true },
      current_step: 'result',
      flow_result: 'pass',
    })
  })

  it('an ordinary applicant passes the flow: outcome approved, data ready for complete', async () => {
    const { call, asUser, start } = await sandboxWithUser()
    const s = await start()
    const end = await runFlow(call, s)
    expect(end).toMatchObject({
      step: 'agreement',
      next_step: 'result',
      finished: true,
      result: {
        onboardingId: s.onboardingId,
        result: 'pass',
        outcome: 'approved',
        reason: null,
        agreementAccepted: true,
      },
    })
    const done = await asUser('POST', completePath(s.onboardingId), {
      result: end.result.result,
      data: end.result.data,
      agreement_accepted: end.result.agreementAccepted,
    })
    expect(done.status).toBe(200)
    expect(done.json.data.status).toBe('completed')
  })

  it.each([
    ['SSN 000000001', { ssn: '000000001' }],
    ['last name Denied', { last_name: 'Denied' }],
  ])(
    '%s: the flow ends after identity, declined for identity_verification_failed',
    async (_, o) => {
      const { call, start } = await sandboxWithUser()
      const { onboardingId: id, accessToken: token } = await start(o)
      const identity = await step(call, id, token, 'identity_verification', { confirmed: true })
      expect(identity.status).toBe(200)
      expect(identity.json).toMatchObject({
        finished: true,
        result: { result: 'fail', outcome: 'declined', reason: 'identity_verification_failed' },
      })
      expect((await step(call, id, token, 'underwriting', ANSWERS)).status).toBe(409)
    },
  )

  it('SSN 000000007: the flow ends after underwriting, declined for underwriting_declined', async () => {
    const { call, start } = await sandboxWithUser()
    const { onboardingId: id, accessToken: token } = await start({ ssn: '000000007' })
    const identity = await step(call, id, token, 'identity_verification', { confirmed: true })
    expect(identity.json.finished).toBe(false)
    const underwriting = await step(call, id, token, 'underwriting', ANSWERS)
    expect(underwriting.json).toMatchObject({
      finished: true,
      result: { result: 'fail', outcome: 'declined', reason: 'underwriting_declined' },
    })
    expect((await step(call, id, token, 'agreement', { accepted: true })).status).toBe(409)
  })

  it.each([
    ['000000001', 'identity_verification', 'identity_verification_failed', 'rejected'],
    ['000000007', 'underwriting', 'underwriting_declined', 'approved'],
  ])(
    'SSN %s: completing the failed flow as a fail keeps its reason and KYC state',
    async (ssn, last, reason, kyc) => {
      const { call, asUser, start } = await sandboxWithUser()
      const { onboardingId: id, accessToken: token } = await start({ ssn })
      let end = await step(call, id, token, 'identity_verification', { confirmed: true })
      if (last === 'underwriting') end = await step(call, id, token, 'underwriting', ANSWERS)
      expect(end.json.finished).toBe(true)
      const done = await asUser('POST', completePath(id), {
        result: end.json.result.result,
        data: end.json.result.data,
        agreement_accepted: end.json.result.agreementAccepted,
      })
      expect(done.status).toBe(200)
      expect(done.json.data).toMatchObject({
        status: 'failed',
        failure_reason: reason,
        consumer: { kyc_status: kyc },
        card: null,
      })
      // The same as walking to a pass headlessly (see the complete tests).
      expect((await asUser('GET', ME)).json.kyc_status).toBe(kyc)
    },
  )

  it('SSN 000000004: the flow passes with outcome manual_review', async () => {
    const { call, start } = await sandboxWithUser()
    const end = await runFlow(call, await start({ ssn: '000-00-0004' }))
    expect(end).toMatchObject({
      finished: true,
      result: { result: 'pass', outcome: 'manual_review' },
    })
  })

  it('declining the agreement ends the flow with result fail, reason agreement_declined', async () => {
    const { call, asUser, start } = await sandboxWithUser()
    const s = await start()
    const end = await runFlow(call, s, false)
    expect(end).toMatchObject({
      finished: true,
      result: {
        result: 'fail',
        outcome: 'declined',
        reason: 'agreement_declined',
        agreementAccepted: false,
      },
    })
    const done = await asUser('POST', completePath(s.onboardingId), {
      result: 'fail',
      data: end.result.data,
      agreement_accepted: false,
    })
    expect(done.status).toBe(200)
    expect(done.json.data).toMatchObject({
      status: 'failed',
      failure_reason: 'agreement_declined',
      card: null,
    })
  })
})

describe('GET /partner/cards/onboarding/latest', () => {
  it('with none: HTTP 200 and exactly { success: false, error: { message } }, no data key', async () => {
    const { asUser } = await sandboxWithUser()
    const res = await asUser('GET', LATEST)
    expect(res.status).toBe(200)
    expect(res.json).toEqual(NO_ONBOARDING)
    expect(Object.keys(res.json)).not.toContain('data')
    expect(Object.keys(res.json.error)).toEqual(['message'])
    expect(JSON.parse(res.text)).toStrictEqual(NO_ONBOARDING)
  })

  it('needs a session (401), and shows only the user’s own onboarding', async () => {
    const { call, asUser, start } = await sandboxWithUser()
    expect((await call('GET', LATEST)).status).toBe(401)
    const s = await start()
    const mine = await asUser('GET', LATEST)
    expect(mine.status).toBe(200)
    expect(mine.json.success).toBe(true)
    expect(mine.json.data).toMatchObject({
      onboardingId: s.onboardingId,
      consumerId: s.consumerId,
      status: 'pending',
      consumerKycStatus: 'pending',
      steps: { identity_verification: false, underwriting: false, agreement: false },
    })
    const neighbour = await userOf(call)
    const theirs = await neighbour.asUser('GET', LATEST)
    expect(theirs.status).toBe(200)
    expect(theirs.json).toEqual(NO_ONBOARDING)
    const foreign = await userOf(call, northwind)
    expect((await foreign.asUser('GET', LATEST)).json).toEqual(NO_ONBOARDING)
  })

  it('shows the most recent onboarding, even when two share a timestamp (frozen clock)', async () => {
    const { call, asUser, start, complete } = await sandboxWithUser()
    await freeze(call)
    for (let round = 0; round < 4; round++) {
      const s = await start()
      const gaveUp = { result: 'fail', data: 'user gave up', agreement_accepted: false }
      const fail = await complete(s.onboardingId, gaveUp, 'agreement_declined')
      expect(fail.status).toBe(200)
      const next = await start()
      expect(next.onboardingId).not.toBe(s.onboardingId)
      const latest = await asUser('GET', LATEST)
      expect(latest.json.data.onboardingId).toBe(next.onboardingId)
      expect(latest.json.data.status).toBe('pending')
      const status = await asUser('GET', STATUS)
      expect(status.json.data.onboarding.onboardingId).toBe(next.onboardingId)
      // Fail this one too, so the next round starts afresh.
      const again = { result: 'fail', data: 'again', agreement_accepted: false }
      await complete(next.onboardingId, again, 'agreement_declined')
    }
  })
})

describe('POST /partner/cards/onboarding/:onboardingId/complete', () => {
  const invalid: [string, Record<string, unknown>, string][] = [
    ['result missing', { data: 'x', agreement_accepted: true }, 'result'],
    ['result not pass/fail', { result: 'ok', data: 'x', agreement_accepted: true }, 'result'],
    ['data missing', { result: 'pass', agreement_accepted: true }, 'data'],
    ['data a number', { result: 'pass', data: 42, agreement_accepted: true }, 'data'],
    ['agreement_accepted missing', { result: 'pass', data: 'x' }, 'agreement_accepted'],
    [
      'agreement_accepted a string',
      { result: 'pass', data: 'x', agreement_accepted: 'true' },
      'agreement_accepted',
    ],
    [
      'agreement_accepted false on a pass',
      { result: 'pass', data: 'x', agreement_accepted: false },
      'agreement_accepted',
    ],
    ['inquiry_id empty', { ...PASS, inquiry_id: '' }, 'inquiry_id'],
    ['product_id a number', { ...PASS, product_id: 7 }, 'product_id'],
    [
      'product_configuration a list',
      { ...PASS, product_configuration: [] },
      'product_configuration',
    ],
  ]
  it.each(invalid)('400 naming the field: %s; nothing changes', async (_, body, field) => {
    const { asUser, start } = await sandboxWithUser()
    const s = await start()
    const res = await asUser('POST', completePath(s.onboardingId), body)
    expect(res.status, res.text).toBe(400)
    expect(res.json.error.code).toBe('validation_error')
    expect(fieldsOf(res.json)).toContain(field)
    expect((await asUser('GET', LATEST)).json.data.status).toBe('pending')
    expect((await asUser('GET', STATUS)).json.data.card).toBeNull()
  })

  it('needs a session: 401 without one', async () => {
    const { call, start } = await sandboxWithUser()
    const s = await start()
    expect((await call('POST', completePath(s.onboardingId), { body: PASS })).status).toBe(401)
  })

  it('a pass answers the completion with consumer and card; the user and card status follow', async () => {
    const { asUser, start, user, complete } = await sandboxWithUser()
    const s = await start()
    const res = await complete(s.onboardingId, PASS)
    expect(res.status, res.text).toBe(200)
    expect(res.json.success).toBe(true)
    const data = res.json.data
    expect(data).toMatchObject({
      status: 'completed',
      consumer: { kyc_status: 'approved', provider_consumer_id: s.consumerId },
      card: { status: 'active', available_balance: 0 },
    })
    expect(data.card.id).toMatch(/^card_/)
    expect(data.card.last4).toMatch(/^\d{4}$/)
    expect(data.card.exp_month).toBeGreaterThanOrEqual(1)
    expect(data.card.exp_month).toBeLessThanOrEqual(12)
    expect(data.card.exp_year).toBeGreaterThan(new Date().getUTCFullYear())
    const me = await asUser('GET', ME)
    expect(me.status).toBe(200)
    expect(me.json).toMatchObject({
      id: user.userId,
      kyc_status: 'approved',
      provider_consumer_id: s.consumerId,
    })
    const status = await asUser('GET', STATUS)
    expect(status.status).toBe(200)
    expect(status.json.data.card).toMatchObject({
      id: data.card.id,
      last4: data.card.last4,
      status: 'active',
    })
    expect(status.json.data.balances).toEqual({ available: 0, ledger: 0, currency: 'USD' })
    expect(status.json.data.kyc_status).toBe('approved')
    const latest = await asUser('GET', LATEST)
    expect(latest.json.data).toMatchObject({ status: 'completed', card_id: data.card.id })
  })

  it('data: a string is kept as is, an object is stored JSON-stringified', async () => {
    const { call, start, complete } = await sandboxWithUser()
    const payload = { inquiry: 'inq_123', nested: { steps: [1, 2] }, ok: true }
    const a = await start()
    expect((await complete(a.onboardingId, { ...PASS, data: payload })).status).toBe(200)
    const b = await userOf(call)
    const bs = await b.start()
    expect((await b.complete(bs.onboardingId, { ...PASS, data: 'raw-payload' })).status).toBe(200)
    const rows = (await snapshot(call)).json.collections.onboardings
    expect(typeof rows[a.onboardingId].completion.data).toBe('string')
    expect(rows[a.onboardingId].completion.data).toBe(JSON.stringify(payload))
    expect(rows[bs.onboardingId].completion.data).toBe('raw-payload')
  })

  // Defaults of inquiry_id / product_id and the 400 without them: completion-defaults.test.ts.

  it('404 for an unknown onboarding, another user’s, and another partner’s', async () => {
    const { call, asUser, start } = await sandboxWithUser()
    const s = await start()
    for (const id of [
      '00000000-0000-4000-8000-000000000000',
      'not-an-onboarding-id',
      'constructor',
    ]) {
      const unknown = await asUser('POST', completePath(id), PASS)
      expect(unknown.status, `${id}: ${unknown.text}`).toBe(404)
      expect(unknown.json.error.code).toBe('not_found')
    }
    const neighbour = await userOf(call)
    const theirs = await neighbour.asUser('POST', completePath(s.onboardingId), PASS)
    expect(theirs.status).toBe(404)
    const foreign = await userOf(call, northwind)
    const foreignAttempt = await foreign.asUser('POST', completePath(s.onboardingId), PASS)
    expect(foreignAttempt.status).toBe(404)
    // Nothing happened to the owner's onboarding.
    expect((await asUser('GET', LATEST)).json.data.status).toBe('pending')
    expect((await neighbour.asUser('GET', STATUS)).json.data.card).toBeNull()
    expect(await eventsOf(call, 'card.created')).toEqual([])
    expect(await eventsOf(call, 'card.created', SECOND_PARTNER.id)).toEqual([])
  })

  it('completing twice with the same result answers the same; a different result is 409', async () => {
    const { call, asUser, start, user, complete } = await sandboxWithUser()
    const s = await start()
    const first = await complete(s.onboardingId, PASS)
    const second = await asUser('POST', completePath(s.onboardingId), {
      ...PASS,
      data: 'another payload',
    })
    expect(second.status).toBe(200)
    expect(second.json).toEqual(first.json)
    const cards = Object.values(
      (await snapshot(call)).json.collections.cards as Record<string, { user_id: string }>,
    ).filter((c) => c.user_id === user.userId)
    expect(cards).toHaveLength(1)
    const created = await eventsOf(call, 'card.created')
    expect(created).toHaveLength(1)
    expect(created[0]?.data.object.id).toBe(first.json.data.card.id)
    expect(await eventsOf(call, 'onboarding.completed')).toHaveLength(1)
    const other = await asUser('POST', completePath(s.onboardingId), {
      result: 'fail',
      data: 'x',
      agreement_accepted: false,
    })
    expect(other.status).toBe(409)
    expect(other.json.error.code).toBe('conflict')
    expect((await asUser('GET', STATUS)).json.data.card.id).toBe(first.json.data.card.id)
  })

  it.each([
    ['SSN 000000001', { ssn: '000000001' }],
    ['last name Denied', { last_name: 'Denied' }],
  ])(
    '%s, walked to a pass and completed as the flow ended: failed for identity_verification_failed, KYC rejected, no card',
    async (_, o) => {
      const { call, asUser, start, complete } = await sandboxWithUser()
      const s = await start(o)
      const res = await complete(s.onboardingId)
      expect(res.status).toBe(200)
      expect(res.json.data).toMatchObject({
        status: 'failed',
        failure_reason: 'identity_verification_failed',
        consumer: { kyc_status: 'rejected' },
        card: null,
      })
      expect((await asUser('GET', ME)).json.kyc_status).toBe('rejected')
      const status = await asUser('GET', STATUS)
      expect(status.json.data.card).toBeNull()
      expect(status.json.data.kyc_status).toBe('rejected')
      expect(await eventsOf(call, 'card.created')).toEqual([])
    },
  )

  it('SSN 000000007, walked to a pass and completed as the flow ended: failed for underwriting_declined, KYC approved, no card', async () => {
    const { asUser, start, complete } = await sandboxWithUser()
    const s = await start({ ssn: '000000007' })
    const res = await complete(s.onboardingId)
    expect(res.json.data).toMatchObject({
      status: 'failed',
      failure_reason: 'underwriting_declined',
      consumer: { kyc_status: 'approved' },
      card: null,
    })
    expect((await asUser('GET', ME)).json.kyc_status).toBe('approved')
    expect((await asUser('GET', STATUS)).json.data.card).toBeNull()
  })

  it('SSN 000000004: manual review for 10 minutes of sandbox clock, then completed with a card', async () => {
    const { call, asUser, start, complete } = await sandboxWithUser()
    const s = await start({ ssn: '000000004' })
    const now = await freeze(call)
    const res = await complete(s.onboardingId, PASS)
    expect(res.status).toBe(200)
    expect(res.json.data).toMatchObject({
      status: 'manual_review',
      card: null,
      review_resolves_at: new Date(now + 10 * 60_000).toISOString(),
    })
    const pending = await asUser('GET', STATUS)
    expect(pending.json.data.card).toBeNull()
    expect(pending.json.data.onboarding.status).toBe('manual_review')
    // No new onboarding while the review runs.
    expect((await asUser('POST', START, applicant({ ssn: '000000004' }))).status).toBe(409)
    await advance(call, '9m')
    expect((await asUser('GET', STATUS)).json.data.card).toBeNull()
    await advance(call, '1m')
    const resolved = await asUser('GET', STATUS)
    expect(resolved.json.data.onboarding.status).toBe('completed')
    expect(resolved.json.data.card).toMatchObject({ status: 'active', available_balance: 0 })
    expect(resolved.json.data.kyc_status).toBe('approved')
    expect((await asUser('GET', ME)).json.provider_consumer_id).toBe(s.consumerId)
    expect(await eventsOf(call, 'card.created')).toHaveLength(1)
    expect(await eventsOf(call, 'onboarding.completed')).toHaveLength(1)
  })

  it('a manual review ends as the scenario says: review_outcome kyc_fail → failed, no card', async () => {
    const { call, asUser, start, complete } = await sandboxWithUser({
      scenario: {
        name: 'reviews-fail',
        description: 'Manual reviews end in a KYC failure.',
        onboarding: { review_outcome: 'kyc_fail' },
      },
    })
    const s = await start({ ssn: '000000004' })
    expect((await complete(s.onboardingId, PASS)).json.data.status).toBe('manual_review')
    await advance(call, '10m')
    const status = await asUser('GET', STATUS)
    expect(status.json.data.onboarding).toMatchObject({
      status: 'failed',
      failure_reason: 'identity_verification_failed',
    })
    expect(status.json.data.card).toBeNull()
    expect(status.json.data.kyc_status).toBe('rejected')
    expect(await eventsOf(call, 'onboarding.failed')).toHaveLength(1)
  })

  const rules = {
    name: 'onboarding-rules',
    description: 'Onboarding outcomes by email, last name and SSN.',
    onboarding: {
      rules: [
        { email: '*@review.example', outcome: 'manual_review' as const },
        { last_name: 'denied', outcome: 'pass' as const },
        { ssn: '000000001', outcome: 'pass' as const },
        { ssn: '123456789', outcome: 'underwriting_decline' as const },
        { email: 'first@match.example', outcome: 'kyc_fail' as const },
        { email: 'first@match.example', outcome: 'pass' as const },
      ],
    },
  }
  it.each([
    [
      'an email pattern, before a later SSN rule',
      { email: 'ann@Review.example', ssn: '000000001' },
      'manual_review',
      null,
    ],
    ['last name (any case) over the magic Denied', { last_name: 'Denied' }, 'completed', null],
    ['SSN over the magic 000000001', { ssn: '000-00-0001' }, 'completed', null],
    [
      'SSN turning an ordinary one into a decline',
      { ssn: '123-45-6789' },
      'failed',
      'underwriting_declined',
    ],
    [
      'the first of two matching rules',
      { email: 'first@match.example', ssn: '111-22-3333' },
      'failed',
      'identity_verification_failed',
    ],
    [
      'no rule: the magic values still apply',
      { ssn: '000-00-0007' },
      'failed',
      'underwriting_declined',
    ],
  ])('scenario rules decide first (%s)', async (_, o, status, reason) => {
    const { start, complete } = await sandboxWithUser({ scenario: rules })
    const s = await start({ ssn: '111-22-3333', ...o })
    const res = await complete(s.onboardingId)
    expect(res.status).toBe(200)
    expect(res.json.data.status).toBe(status)
    expect(res.json.data.failure_reason).toBe(reason)
  })
})

describe('events', () => {
  it('onboarding.started once (not on resume); onboarding.completed and card.created on a pass', async () => {
    const { call, start, complete } = await sandboxWithUser()
    const s = await start()
    await start()
    await start({ address_line1: '2 Other Street' })
    const started = await eventsOf(call, 'onboarding.started')
    expect(started).toHaveLength(1)
    expect(started[0]?.data.object).toMatchObject({ id: s.onboardingId, status: 'pending' })
    expect(await eventsOf(call, 'onboarding.completed')).toEqual([])
    const done = await complete(s.onboardingId, PASS)
    const completed = await eventsOf(call, 'onboarding.completed')
    expect(completed).toHaveLength(1)
    expect(completed[0]?.data.object).toMatchObject({ id: s.onboardingId, status: 'completed' })
    const card = await eventsOf(call, 'card.created')
    expect(card).toHaveLength(1)
    expect(card[0]?.data.object.id).toBe(done.json.data.card.id)
    expect(await eventsOf(call, 'onboarding.failed')).toEqual([])
  })

  it('onboarding.failed on a fail, and no card.created', async () => {
    const { call, start, complete } = await sandboxWithUser()
    const s = await start()
    const declined = { result: 'fail', data: 'declined', agreement_accepted: false }
    await complete(s.onboardingId, declined, 'agreement_declined')
    const failed = await eventsOf(call, 'onboarding.failed')
    expect(failed).toHaveLength(1)
    expect(failed[0]?.data.object).toMatchObject({ id: s.onboardingId, status: 'failed' })
    expect(await eventsOf(call, 'card.created')).toEqual([])
    expect(await eventsOf(call, 'onboarding.completed')).toEqual([])
  })

  it('no event carries the SSN', async () => {
    const { call, start, complete } = await sandboxWithUser()
    const s = await start({ ssn: '321-54-9876' })
    await complete(s.onboardingId, PASS)
    const raw = (
      await call('GET', `/_sandbox/events?partner_id=${DEFAULT_PARTNER.id}&limit=500`, {
        creds: null,
      })
    ).text
    expect(JSON.parse(raw).data.length).toBeGreaterThanOrEqual(4)
    for (const ssn of ['321549876', '321-54-9876', '987654321', '987-65-4321']) {
      expect(raw).not.toContain(ssn)
    }
  })
})

describe('secrecy of the SSN and the access token', () => {
  it('the full SSN is in no response and not in the snapshot (only ssn_last4); the token is not stored', async () => {
    const { call: base } = await sandboxWithUser()
    const seen: string[] = []
    const call: Call = async (method, path, opts) => {
      const res = await base(method, path, opts)
      seen.push(`${method} ${path} ${res.status} ${[...res.headers].join(' ')} ${res.text}`)
      return res
    }
    const { asUser, start } = await userOf(call)
    const s = await start({ ssn: '321 54 9876' })
    await openPage(call, s.onboardingEmbedUrl)
    await runFlow(call, s)
    await asUser('GET', LATEST)
    await asUser('POST', completePath(s.onboardingId), PASS)
    await asUser('GET', STATUS)
    await asUser('GET', ME)
    // A resume with a second SSN, and a 400 on a third.
    const other = await userOf(call)
    const o = await other.start({ ssn: '555-66-7777' })
    await other.start({ ssn: '555667777' })
    await other.asUser('POST', START, applicant({ ssn: '444-55-666', email: 'bad' }))
    await openPage(call, o.onboardingEmbedUrl)
    const all = seen.join('\n')
    for (const ssn of ['321549876', '321-54-9876', '321 54 9876', '555667777', '555-66-7777']) {
      expect(all).not.toContain(ssn)
    }
    const snap = (await snapshot(base)).json
    const text = JSON.stringify(snap)
    for (const ssn of ['321549876', '555667777', '987654321']) expect(text).not.toContain(ssn)
    expect(snap.collections.onboardings[s.onboardingId].applicant.ssn_last4).toBe('9876')
    expect(snap.collections.onboardings[o.onboardingId].applicant.ssn_last4).toBe('7777')
    for (const token of [s.accessToken, o.accessToken]) expect(text).not.toContain(token)
  })
})

describe('OpenAPI document', () => {
  it('has the onboarding paths and card status, each with its error responses', async () => {
    const { call } = await sandboxWithUser()
    const doc = (await call('GET', '/openapi.json', { creds: null })).json
    const responses = (path: string, method: string) => {
      const op = doc.paths[path]?.[method]
      expect(op, `${method} ${path}`).toBeDefined()
      return op.responses as Record<string, { content?: Record<string, { schema: unknown }> }>
    }
    const expected: [string, string, string[]][] = [
      ['/api/v1/partner/cards/onboarding', 'post', ['200', '400', '401', '403', '409', '429']],
      ['/api/v1/partner/cards/onboarding/latest', 'get', ['200', '401', '403', '429']],
      [
        '/api/v1/partner/cards/onboarding/{onboardingId}/complete',
        'post',
        ['200', '400', '401', '403', '404', '409', '429'],
      ],
      ['/api/v1/partner/cards/status', 'get', ['200', '401', '403', '429']],
    ]
    for (const [path, method, statuses] of expected) {
      const r = responses(path, method)
      expect(Object.keys(r), path).toEqual(expect.arrayContaining(statuses))
      for (const status of statuses.filter((s) => s !== '200')) {
        expect(r[status]?.content?.['application/json']?.schema, `${path} ${status}`).toEqual({
          $ref: '#/components/schemas/Error',
        })
      }
      expect(doc.paths[path][method].security).toEqual([
        { PartnerKey: [], PartnerSecret: [], Session: [] },
      ])
    }
  })
})

describe('the hosted flow decides, not only the partner', () => {
  it('a flow whose agreement was declined cannot be completed as a pass (409 naming both values); as a fail, KYC stays approved', async () => {
    const { call, asUser, start } = await sandboxWithUser()
    const s = await start()
    const last = await runFlow(call, s, false)
    expect(last.result).toMatchObject({
      result: 'fail',
      outcome: 'declined',
      reason: 'agreement_declined',
    })
    const asPass = await asUser('POST', completePath(s.onboardingId), PASS)
    expect(asPass.status).toBe(409)
    expect(asPass.json.error.code).toBe('conflict')
    for (const said of ['"fail"', 'agreement_accepted false', '"pass"', 'agreement_accepted true'])
      expect(asPass.json.error.message).toContain(said)
    expect((await asUser('GET', LATEST)).json.data).toMatchObject({
      status: 'in_progress',
      card_id: null,
    })
    const res = await asUser('POST', completePath(s.onboardingId), {
      result: 'fail',
      data: {},
      agreement_accepted: false,
    })
    expect(res.status).toBe(200)
    expect(res.json.data).toMatchObject({
      status: 'failed',
      failure_reason: 'agreement_declined',
      card: null,
    })
    expect(res.json.data.consumer.kyc_status).toBe('approved')
    expect((await asUser('GET', '/api/v1/partner/users/me')).json.kyc_status).toBe('approved')
    expect((await asUser('GET', '/api/v1/partner/cards/status')).json.data.card).toBeNull()
  })

  it('starting again after a failure sets kyc_status back to pending and says so in user.updated', async () => {
    const { call, asUser, start, user, complete } = await sandboxWithUser()
    const first = await start({ ssn: '000-00-0001' })
    await complete(first.onboardingId)
    expect((await asUser('GET', '/api/v1/partner/users/me')).json.kyc_status).toBe('rejected')
    await start()
    expect((await asUser('GET', '/api/v1/partner/users/me')).json.kyc_status).toBe('pending')
    const updates = (await eventsOf(call, 'user.updated')).filter(
      (e) => e.data.object.id === user.userId,
    )
    expect(updates.map((e) => e.data.object.kyc_status)).toContain('pending')
  })
})
