/**
 * X-Forwarded-Host, -Proto and -For are believed only with --trust-proxy
 * (SANDBOX_TRUST_PROXY, `trustProxy`): any client can send them, so without a setting that
 * says a proxy stands in front, a caller could bend the links the sandbox hands out (a bank
 * connect URL on evil.example). Links then come from --public-url or the request's own Host.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { serveCommand } from '../src/cli/command-specs.js'
import { parseFlags } from '../src/cli/flags.js'
import { envNames } from '../src/config.js'
import { parseOptions } from '../src/index.js'
import { type Call, registerAndLogin, setup } from './helpers.js'

const forwarded = {
  host: 'sandbox.ci.internal:8080',
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'https',
  'x-forwarded-for': '203.0.113.9',
}

/** The origin of a bank connect link made by a request carrying `headers`. */
async function connectOrigin(call: Call, headers: Record<string, string>) {
  const user = await registerAndLogin(call)
  const res = await call('POST', '/api/v1/external-bank-account-connect/token', {
    headers: { ...user.bearer, ...headers },
  })
  expect(res.status, res.text).toBe(201)
  return new URL(res.json.data.connect_url).origin
}

describe('forwarded headers', () => {
  it('are ignored without --trust-proxy: links use the request Host', async () => {
    const { call } = await setup()
    expect(await connectOrigin(call, forwarded)).toBe('http://sandbox.ci.internal:8080')
  })

  it('are ignored without --trust-proxy even with no Host to fall back on but the URL', async () => {
    const { call } = await setup()
    const { host: _host, ...noHost } = forwarded
    const origin = await connectOrigin(call, noHost)
    expect(origin).not.toContain('evil.example')
    expect(origin.startsWith('https:')).toBe(false)
  })

  it('count with trustProxy: the proxy says what the client used', async () => {
    const { call } = await setup({ trustProxy: true })
    expect(await connectOrigin(call, forwarded)).toBe('https://evil.example')
  })

  it('never win over --public-url, trusted or not', async () => {
    const { call } = await setup({
      trustProxy: true,
      publicUrl: 'https://sandbox.partner.example',
    })
    expect(await connectOrigin(call, forwarded)).toBe('https://sandbox.partner.example')
  })
})

describe('the trust-proxy setting', () => {
  it('is off by default, a flag, a variable and an option', () => {
    expect(parseOptions({}).trustProxy).toBe(false)
    expect(parseOptions({ trustProxy: true }).trustProxy).toBe(true)
    expect(envNames.SANDBOX_TRUST_PROXY).toBe('trustProxy')
    for (const on of ['1', 'true', 'yes', 'on'])
      expect(parseOptions({ trustProxy: on as never }).trustProxy).toBe(true)
    for (const off of ['0', 'false', 'no', 'off'])
      expect(parseOptions({ trustProxy: off as never }).trustProxy).toBe(false)
    expect(() => parseOptions({ trustProxy: 'maybe' as never })).toThrow(/trustProxy/)
    expect(parseFlags(['--trust-proxy'], serveCommand).values['trust-proxy']).toBe(true)
  })
})

describe('examples/cluster', () => {
  it('tells the replicas behind HAProxy to believe its forwarded headers', () => {
    const dir = new URL('../examples/cluster/', import.meta.url)
    const compose = parse(readFileSync(new URL('compose.yaml', dir), 'utf8'), { merge: true })
    expect(readFileSync(new URL('haproxy.cfg', dir), 'utf8')).toMatch(/X-Forwarded-Proto/)
    const value = compose.services.sandbox.environment.SANDBOX_TRUST_PROXY
    expect(parseOptions({ trustProxy: value }).trustProxy).toBe(true)
  })
})
