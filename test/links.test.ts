/**
 * Links the sandbox returns (onboarding embed URL, bank connect URL, profile picture URL) are
 * built from --public-url, else from the address the caller used: Host, or X-Forwarded-Host
 * and X-Forwarded-Proto behind a proxy. Never from the bind address, so a container bound to
 * 0.0.0.0 and published on another port hands out links that work from outside.
 */
import { request as httpRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import {
  acme,
  bearer,
  type Call,
  httpCall,
  onboardingApplicant,
  orgHeaders,
  registerAndLogin,
  servedForTest,
  setup,
  type TestSandbox,
} from './helpers.js'

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)

type Sandbox = TestSandbox['sandbox']

/** The three links, each fetched with `headers` added to the request that returns it. */
async function links(sandbox: Sandbox, call: Call, headers: Record<string, string>) {
  const user = await registerAndLogin(call)
  const auth = { ...user.bearer, ...headers }
  const onboarding = await call('POST', '/api/v1/partner/cards/onboarding', {
    headers: auth,
    body: onboardingApplicant(user.user),
  })
  expect(onboarding.status, onboarding.text).toBe(200)
  const connect = await call('POST', '/api/v1/external-bank-account-connect/token', {
    headers: auth,
  })
  expect(connect.status, connect.text).toBe(201)
  const form = new FormData()
  form.append('profile_picture', new File([PNG], 'me.png', { type: 'image/png' }))
  const picture = await sandbox.app.request('/api/v1/partner/users/me/profile-picture', {
    method: 'PATCH',
    body: form,
    headers: { ...orgHeaders(acme), ...bearer(user.token), ...headers },
  })
  const pictureJson = (await picture.json()) as { profile_picture_url: string }
  expect(picture.status, JSON.stringify(pictureJson)).toBe(200)
  return {
    embed: onboarding.json.data.onboardingEmbedUrl as string,
    connect: connect.json.data.connect_url as string,
    picture: pictureJson.profile_picture_url,
  }
}

const origins = (l: Record<string, string>) => Object.values(l).map((url) => new URL(url).origin)

describe('links follow the request without --public-url', () => {
  it('use the Host header the caller sent (a container published on another port)', async () => {
    const { sandbox, call } = await setup({ host: '0.0.0.0' })
    const l = await links(sandbox, call, { host: 'sandbox.ci.internal:8080' })
    expect(origins(l)).toEqual(Array(3).fill('http://sandbox.ci.internal:8080'))
    expect(l.embed).toMatch(/^http:\/\/sandbox\.ci\.internal:8080\/embed\/onboarding\?/)
    expect(l.connect).toMatch(
      /^http:\/\/sandbox\.ci\.internal:8080\/api\/v1\/external-bank-account-connect\/connect\?token=/,
    )
  })

  it('prefer X-Forwarded-Host and X-Forwarded-Proto set by a proxy (first value of a list)', async () => {
    // A proxy's headers count only when a setting says one stands in front (trust-proxy.test.ts).
    const { sandbox, call } = await setup({ trustProxy: true })
    const l = await links(sandbox, call, {
      host: 'sandbox:4010',
      'x-forwarded-host': 'api.partner.example, proxy.internal',
      'x-forwarded-proto': 'https',
    })
    expect(origins(l)).toEqual(Array(3).fill('https://api.partner.example'))
  })

  it('never carry 0.0.0.0 nor a Host that is not a host', async () => {
    const { sandbox, call } = await setup({ host: '0.0.0.0', port: 4010 })
    const wildcard = await links(sandbox, call, { host: '0.0.0.0:4010' })
    expect(origins(wildcard)).toEqual(Array(3).fill('http://127.0.0.1:4010'))

    const bent = await links(sandbox, call, {
      host: 'evil.example/phish?x=',
      'x-forwarded-proto': 'javascript',
    })
    for (const url of Object.values(bent)) {
      expect(url).not.toContain('evil.example')
      expect(url).not.toContain('0.0.0.0')
      expect(new URL(url).protocol).toBe('http:')
    }
  })

  it('keep each request to its own Host when callers with different Hosts overlap', async () => {
    const { sandbox, call } = await setup({ host: '0.0.0.0' })
    const hosts = ['one.ci.internal:8001', 'two.ci.internal:8002', 'one.ci.internal:8001']
    const all = await Promise.all(hosts.map((host) => links(sandbox, call, { host })))
    all.forEach((l, i) => {
      expect(origins(l)).toEqual(Array(3).fill(`http://${hosts[i]}`))
    })
  })

  it('outside a request use the latest caller origin, and before any request a loopback one', async () => {
    const { sandbox, call } = await setup({ host: '0.0.0.0', port: 4010 })
    expect(sandbox.services.baseUrl()).toBe('http://127.0.0.1:4010')
    await call('GET', '/api/v1/partner/me', { headers: { host: 'sandbox.ci.internal:9000' } })
    expect(sandbox.services.baseUrl()).toBe('http://sandbox.ci.internal:9000')
  })
})

describe('--public-url wins over every header', () => {
  it('gives the public URL in every link, whatever Host or X-Forwarded-* say', async () => {
    const { sandbox, call } = await setup({ publicUrl: 'https://sandbox.partner.example/' })
    const l = await links(sandbox, call, {
      host: 'sandbox.ci.internal:8080',
      'x-forwarded-host': 'proxy.example',
      'x-forwarded-proto': 'http',
    })
    expect(origins(l)).toEqual(Array(3).fill('https://sandbox.partner.example'))
  })
})

describe('links over a real socket', () => {
  it('follow the Host the client really sent, not the bind address', async () => {
    const running = await servedForTest()
    const { port } = running
    const user = await registerAndLogin(httpCall(running.url))
    const payload = JSON.stringify(onboardingApplicant(user.user))
    const answer = await new Promise<{ status?: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/v1/partner/cards/onboarding',
          headers: {
            ...orgHeaders(acme),
            ...user.bearer,
            host: `localhost:${port}`,
            'content-type': 'application/json',
          },
        },
        (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (chunk) => {
            text += chunk
          })
          res.on('end', () => resolve({ status: res.statusCode, text }))
        },
      )
      req.on('error', reject)
      req.end(payload)
    })
    expect(answer.status, answer.text).toBe(200)
    const embed = new URL(JSON.parse(answer.text).data.onboardingEmbedUrl)
    expect(embed.origin).toBe(`http://localhost:${port}`)
    // The same server, reached by its IP, links by its IP.
    const again = await httpCall(running.url)('POST', '/api/v1/partner/cards/onboarding', {
      headers: user.bearer,
      body: onboardingApplicant(user.user),
    })
    expect(new URL(again.json.data.onboardingEmbedUrl).origin).toBe(`http://127.0.0.1:${port}`)
  })
})
