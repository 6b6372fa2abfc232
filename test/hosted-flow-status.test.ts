import { describe, expect, it } from 'vitest'
import {
  bearer,
  type Call,
  type Creds,
  createPartner,
  journalOf,
  onboardingApplicant,
  registerAndLogin,
  setup,
  UNDERWRITING_ANSWERS,
} from './helpers.js'

/**
 * What the hosted onboarding page can learn and do after its flow ends (issue 23): its own
 * status through a token-scoped endpoint, the partner's `auto_complete` setting, the control
 * plane's completion (the dashboard's button), and the link's error when its token is unknown
 * rather than superseded. API only (app.request).
 */

const START = '/api/v1/partner/cards/onboarding'
const statusPath = (id: string) => `/embed/onboarding/${id}/status`

/** A user of `creds` who started an onboarding; answers the start's data and the user. */
async function started(call: Call, creds?: Creds, ssn?: string) {
  const u = await registerAndLogin(call, {}, creds)
  const res = await call('POST', START, {
    creds,
    headers: u.bearer,
    body: onboardingApplicant(u.user, ssn ? { ssn } : {}),
  })
  expect(res.status, res.text).toBe(200)
  return { ...u, start: res.json.data as { onboardingId: string; accessToken: string } }
}

/** The hosted flow's steps, as the page posts them, until it ends. */
async function runFlow(call: Call, id: string, token: string) {
  const steps: [string, unknown][] = [
    ['identity_verification', { confirmed: true }],
    ['underwriting', UNDERWRITING_ANSWERS],
    ['agreement', { accepted: true }],
  ]
  for (const [name, body] of steps) {
    const res = await call('POST', `/embed/onboarding/${id}/steps/${name}`, {
      creds: null,
      headers: bearer(token),
      body,
    })
    expect(res.status, res.text).toBe(200)
    if (res.json.finished) return res.json.result
  }
  throw new Error('the flow did not end')
}

const flowStatus = (call: Call, id: string, token: string) =>
  call('GET', statusPath(id), { creds: null, headers: bearer(token) })

const eventTypes = async (call: Call, partnerId: string) => {
  const res = await call('GET', `/_sandbox/events?partner_id=${partnerId}&limit=100`, {
    creds: null,
  })
  expect(res.status, res.text).toBe(200)
  return (res.json.data as { type: string }[]).map((e) => e.type)
}

describe('GET /embed/onboarding/:id/status (the hosted page polls it)', () => {
  it("answers only this onboarding's state, with its own access token, until the partner completes", async () => {
    const { call } = await setup()
    const { start, bearer: auth } = await started(call)
    const { onboardingId: id, accessToken: token } = start

    const before = await flowStatus(call, id, token)
    expect(before.status, before.text).toBe(200)
    expect(before.json).toEqual({
      onboardingId: id,
      status: 'pending',
      consumerKycStatus: 'pending',
      flow_result: null,
      completed: false,
      failure_reason: null,
      review_resolves_at: null,
      card: null,
    })
    // Nothing of the user or the partner: no name, email, SSN, consumer or partner id.
    expect(before.text).not.toMatch(/email|first_name|ssn|partner_id|user_id/)

    const flow = await runFlow(call, id, token)
    const ended = await flowStatus(call, id, token)
    expect(ended.json).toMatchObject({
      status: 'in_progress',
      consumerKycStatus: 'pending',
      flow_result: 'pass',
      completed: false,
      card: null,
    })

    const done = await call('POST', `${START}/${id}/complete`, {
      headers: auth,
      body: { result: flow.result, data: flow.data, agreement_accepted: flow.agreementAccepted },
    })
    expect(done.status, done.text).toBe(200)
    const after = await flowStatus(call, id, token)
    expect(after.json).toMatchObject({
      status: 'completed',
      consumerKycStatus: 'approved',
      completed: true,
      card: { last4: done.json.data.card.last4, status: 'active' },
    })
  })

  it('401 without a token, with a wrong one, or with the token of another onboarding', async () => {
    const { call } = await setup()
    const a = (await started(call)).start
    const b = (await started(call)).start
    const none = await call('GET', statusPath(a.onboardingId), { creds: null })
    expect(none.status).toBe(401)
    expect(none.json.error.code).toBe('unauthorized')
    const wrong = await flowStatus(call, a.onboardingId, `obt_${'x'.repeat(40)}`)
    expect(wrong.status).toBe(401)
    expect(wrong.json.error.message).toContain('unknown')
    const other = await flowStatus(call, a.onboardingId, b.accessToken)
    expect(other.status).toBe(401)
    expect(other.text).not.toContain(b.onboardingId)
  })

  it('is journaled under its partner, the access token redacted', async () => {
    const { call } = await setup()
    const { start } = await started(call)
    await flowStatus(call, start.onboardingId, start.accessToken)
    const [entry] = await journalOf(call, { path: statusPath(start.onboardingId) })
    expect(entry.partner_id).toBe('6f1c2b1e-6c8a-4d3e-9a51-2d7f0c9b8e10')
    expect(entry.request.headers.authorization).toBe('[redacted]')
    expect(JSON.stringify(entry)).not.toContain(start.accessToken)
  })
})

describe('the onboarding link of an unknown token', () => {
  it('says the token is unknown; a superseded one still says a newer link was issued', async () => {
    const { call } = await setup()
    const u = await registerAndLogin(call)
    const body = onboardingApplicant(u.user)
    const first = (await call('POST', START, { headers: u.bearer, body })).json.data
    const second = (await call('POST', START, { headers: u.bearer, body })).json.data
    expect(second.onboardingId).toBe(first.onboardingId)
    const page = (token: string) =>
      call(
        'GET',
        `/embed/onboarding?onboarding_id=${first.onboardingId}&access_token=${encodeURIComponent(token)}`,
        { creds: null },
      )
    const made = await page(`obt_${'q'.repeat(40)}`)
    expect(made.status).toBe(401)
    expect(made.text).toContain('its access token is unknown')
    expect(made.text).not.toContain('a newer one was issued')
    const superseded = await page(first.accessToken)
    expect(superseded.status).toBe(401)
    expect(superseded.text).toContain('a newer one was issued')
    expect((await page(second.accessToken)).status).toBe(200)
  })
})

describe('auto_complete: the sandbox completes a finished hosted flow itself', () => {
  it('is off by default, set at creation or by PATCH, and listed', async () => {
    const { call } = await setup()
    const off = await createPartner(call, { name: 'Manual Co' })
    const on = await createPartner(call, { name: 'Auto Co', auto_complete: true })
    const list = (await call('GET', '/_sandbox/partners', { creds: null })).json.data as {
      id: string
      auto_complete: boolean
    }[]
    expect(list.find((p) => p.id === off.id)?.auto_complete).toBe(false)
    expect(list.find((p) => p.id === on.id)?.auto_complete).toBe(true)
    const patched = await call('PATCH', `/_sandbox/partners/${off.id}`, {
      creds: null,
      body: { auto_complete: true },
    })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.json.auto_complete).toBe(true)
    const bad = await call('PATCH', `/_sandbox/partners/${off.id}`, {
      creds: null,
      body: { auto_complete: 'yes' },
    })
    expect(bad.status).toBe(400)
    expect(JSON.stringify(bad.json.error.details)).toContain('auto_complete')
  })

  it('completes as the partner would: card, events, no second card when the partner completes too', async () => {
    const { call } = await setup()
    const partner = await createPartner(call, { name: 'Auto Co', auto_complete: true })
    const { start, bearer: auth } = await started(call, partner.creds)
    const flow = await runFlow(call, start.onboardingId, start.accessToken)
    const state = await flowStatus(call, start.onboardingId, start.accessToken)
    expect(state.json).toMatchObject({ status: 'completed', consumerKycStatus: 'approved' })
    const card = await call('GET', '/api/v1/partner/cards/status', {
      creds: partner.creds,
      headers: auth,
    })
    expect(card.json.data).toMatchObject({
      kyc_status: 'approved',
      card: { status: 'active', last4: state.json.card.last4 },
    })
    expect(await eventTypes(call, partner.id)).toEqual(
      expect.arrayContaining(['onboarding.completed', 'card.created']),
    )
    // The partner's backend still completes with the page's message: the same answer.
    const again = await call('POST', `${START}/${start.onboardingId}/complete`, {
      creds: partner.creds,
      headers: auth,
      body: { result: flow.result, data: flow.data, agreement_accepted: true },
    })
    expect(again.status, again.text).toBe(200)
    expect(again.json.data.card.id).toBe(card.json.data.card.id)
    const types = await eventTypes(call, partner.id)
    expect(types.filter((t) => t === 'card.created')).toHaveLength(1)
  })

  it('leaves the onboarding to the partner when off (the spec flow)', async () => {
    const { call } = await setup()
    const { start } = await started(call)
    await runFlow(call, start.onboardingId, start.accessToken)
    const state = await flowStatus(call, start.onboardingId, start.accessToken)
    expect(state.json).toMatchObject({ status: 'in_progress', completed: false, card: null })
  })
})

describe('POST /_sandbox/onboardings/:id/complete (the dashboard button)', () => {
  it('409 before the flow ends; then completes with the flow result, as the API does', async () => {
    const { call } = await setup()
    const { start, bearer: auth } = await started(call)
    const path = `/_sandbox/onboardings/${start.onboardingId}/complete`
    const early = await call('POST', path, { creds: null, body: {} })
    expect(early.status).toBe(409)
    expect(early.json.error.message).toContain('identity_verification')
    await runFlow(call, start.onboardingId, start.accessToken)
    const done = await call('POST', path, { creds: null, body: {} })
    expect(done.status, done.text).toBe(200)
    expect(done.json).toMatchObject({
      onboardingId: start.onboardingId,
      status: 'completed',
      result: 'pass',
      card: { status: 'active' },
    })
    const card = await call('GET', '/api/v1/partner/cards/status', { headers: auth })
    expect(card.json.data.card.id).toBe(done.json.card.id)
    const unknown = await call(
      'POST',
      '/_sandbox/onboardings/00000000-0000-4000-8000-000000000000/complete',
      {
        creds: null,
        body: {},
      },
    )
    expect(unknown.status).toBe(404)
  })

  it('completes a declined flow as a failure (KYC magic SSN)', async () => {
    const { call } = await setup()
    const { start } = await started(call, undefined, '000-00-0001')
    await runFlow(call, start.onboardingId, start.accessToken)
    const done = await call('POST', `/_sandbox/onboardings/${start.onboardingId}/complete`, {
      creds: null,
      body: {},
    })
    expect(done.status, done.text).toBe(200)
    expect(done.json).toMatchObject({
      status: 'failed',
      result: 'fail',
      card: null,
      failure_reason: 'identity_verification_failed',
    })
  })

  it('is guarded by the admin token like the rest of /_sandbox', async () => {
    const { call } = await setup({ adminToken: 'the-admin-token' })
    const res = await call(
      'POST',
      '/_sandbox/onboardings/00000000-0000-4000-8000-000000000000/complete',
      {
        creds: null,
        body: {},
      },
    )
    expect(res.status).toBe(401)
  })
})

describe('allowed_origins with any port (http://localhost:*)', () => {
  it('accepts the any-port form, refuses other wildcards naming the field', async () => {
    const { call } = await setup()
    const ok = await call('PATCH', '/api/v1/partner/me', {
      body: { allowed_origins: ['http://localhost:*', 'https://app.example'] },
    })
    expect(ok.status, ok.text).toBe(200)
    for (const bad of ['ftp://localhost:*', 'http://localhost:*/path', 'localhost:*']) {
      const res = await call('PATCH', '/api/v1/partner/me', {
        body: { allowed_origins: [bad] },
      })
      expect(res.status, bad).toBe(400)
      expect(JSON.stringify(res.json.error.details)).toContain('allowed_origins')
    }
  })

  it('an exact origin still allows only its own port as a redirect_uri', async () => {
    const { call } = await setup()
    const partner = await createPartner(call, {
      name: 'Exact Co',
      allowed_origins: ['http://localhost:3000'],
    })
    const u = await registerAndLogin(call, {}, partner.creds)
    const body = (redirect_uri: string) => ({ ...onboardingApplicant(u.user), redirect_uri })
    const other = await call('POST', START, {
      creds: partner.creds,
      headers: u.bearer,
      body: body('http://localhost:3001/done'),
    })
    expect(other.status).toBe(400)
    const same = await call('POST', START, {
      creds: partner.creds,
      headers: u.bearer,
      body: body('http://localhost:3000/done'),
    })
    expect(same.status, same.text).toBe(200)
  })

  it('logs a framing the browser will refuse, with the origin and how to allow it', async () => {
    const lines: string[] = []
    const { call } = await setup({ logLevel: 'warn', onLog: (l) => lines.push(l) })
    await call('PATCH', '/api/v1/partner/me', {
      body: { allowed_origins: ['http://localhost:*'] },
    })
    const { start } = await started(call)
    const url = `/embed/onboarding?onboarding_id=${start.onboardingId}&access_token=${start.accessToken}`
    const framed = (referer: string) =>
      call('GET', url, { creds: null, headers: { 'sec-fetch-dest': 'iframe', referer } })
    expect((await framed('http://localhost:5173/app')).status).toBe(200)
    expect(lines.filter((l) => l.includes('framed by'))).toEqual([])
    await framed('http://127.0.0.1:4200/app')
    const warning = lines.find((l) => l.includes('framed by')) ?? ''
    expect(warning).toContain('http://127.0.0.1:4200')
    expect(warning).toContain('PATCH /api/v1/partner/me')
    expect(warning).toContain('http://127.0.0.1:*')
    expect(warning).not.toContain(start.accessToken)
  })
})
