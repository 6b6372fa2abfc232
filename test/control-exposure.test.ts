/**
 * A container's health check needs /_sandbox/health without the admin token; everything else
 * under /_sandbox still needs it. Bound beyond loopback with no token, the banner says the
 * control plane is open and how to guard it.
 */
import { describe, expect, it } from 'vitest'
import { banner, isLoopback } from '../src/banner.js'
import { parseOptions } from '../src/index.js'
import { setup } from './helpers.js'

const TOKEN = 'admin-token-for-tests'

describe('/_sandbox/health with an admin token', () => {
  it('answers without the token, while the rest of the control plane still asks for it', async () => {
    const { call } = await setup({ adminToken: TOKEN })
    const health = await call('GET', '/_sandbox/health', { creds: null })
    expect(health.status, health.text).toBe(200)
    expect(health.json.status).toBe('ok')

    const inbox = await call('GET', '/_sandbox/inbox', { creds: null })
    expect(inbox.status).toBe(401)
    expect(inbox.json.error.code).toBe('unauthorized')
    const reset = await call('POST', '/_sandbox/reset', { creds: null })
    expect(reset.status).toBe(401)
    // Only the exact path is open: no prefix or method trick reaches another route.
    const snapshot = await call('GET', '/_sandbox/health/../snapshot', { creds: null })
    expect(snapshot.status).toBe(401)
    const posted = await call('POST', '/_sandbox/health', { creds: null })
    expect([401, 404, 405]).toContain(posted.status)
    expect(posted.status).not.toBe(200)

    const withToken = await call('GET', '/_sandbox/inbox', {
      creds: null,
      headers: { authorization: `Bearer ${TOKEN}` },
    })
    expect(withToken.status, withToken.text).toBe(200)
  })

  it('is documented as open in the OpenAPI document; its neighbours keep the admin scheme', async () => {
    const { call } = await setup()
    const doc = (await call('GET', '/openapi.json')).json
    expect(doc.paths['/_sandbox/health'].get.security).toEqual([])
    expect(doc.paths['/_sandbox/reset'].post.security).toEqual([{ SandboxAdmin: [] }])
  })
})

const facts = (options: Parameters<typeof parseOptions>[0], url: string) => ({
  version: '0.0.0',
  readyMs: 12,
  url,
  config: parseOptions(options),
  scenario: 'default',
})

describe('the banner on an open control plane', () => {
  it('warns when bound to every interface with no admin token, naming the fix', () => {
    const text = banner(facts({ host: '0.0.0.0', port: 4010 }, 'http://0.0.0.0:4010'))
    expect(text).toContain('WARNING')
    expect(text).toContain('The control plane (/_sandbox) is open to whoever reaches port 4010')
    expect(text).toContain('--admin-token')
    expect(text).toContain('SANDBOX_ADMIN_TOKEN')
  })

  it('names the port really bound when --port 0 picked one', () => {
    const text = banner(facts({ host: '192.168.1.20', port: 0 }, 'http://192.168.1.20:38211'))
    expect(text).toContain('reaches port 38211 on 192.168.1.20')
  })

  it('stays quiet on loopback, or when an admin token guards the control plane', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) {
      expect(banner(facts({ host }, 'http://127.0.0.1:4010'))).not.toContain('WARNING')
    }
    const guarded = banner(facts({ host: '0.0.0.0', adminToken: TOKEN }, 'http://0.0.0.0:4010'))
    expect(guarded).not.toContain('WARNING')
    expect(guarded).toContain('(admin token required)')
  })

  it('knows loopback from the rest', () => {
    expect(['127.0.0.1', '127.1.2.3', '[::1]', 'LOCALHOST'].every(isLoopback)).toBe(true)
    expect(['0.0.0.0', '::', '10.0.0.5', 'sandbox', '127.0.0.1.nip.io'].some(isLoopback)).toBe(
      false,
    )
  })
})
