import { describe, expect, it } from 'vitest'
import {
  bearer,
  createPartner,
  offeredBankAccounts,
  onboardingApplicant,
  registerAndLogin,
  setup,
  snapshotOf,
} from './helpers.js'

/**
 * The spec: "a suspended or revoked account gets 403 on every request". The public surfaces
 * (hosted onboarding page and its steps, bank connect page, public enrollment) carry a token
 * rather than credentials, and must refuse a non-active partner too, changing nothing.
 */

async function startedFlows() {
  const { sandbox, call } = await setup({ seed: 7 })
  const partner = await createPartner(call, { name: 'pausable' })
  const u = await registerAndLogin(call, {}, partner.creds)
  const start = await call('POST', '/api/v1/partner/cards/onboarding', {
    creds: partner.creds,
    headers: u.bearer,
    body: onboardingApplicant(u.user),
  })
  expect(start.status).toBe(200)
  const embed = new URL(start.json.data.onboardingEmbedUrl)
  const connect = await call('POST', '/api/v1/external-bank-account-connect/token', {
    creds: partner.creds,
    headers: u.bearer,
  })
  expect(connect.status).toBe(201)
  const connectUrl = new URL(connect.json.data.connect_url)
  const page = await call('GET', `${connectUrl.pathname}${connectUrl.search}`, { creds: null })
  const [account] = offeredBankAccounts(page.text)
  return {
    sandbox,
    call,
    partner,
    embedPath: `${embed.pathname}${embed.search}`,
    onboardingId: start.json.data.onboardingId as string,
    accessToken: start.json.data.accessToken as string,
    connectPath: `${connectUrl.pathname}${connectUrl.search}`,
    enrollBody: { token: connect.json.data.connect_token as string, ...account },
  }
}

describe.each(['suspended', 'revoked'])('a %s partner', (status) => {
  it('gets 403 on its hosted pages, step routes and public enrollment, and nothing changes', async () => {
    const s = await startedFlows()
    const { call } = s
    const patched = await call('PATCH', `/_sandbox/partners/${s.partner.id}`, {
      creds: null,
      body: { status },
    })
    expect(patched.status).toBe(200)
    const before = await snapshotOf(s.call)

    for (const path of [s.embedPath, s.connectPath]) {
      const page = await call('GET', path, { creds: null })
      expect(page.status, path).toBe(403)
      expect(page.headers.get('content-type')).toMatch(/^text\/html/)
      expect(page.text).toContain('data-testid="embed-error"')
      expect(page.text).toMatch(/not available/)
      // The hosted-page headers: the URL carries a token.
      expect(page.headers.get('cache-control')).toBe('no-store')
      expect(page.headers.get('referrer-policy')).toBe('no-referrer')
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
      expect(page.headers.get('x-request-id')).toMatch(/^req_/)
    }

    const step = await call(
      'POST',
      `/embed/onboarding/${s.onboardingId}/steps/identity_verification`,
      { creds: null, headers: bearer(s.accessToken), body: { confirmed: true } },
    )
    expect(step.status, step.text).toBe(403)
    expect(step.json).toMatchObject({ success: false, error: { code: 'forbidden' } })
    expect(step.json.error.message).toContain(status)

    const enrolled = await call('POST', '/api/v1/external-bank-account-connect/enrollment/public', {
      creds: null,
      body: s.enrollBody,
    })
    expect(enrolled.status).toBe(403)
    expect(enrolled.json).toMatchObject({ success: false, error: { code: 'forbidden' } })

    // No bank account, no onboarding step, no used token, no event.
    expect(await snapshotOf(s.call)).toBe(before)
  })
})

it('a reactivated partner gets its pages and routes back, with the same links', async () => {
  const s = await startedFlows()
  const { call } = s
  for (const status of ['suspended', 'active']) {
    await call('PATCH', `/_sandbox/partners/${s.partner.id}`, { creds: null, body: { status } })
  }
  expect((await call('GET', s.embedPath, { creds: null })).status).toBe(200)
  expect((await call('GET', s.connectPath, { creds: null })).status).toBe(200)
  const step = await call(
    'POST',
    `/embed/onboarding/${s.onboardingId}/steps/identity_verification`,
    { creds: null, headers: bearer(s.accessToken), body: { confirmed: true } },
  )
  expect(step.status).toBe(200)
  const enrolled = await call('POST', '/api/v1/external-bank-account-connect/enrollment/public', {
    creds: null,
    body: s.enrollBody,
  })
  expect(enrolled.status).toBe(201)
})
