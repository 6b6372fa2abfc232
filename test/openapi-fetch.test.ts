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
})
