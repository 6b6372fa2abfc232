import { describe, expect, it } from 'vitest'
import {
  type Call,
  type Creds,
  createPartner,
  onboardingApplicant,
  registerAndLogin,
  setup,
} from './helpers.js'

/**
 * Completion as production has it (issue 41): POST …/onboarding/:id/complete is taken only
 * once the hosted flow ended, and only with what the flow recorded; the control plane's
 * headless walk ends the flow without a browser. API only (app.request).
 */

const START = '/api/v1/partner/cards/onboarding'
const complete = (id: string) => `${START}/${id}/complete`
const walk = (id: string) => `/_sandbox/onboardings/${id}/walk`
const PASS = { result: 'pass', data: { from: 'backend' }, agreement_accepted: true }

/** A user of `creds` who started an onboarding, and calls made with their session. */
async function started(call: Call, creds?: Creds, overrides: Record<string, string> = {}) {
  const u = await registerAndLogin(call, {}, creds)
  const asUser = (method: string, path: string, body?: unknown) =>
    call(method, path, { creds, headers: u.bearer, body })
  const res = await asUser('POST', START, onboardingApplicant(u.user, overrides))
  expect(res.status, res.text).toBe(200)
  return { asUser, id: res.json.data.onboardingId as string }
}

describe('completion before the hosted flow ended', () => {
  it('409 naming the ways to end it, nothing changes; the headless walk then lets it pass', async () => {
    const { call } = await setup()
    const { asUser, id } = await started(call)
    const early = await asUser('POST', complete(id), PASS)
    expect(early.status, early.text).toBe(409)
    expect(early.json.error.code).toBe('conflict')
    for (const way of ['onboardingEmbedUrl', walk(id), 'auto_complete', 'identity_verification'])
      expect(early.json.error.message).toContain(way)
    const status = await asUser('GET', '/api/v1/partner/cards/status')
    expect(status.json.data).toMatchObject({ kyc_status: 'pending', card: null })
    expect(status.json.data.onboarding.status).toBe('pending')

    const walked = await call('POST', walk(id), { creds: null, body: { end: 'passed' } })
    expect(walked.status, walked.text).toBe(200)
    expect(walked.json).toMatchObject({
      onboardingId: id,
      steps: ['identity_verification', 'underwriting', 'agreement'],
      status: 'in_progress',
      completed: false,
      card: null,
      flow: { result: 'pass', outcome: 'approved', agreementAccepted: true, reason: null },
    })
    const done = await asUser('POST', complete(id), PASS)
    expect(done.status, done.text).toBe(200)
    expect(done.json.data).toMatchObject({ status: 'completed', card: { status: 'active' } })
  })

  it('a walk half done (identity only, on the page) still refuses, naming the step the user is at', async () => {
    const { call } = await setup()
    const u = await registerAndLogin(call)
    const res = await call('POST', START, { headers: u.bearer, body: onboardingApplicant(u.user) })
    const { onboardingId: id, accessToken } = res.json.data
    const step = await call('POST', `/embed/onboarding/${id}/steps/identity_verification`, {
      creds: null,
      headers: { authorization: `Bearer ${accessToken}` },
      body: { confirmed: true },
    })
    expect(step.status, step.text).toBe(200)
    const early = await call('POST', complete(id), { headers: u.bearer, body: PASS })
    expect(early.status).toBe(409)
    expect(early.json.error.message).toContain('underwriting')
    // The walk goes on from where the user is.
    const walked = await call('POST', walk(id), { creds: null, body: {} })
    expect(walked.json.steps).toEqual(['underwriting', 'agreement'])
    expect((await call('POST', complete(id), { headers: u.bearer, body: PASS })).status).toBe(200)
  })
})

describe('the completion agrees with what the flow recorded', () => {
  it.each([
    ['failed', 'identity_verification_failed', 'rejected', ['identity_verification']],
    [
      'agreement_declined',
      'agreement_declined',
      'approved',
      ['identity_verification', 'underwriting', 'agreement'],
    ],
  ] as const)(
    'walked to %s: a pass is 409 naming both values; a fail ends it (%s)',
    async (end, reason, kyc, steps) => {
      const { call } = await setup()
      const { asUser, id } = await started(call)
      const walked = await call('POST', walk(id), { creds: null, body: { end } })
      expect(walked.status, walked.text).toBe(200)
      expect(walked.json.steps).toEqual(steps)
      expect(walked.json.flow).toMatchObject({ result: 'fail', reason, agreementAccepted: false })
      const asPass = await asUser('POST', complete(id), PASS)
      expect(asPass.status).toBe(409)
      expect(asPass.json.error.message).toContain(
        'recorded result "fail" and agreement_accepted false; this completion sent result "pass" and agreement_accepted true',
      )
      const done = await asUser('POST', complete(id), {
        result: 'fail',
        data: walked.json.flow.data,
        agreement_accepted: false,
      })
      expect(done.status, done.text).toBe(200)
      expect(done.json.data).toMatchObject({
        status: 'failed',
        failure_reason: reason,
        consumer: { kyc_status: kyc },
        card: null,
      })
    },
  )

  it('a passed flow completed as a fail is 409 too: the result must be the flow’s', async () => {
    const { call } = await setup()
    const { asUser, id } = await started(call)
    await call('POST', walk(id), { creds: null, body: { end: 'passed' } })
    const asFail = await asUser('POST', complete(id), {
      result: 'fail',
      data: {},
      agreement_accepted: true,
    })
    expect(asFail.status).toBe(409)
    expect(asFail.json.error.message).toContain(
      'recorded result "pass" and agreement_accepted true',
    )
    expect((await asUser('GET', '/api/v1/partner/cards/status')).json.data.card).toBeNull()
  })

  it('walked to passed, the sandbox’s own decision still ends the flow (SSN 000000007: underwriting)', async () => {
    const { call } = await setup()
    const { id } = await started(call, undefined, { ssn: '000-00-0007' })
    const walked = await call('POST', walk(id), { creds: null, body: { end: 'passed' } })
    expect(walked.json).toMatchObject({
      steps: ['identity_verification', 'underwriting'],
      flow: { result: 'fail', reason: 'underwriting_declined' },
    })
  })
})

describe('POST /_sandbox/onboardings/:id/walk', () => {
  it('refuses a flow that already ended (409), an unknown onboarding (404) and an unknown end (400)', async () => {
    const { call } = await setup()
    const { id } = await started(call)
    expect((await call('POST', walk(id), { creds: null, body: {} })).status).toBe(200)
    const again = await call('POST', walk(id), { creds: null, body: { end: 'failed' } })
    expect(again.status).toBe(409)
    expect(again.json.error.message).toContain('already ended with result "pass"')
    const unknown = await call('POST', walk('00000000-0000-4000-8000-000000000000'), {
      creds: null,
      body: {},
    })
    expect(unknown.status).toBe(404)
    const { id: other } = await started(call)
    const bad = await call('POST', walk(other), { creds: null, body: { end: 'approved' } })
    expect(bad.status).toBe(400)
    expect(JSON.stringify(bad.json.error.details)).toContain('end')
    const latest = await call('GET', '/_sandbox/events?type=onboarding.completed', { creds: null })
    expect(latest.json.data).toEqual([])
  })

  it("completes too when the partner's auto_complete asks, as after the page's last step", async () => {
    const { call } = await setup()
    const partner = await createPartner(call, { name: 'Auto Co', auto_complete: true })
    const { asUser, id } = await started(call, partner.creds)
    const walked = await call('POST', walk(id), { creds: null, body: { end: 'passed' } })
    expect(walked.json).toMatchObject({
      status: 'completed',
      completed: true,
      card: { status: 'active' },
    })
    const status = await asUser('GET', '/api/v1/partner/cards/status')
    expect(status.json.data.card.id).toBe(walked.json.card.id)
  })

  it('is guarded by the admin token like the rest of /_sandbox', async () => {
    const { call } = await setup({ adminToken: 'the-admin-token' })
    const res = await call('POST', walk('00000000-0000-4000-8000-000000000000'), {
      creds: null,
      body: {},
    })
    expect(res.status).toBe(401)
  })
})
