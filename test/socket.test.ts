import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { acme, engineOptions, northwind, orgHeaders } from './helpers.js'

describe('over a real socket', () => {
  let sandbox: RunningSandbox
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, logLevel: 'silent', ...engineOptions() })
  })
  afterAll(() => sandbox.close())

  it('listens on 127.0.0.1 and serves the partner record with the default credentials', async () => {
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const res = await fetch(`${sandbox.url}/api/v1/partner/me`, { headers: orgHeaders(acme) })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000')
    const body = (await res.json()) as { partner: { api_key: string } }
    expect(body.partner.api_key).toBe(acme.key)
    expect(JSON.stringify(body)).not.toMatch(/api_secret_hash|webhook_secret/)
  })

  it('handles parallel requests, a rotation among them, consistently', async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, () =>
        fetch(`${sandbox.url}/api/v1/partner/usage`, { headers: orgHeaders(acme) }),
      ),
    )
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200))
    const rotated = (await (
      await fetch(`${sandbox.url}/api/v1/partner/me/rotate-api-key`, {
        method: 'POST',
        headers: orgHeaders(acme),
      })
    ).json()) as { api_key: string; api_secret: string }
    const old = await fetch(`${sandbox.url}/api/v1/partner/me`, { headers: orgHeaders(acme) })
    expect(old.status).toBe(401)
    const fresh = await fetch(`${sandbox.url}/api/v1/partner/me`, {
      headers: orgHeaders({ key: rotated.api_key, secret: rotated.api_secret }),
    })
    expect(fresh.status).toBe(200)
  })

  // Northwind: the test above rotated Acme's key on this shared sandbox.
  it('walks the user flow over HTTP: register, login, inbox, verify, users/me, logout', async () => {
    const json = { ...orgHeaders(northwind), 'content-type': 'application/json' }
    const post = (path: string, body?: unknown, extra: Record<string, string> = {}) =>
      fetch(`${sandbox.url}/api/v1${path}`, {
        method: 'POST',
        headers: { ...json, ...extra },
        body: JSON.stringify(body ?? {}),
      })
    const email = 'socket.walk@example.com'
    const reg = await post('/partner/auth/register', {
      email,
      phone_number: '+14155550100',
      first_name: 'Sock',
      last_name: 'Et',
      password: 'Sandbox-Passw0rd!',
      ssn: '123456789',
      date_of_birth: '1985-01-31',
    })
    expect(reg.status).toBe(201)
    expect(
      (await post('/partner/auth/login', { email, password: 'Sandbox-Passw0rd!' })).status,
    ).toBe(200)
    const inbox = (await (await fetch(`${sandbox.url}/_sandbox/inbox?email=${email}`)).json()) as {
      data: { code: string }[]
    }
    const verify = await post('/partner/auth/verify-otp', { email, code: inbox.data[0]?.code })
    const { sessionToken } = (await verify.json()) as { sessionToken: string }
    const bearer = { authorization: `Bearer ${sessionToken}` }
    const me = await fetch(`${sandbox.url}/api/v1/partner/users/me`, {
      headers: { ...orgHeaders(northwind), ...bearer },
    })
    expect(me.status).toBe(200)
    expect(((await me.json()) as { email: string }).email).toBe(email)
    expect((await post('/partner/auth/logout', undefined, bearer)).status).toBe(200)
    const after = await fetch(`${sandbox.url}/api/v1/partner/users/me`, {
      headers: { ...orgHeaders(northwind), ...bearer },
    })
    expect(after.status).toBe(401)
  })
})
