import createClient from 'openapi-fetch'
import type { paths } from 'partner-sandbox/openapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { engineOptions } from './helpers.js'

let sandbox: RunningSandbox
beforeAll(async () => {
  sandbox = await startSandbox({ ...engineOptions(), port: 0, logLevel: 'silent' })
})
afterAll(async () => {
  await sandbox?.close()
})

describe('the generated OpenAPI types (partner-sandbox/openapi) with openapi-fetch', () => {
  it('types the partner API end to end: register, login, verify, profile', async () => {
    const partner = await sandbox.control.createPartner({ name: 'Typed Suite' })
    const api = createClient<paths>({ baseUrl: sandbox.url, headers: partner.headers })
    const email = 'typed@example.test'
    const registered = await api.POST('/api/v1/partner/auth/register', {
      body: {
        email,
        phone_number: '+14155550123',
        first_name: 'Tay',
        last_name: 'Ped',
        password: 'Typed-Passw0rd!',
        ssn: '123-45-6789',
        date_of_birth: '1990-01-01',
      },
    })
    expect(registered.response.status).toBe(201)
    const userId: string | undefined = registered.data?.userId
    expect(userId).toEqual(expect.any(String))

    await api.POST('/api/v1/partner/auth/login', { body: { email, password: 'Typed-Passw0rd!' } })
    const code = await partner.inbox.latestCode(email)
    const verified = await api.POST('/api/v1/partner/auth/verify-otp', { body: { email, code } })
    const token = verified.data?.sessionToken as string
    const me = await api.GET('/api/v1/partner/users/me', {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(me.data?.id).toBe(userId)

    const bad = await api.POST('/api/v1/partner/auth/login', {
      // @ts-expect-error the body is typed: `password` is required
      body: { email },
    })
    expect(bad.response.status).toBe(400)
    expect(bad.error?.error.details?.[0]?.field).toBe('password')
  })

  it('clears the webhook with null, reads a typed address, and gets a typed error on a 503', async () => {
    const partner = await sandbox.control.createPartner({ name: 'Typed Contract' })
    const api = createClient<paths>({ baseUrl: sandbox.url, headers: partner.headers })
    const set = await api.PATCH('/api/v1/partner/me', {
      body: { webhook_url: 'https://acme.example/hooks' },
    })
    expect(set.data?.partner.webhook_url).toBe('https://acme.example/hooks')
    // The spec's "URL or null": no cast needed to clear it.
    const cleared = await api.PATCH('/api/v1/partner/me', { body: { webhook_url: null } })
    expect(cleared.data?.partner.webhook_url).toBeNull()

    const email = 'typed.address@example.test'
    const password = 'Typed-Passw0rd!'
    const registered = await api.POST('/api/v1/partner/auth/register', {
      body: {
        email,
        phone_number: '+14155550199',
        first_name: 'Ada',
        last_name: 'Dress',
        password,
        ssn: '123-45-6789',
        date_of_birth: '1990-01-01',
      },
    })
    expect(registered.response.status).toBe(201)
    await api.POST('/api/v1/partner/auth/login', { body: { email, password } })
    const code = await partner.inbox.latestCode(email)
    const verified = await api.POST('/api/v1/partner/auth/verify-otp', { body: { email, code } })
    const headers = { authorization: `Bearer ${verified.data?.sessionToken}` }
    await api.PATCH('/api/v1/partner/users/me', {
      headers,
      body: { address: { line1: '1 Main Street', city: 'Springfield', country_code: 'US' } },
    })
    const me = await api.GET('/api/v1/partner/users/me', { headers })
    const city: string | undefined = me.data?.address.city
    expect(city).toBe('Springfield')

    const down = await api.GET('/api/v1/partner/me', { headers: { prefer: 'code=503' } })
    expect(down.response.status).toBe(503)
    expect(down.error?.error.code).toBe('service_unavailable')
    expect(down.response.headers.get('retry-after')).toBe('1')
  })
})
