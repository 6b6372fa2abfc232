import { describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import {
  bearer,
  type Call,
  onboardingApplicant,
  registerAndLogin,
  setup,
  UNDERWRITING_ANSWERS,
  walkFlow,
} from './helpers.js'

/**
 * Onboarding's writes go through the state seam's transactions (issue 20): a request reads,
 * checks and writes with awaits in between, and concurrent requests for one user must still
 * come out as if they ran one after another.
 */

const START = '/api/v1/partner/cards/onboarding'
const N = 20

async function eventsOf(call: Call, type: string) {
  const res = await call('GET', `/_sandbox/events?partner_id=${DEFAULT_PARTNER.id}&limit=100`, {
    creds: null,
  })
  expect(res.status, res.text).toBe(200)
  return (res.json.data as { type: string; data: { object: Record<string, unknown> } }[]).filter(
    (e) => e.type === type,
  )
}

/** A sandbox without a rate limit, and a user who started an onboarding. */
async function startedOnboarding() {
  const { call } = await setup({ rateLimit: 'off' })
  const u = await registerAndLogin(call)
  const res = await call('POST', START, { headers: u.bearer, body: onboardingApplicant(u.user) })
  expect(res.status, res.text).toBe(200)
  return { call, u, start: res.json.data as { onboardingId: string; accessToken: string } }
}

describe('concurrent onboarding requests of one user', () => {
  it('starts one onboarding however many starts race, and only the last token opens it', async () => {
    const { call } = await setup({ rateLimit: 'off' })
    const u = await registerAndLogin(call)
    const body = onboardingApplicant(u.user)
    const starts = await Promise.all(
      Array.from({ length: N }, () => call('POST', START, { headers: u.bearer, body })),
    )
    for (const res of starts) expect(res.status, res.text).toBe(200)
    const ids = new Set(starts.map((res) => res.json.data.onboardingId))
    expect(ids.size).toBe(1)
    expect(
      starts.filter((res) => res.json.data.message.startsWith('Onboarding started')),
    ).toHaveLength(1)
    expect(await eventsOf(call, 'onboarding.started')).toHaveLength(1)

    const [id] = [...ids] as [string]
    const opened = await Promise.all(
      starts.map((res) =>
        call('GET', `/embed/onboarding/${id}/status`, {
          creds: null,
          headers: bearer(res.json.data.accessToken),
        }),
      ),
    )
    expect(opened.filter((res) => res.status === 200)).toHaveLength(1)
    expect(opened.filter((res) => res.status === 401)).toHaveLength(N - 1)
  })

  it('issues one card however many completions race', async () => {
    const { call, u, start } = await startedOnboarding()
    const id = start.onboardingId
    await walkFlow(call, id)
    const done = await Promise.all(
      Array.from({ length: N }, () =>
        call('POST', `${START}/${id}/complete`, {
          headers: u.bearer,
          body: { result: 'pass', data: {}, agreement_accepted: true },
        }),
      ),
    )
    for (const res of done) expect(res.status, res.text).toBe(200)
    const cards = new Set(done.map((res) => res.json.data.card.id))
    expect(cards.size).toBe(1)
    expect(await eventsOf(call, 'card.created')).toHaveLength(1)
    expect(await eventsOf(call, 'onboarding.completed')).toHaveLength(1)
  })

  it('records a step of the hosted flow once when the page posts it many times at once', async () => {
    const { call, start } = await startedOnboarding()
    const { onboardingId: id, accessToken } = start
    const post = (step: string, body: unknown) =>
      call('POST', `/embed/onboarding/${id}/steps/${step}`, {
        creds: null,
        headers: bearer(accessToken),
        body,
      })
    await post('identity_verification', { confirmed: true })
    const answers = await Promise.all(
      Array.from({ length: N }, () => post('underwriting', UNDERWRITING_ANSWERS)),
    )
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1)
    const refused = answers.filter((res) => res.status === 409)
    expect(refused).toHaveLength(N - 1)
    expect(refused[0]?.json.error.message).toBe('The next step is agreement, not underwriting.')
  })
})
