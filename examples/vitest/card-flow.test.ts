import createClient from 'openapi-fetch'
import { createSandbox } from 'partner-sandbox'
import type { paths } from 'partner-sandbox/openapi'
import { afterEach, expect, it } from 'vitest'

/**
 * A backend's unit tests against an in-process sandbox (createSandbox: no port). The typed
 * partner API client goes through `sandbox.fetch`; the control client is `sandbox.control`.
 */
let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
})

async function setup() {
  const sandbox = await createSandbox({ logLevel: 'silent' })
  close = sandbox.close
  const partner = await sandbox.control.createPartner({ name: 'Unit tests' })
  const api = createClient<paths>({
    baseUrl: 'http://sandbox.test',
    headers: partner.headers,
    fetch: sandbox.fetch,
  })
  return { sandbox, partner, api }
}

async function signedIn(setupResult: Awaited<ReturnType<typeof setup>>, email: string) {
  const { api, partner } = setupResult
  const password = 'Unit-Passw0rd!'
  const registered = await api.POST('/api/v1/partner/auth/register', {
    body: {
      email,
      password,
      phone_number: '+14155550100',
      first_name: 'Uma',
      last_name: 'Unit',
      ssn: '123-45-6789',
      date_of_birth: '1988-08-08',
    },
  })
  expect(registered.response.status).toBe(201)
  await api.POST('/api/v1/partner/auth/login', { body: { email, password } })
  const code = await partner.inbox.latestCode(email)
  const verified = await api.POST('/api/v1/partner/auth/verify-otp', { body: { email, code } })
  return { authorization: `Bearer ${verified.data?.sessionToken}` }
}

it('logs in with the emailed code and sees the user.created event', async () => {
  const s = await setup()
  const headers = await signedIn(s, 'uma@example.test')
  const me = await s.api.GET('/api/v1/partner/users/me', { headers })
  expect(me.data?.email).toBe('uma@example.test')
  const created = await s.partner.webhooks.waitFor('user.created')
  expect(created.data.object.email).toBe('uma@example.test')
})

it('a forced 503 (Prefer: code=503) is answered once, in the error envelope', async () => {
  const s = await setup()
  const failed = await s.api.GET('/api/v1/partner/me', { headers: { prefer: 'code=503' } })
  expect(failed.response.status).toBe(503)
  expect(failed.error?.success).toBe(false)
  const ok = await s.api.GET('/api/v1/partner/me')
  expect(ok.data?.partner.id).toBe(s.partner.id)
  expect(await s.partner.requests.count({ path: '/api/v1/partner/me', status: 503 })).toBe(1)
})

it('onboards to an active card without a browser: the hosted flow walked, then completed', async () => {
  const s = await setup()
  const headers = await signedIn(s, 'una@example.test')
  const started = await s.api.POST('/api/v1/partner/cards/onboarding', {
    headers,
    body: {
      first_name: 'Una',
      last_name: 'Unit',
      email: 'una@example.test',
      phone_number: '+14155550100',
      country_code: 'US',
      date_of_birth: '1988-08-08',
      address_line1: '1 Main Street',
      address_city: 'Springfield',
      address_state: 'IL',
      address_zip: '62701',
      ssn: '123-45-6789',
    },
  })
  const onboardingId = started.data?.data.onboardingId ?? ''
  // Before the user ends the hosted flow, the completion is refused, as in production.
  const early = await s.api.POST('/api/v1/partner/cards/onboarding/{onboardingId}/complete', {
    headers,
    params: { path: { onboardingId } },
    body: { result: 'pass', data: {}, agreement_accepted: true },
  })
  expect(early.response.status).toBe(409)
  // The control plane walks it as the user would; the backend forwards what the flow recorded.
  const { flow } = await s.sandbox.control.onboardings.walk(onboardingId, 'passed')
  const done = await s.api.POST('/api/v1/partner/cards/onboarding/{onboardingId}/complete', {
    headers,
    params: { path: { onboardingId } },
    body: {
      result: flow.result ?? 'fail',
      data: flow.data,
      agreement_accepted: flow.agreementAccepted,
    },
  })
  expect(done.data?.data.card?.status).toBe('active')
})
