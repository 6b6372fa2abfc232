import createClient from 'openapi-fetch'
import { createSandbox } from 'partner-sandbox'
import type { paths } from 'partner-sandbox/openapi'
import { afterEach, expect, it } from 'vitest'

/**
 * A backend's sign-up handler, as an app would write it: the card service's 409 becomes a
 * message for the user. A rule makes register answer 409 on demand; a
 * verification proves what the handler sent.
 */
type Api = ReturnType<typeof createClient<paths>>

async function signUp(
  api: Api,
  email: string,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const { error, response } = await api.POST('/api/v1/partner/auth/register', {
    body: {
      email,
      password: 'Unit-Passw0rd!',
      phone_number: '+14155550100',
      first_name: 'Uma',
      last_name: 'Unit',
      ssn: '123-45-6789',
      date_of_birth: '1988-08-08',
    },
  })
  if (!error) return { ok: true }
  if (response.status === 409)
    return { ok: false, message: 'This email already has an account. Log in instead?' }
  return { ok: false, message: error.error.message }
}

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
})

it('tells the user to log in when register answers 409', async () => {
  const sandbox = await createSandbox({ logLevel: 'silent' })
  close = sandbox.close
  const partner = await sandbox.control.createPartner({ name: 'Sign-up tests' })
  const api = createClient<paths>({
    baseUrl: 'http://sandbox.test',
    headers: partner.headers,
    fetch: async (request) => sandbox.fetch(request),
  })
  await partner.rules.add({
    match: { method: 'POST', path: '/api/v1/partner/auth/register' },
    respond: {
      status: 409,
      body: {
        success: false,
        error: { code: 'conflict', message: 'A user with this email already exists.' },
        requestId: 'req_unit',
      },
    },
    once: true,
  })

  expect(await signUp(api, 'uma@example.test')).toEqual({
    ok: false,
    message: 'This email already has an account. Log in instead?',
  })
  const sent = await partner.requests.verify(
    { method: 'POST', path: '/api/v1/partner/auth/register', body: { email: 'uma@example.test' } },
    { times: 1 },
  )
  expect(sent.near_misses).toEqual([])
  expect(sent.matched).toBe(true)
  // The rule answered once; the same sign-up now reaches the real service.
  expect(await signUp(api, 'uma@example.test')).toEqual({ ok: true })
})
