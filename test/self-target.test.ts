/**
 * The sandbox never calls itself (issue 40, item 2): a webhook URL that reaches its own
 * address and port is refused when an endpoint is made (400 naming the field, the built-in
 * sink named as the way in) and again at every delivery (a failed attempt, never sent),
 * through every loopback spelling; nothing changes. Before this, a partner could point an
 * endpoint at http://127.0.0.1:<port>/_sandbox/reset, send its test event, and wipe everyone.
 */
import { lookup } from 'node:dns/promises'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hostname } from 'node:os'
import { serve } from '@hono/node-server'
import { afterEach, describe, expect, it } from 'vitest'
import { runCommand } from '../src/cli/commands.js'
import { createSandbox, type RunningSandbox, type Sandbox } from '../src/index.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { remoteSelf, selfReason } from '../src/webhooks/self-target.js'
import {
  acme,
  type Call,
  type Creds,
  engineOptions,
  registerAndLogin,
  servedForTest,
  setup,
} from './helpers.js'

/** Every way to write "this machine" in a URL's host, as the URL parser leaves it or not. */
const spellings = [
  'localhost',
  'LOCALHOST.',
  'api.localhost',
  '127.0.0.1',
  '127.1.2.3',
  '127.1',
  '2130706433',
  '0x7f.0.0.1',
  '[::1]',
  '[0:0:0:0:0:0:0:1]',
  '[::ffff:127.0.0.1]',
  '0.0.0.0',
  '0',
  '[::]',
]

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close()
})

/** A client over the sandbox's own app.request (where a test sends from does not matter). */
function callOf(sandbox: Sandbox): Call {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> =
      opts.creds === null
        ? {}
        : {
            'x-partner-key': (opts.creds ?? acme).key,
            'x-partner-secret': (opts.creds ?? acme).secret,
          }
    if (opts.body !== undefined) headers['content-type'] = 'application/json'
    const res = await sandbox.request(path, {
      method,
      headers: { ...headers, ...opts.headers },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    })
    const text = await res.text()
    let json: unknown
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {}
    // biome-ignore lint/suspicious/noExplicitAny: tests read answer fields freely
    return { status: res.status, headers: res.headers, json: json as any, text }
  }
}

async function running(): Promise<{ sandbox: RunningSandbox; call: Call }> {
  // Rate limit off: one test makes over a thousand creation attempts.
  const sandbox = await servedForTest({ rateLimit: 'off' })
  return { sandbox, call: callOf(sandbox) }
}

/** Every route of the document with its parameters filled, and a few plain pages. */
async function everyPath(call: Call): Promise<string[]> {
  const doc = (await call('GET', '/openapi.json', { creds: null })).json
  const paths = Object.keys(doc.paths).map((p) =>
    p.replace(/\{id\}/g, DEFAULT_PARTNER.id).replace(/\{[^}]+\}/g, 'x'),
  )
  // The sink is the one way in, by design (its own test below).
  return [...paths, '/_sandbox', '/', '/docs'].filter((p) => !/^\/_sandbox\/sink\/x$/.test(p))
}

function expectSelfRefusal(res: Awaited<ReturnType<Call>>, field: string) {
  expect(res.status, res.text).toBe(400)
  expect(res.json.error.code).toBe('validation_error')
  expect(res.json.error.details).toEqual([
    { field, message: expect.stringContaining('is this sandbox itself'), location: 'body' },
  ])
  expect(res.json.error.message).toContain('/_sandbox/sink/<name>')
}

const endpointsOf = async (call: Call, creds: Creds = acme) =>
  (await call('GET', '/api/v1/partner/webhooks?limit=100', { creds })).json.data as {
    url: string
  }[]

describe('a webhook URL that reaches the sandbox', () => {
  it('is refused at creation, at every route and through every loopback spelling', async () => {
    const { sandbox, call } = await running()
    const before = await endpointsOf(call)
    const paths = await everyPath(call)
    expect(paths).toContain('/_sandbox/reset')
    expect(paths).toContain('/api/v1/partner/me/rotate-api-key')
    for (const host of spellings) {
      for (const path of paths) {
        const url = `http://${host}:${sandbox.port}${path}`
        const res = await call('POST', '/api/v1/partner/webhooks', { body: { url, events: [] } })
        expectSelfRefusal(res, 'url')
      }
    }
    expect(await endpointsOf(call)).toEqual(before)
  })

  it('is refused by every way of setting one: PATCH, webhook_url, a control-plane partner', async () => {
    const { sandbox, call } = await running()
    const self = `http://localhost:${sandbox.port}/_sandbox/reset`
    const made = await call('POST', '/api/v1/partner/webhooks', {
      body: { url: 'https://hooks.example.test/a', events: [] },
    })
    expect(made.status, made.text).toBe(201)
    const id = made.json.webhook.id
    expectSelfRefusal(
      await call('PATCH', `/api/v1/partner/webhooks/${id}`, { body: { url: self } }),
      'url',
    )
    expect((await call('GET', `/api/v1/partner/webhooks/${id}`)).json.webhook.url).toBe(
      'https://hooks.example.test/a',
    )
    const me = (await call('GET', '/api/v1/partner/me')).json.partner
    expectSelfRefusal(
      await call('PATCH', '/api/v1/partner/me', { body: { webhook_url: self } }),
      'webhook_url',
    )
    expect((await call('GET', '/api/v1/partner/me')).json.partner.webhook_url).toBe(me.webhook_url)
    const partners = (await call('GET', '/_sandbox/partners?limit=500', { creds: null })).json.data
    expectSelfRefusal(
      await call('POST', '/_sandbox/partners', {
        creds: null,
        body: { name: 'Loop', webhook_url: `http://[::1]:${sandbox.port}/api/v1/partner/me` },
      }),
      'webhook_url',
    )
    const after = (await call('GET', '/_sandbox/partners?limit=500', { creds: null })).json.data
    expect(after).toHaveLength(partners.length)
  })

  it('is taken when it is the built-in sink, another port, or another host', async () => {
    const { sandbox, call } = await running()
    for (const url of [
      `http://127.0.0.1:${sandbox.port}/_sandbox/sink/worker-1`,
      `http://localhost:${sandbox.port}/_sandbox/sink/worker_2?from=test`,
      `http://127.0.0.1:${sandbox.port + 1 > 65535 ? 1 : sandbox.port + 1}/_sandbox/reset`,
      `https://hooks.example.test:${sandbox.port}/_sandbox/reset`,
    ]) {
      const res = await call('POST', '/api/v1/partner/webhooks', { body: { url, events: [] } })
      expect(res.status, `${url}: ${res.text}`).toBe(201)
      await call('DELETE', `/api/v1/partner/webhooks/${res.json.webhook.id}`)
    }
    // The sink is no way around: a path out of it is still the sandbox.
    const out = `http://127.0.0.1:${sandbox.port}/_sandbox/sink/x/../../reset`
    expectSelfRefusal(
      await call('POST', '/api/v1/partner/webhooks', { body: { url: out, events: [] } }),
      'url',
    )
  })

  it('is refused against --public-url too, even before the sandbox listens', async () => {
    const { call } = await setup({ publicUrl: 'https://sandbox.partner.example/base' })
    const refused = await call('POST', '/api/v1/partner/webhooks', {
      body: { url: 'https://sandbox.partner.example/base/_sandbox/reset', events: [] },
    })
    expectSelfRefusal(refused, 'url')
    expect(refused.json.error.message).toContain(
      'https://sandbox.partner.example/base/_sandbox/sink/<name>',
    )
    for (const url of [
      'https://sandbox.partner.example/base/_sandbox/sink/mine',
      'https://sandbox.partner.example/elsewhere/hook',
      // In process nothing listens: no port to compare a loopback address with.
      'http://127.0.0.1:4010/_sandbox/reset',
    ]) {
      const res = await call('POST', '/api/v1/partner/webhooks', {
        body: { url, events: [], enabled: false },
      })
      expect(res.status, `${url}: ${res.text}`).toBe(201)
    }
  })
})

type Attempted = { status: string; attempt: { error: string | null; status_code: number | null } }

/** Whether this machine's name resolves to loopback only (the lookup case needs one that does). */
const hostIsLoopback = await resolvesToLoopback(hostname())

describe('a delivery to the sandbox itself', () => {
  /**
   * A sandbox served on a port it learns only afterwards (setBaseUrl): endpoints made before
   * could point anywhere, and each delivery is checked again.
   */
  async function servedLater() {
    const sandbox = await createSandbox({ ...engineOptions(), logLevel: 'silent' })
    const server = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: sandbox.app.fetch, hostname: '127.0.0.1', port: 0 }, () =>
        resolve(s as Server),
      )
    })
    cleanup.push(async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await sandbox.close()
    })
    sandbox.clock.freeze()
    return { sandbox, call: callOf(sandbox), port: (server.address() as AddressInfo).port }
  }

  /** A new partner with endpoints at `urls` (the webhook.test event only). */
  async function partnerWith(call: Call, urls: string[]) {
    const made = await call('POST', '/_sandbox/partners', { creds: null, body: { name: 'Hooks' } })
    expect(made.status, made.text).toBe(201)
    const creds = { key: made.json.api_key, secret: made.json.api_secret }
    const ids: string[] = []
    for (const url of urls) {
      const res = await call('POST', '/api/v1/partner/webhooks', {
        creds,
        body: { url, events: ['webhook.test'] },
      })
      expect(res.status, res.text).toBe(201)
      ids.push(res.json.webhook.id)
    }
    return { creds, ids }
  }

  /** Sends each endpoint's test event, runs what is due, and answers each first attempt. */
  async function deliverTests(call: Call, creds: Creds, ids: string[]) {
    for (const id of ids) {
      const res = await call('POST', `/api/v1/partner/webhooks/${id}/test`, { creds })
      expect(res.status, res.text).toBe(202)
    }
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
    const attempts: Attempted[] = []
    for (const id of ids) {
      const list = await call('GET', `/api/v1/partner/webhooks/${id}/deliveries`, { creds })
      const [delivery] = list.json.data
      attempts.push({ status: delivery.status, attempt: delivery.attempts[0] })
    }
    return attempts
  }

  it('fails as an attempt that was never sent, through every spelling; nothing changes', async () => {
    const { sandbox, call, port } = await servedLater()
    const user = await registerAndLogin(call)
    const targets = ['/_sandbox/reset', '/api/v1/partner/me/rotate-api-key', '/_sandbox/inbox']
    const urls = spellings.flatMap((host) => targets.map((path) => `http://${host}:${port}${path}`))
    const groups: string[][] = []
    for (let i = 0; i < urls.length; i += 15) groups.push(urls.slice(i, i + 15))
    const partners = []
    for (const group of groups) partners.push(await partnerWith(call, group))
    // Now the sandbox learns where it is served.
    sandbox.setBaseUrl(`http://127.0.0.1:${port}`)
    for (const { creds, ids } of partners) {
      for (const { status, attempt } of await deliverTests(call, creds, ids)) {
        expect(status).toBe('failed')
        expect(attempt.status_code).toBeNull()
        expect(attempt.error).toMatch(/^not sent: .* is this sandbox itself/)
        expect(attempt.error).toContain(`http://127.0.0.1:${port}/_sandbox/sink/<name>`)
      }
    }
    // No delivery reached the sandbox: no reset, no rotation, no request journaled.
    const journal = await call('GET', '/_sandbox/requests?path=/_sandbox/reset', { creds: null })
    expect(journal.json.data).toEqual([])
    expect((await call('GET', '/api/v1/partner/users/me', { headers: user.bearer })).status).toBe(
      200,
    )
    expect((await call('GET', '/api/v1/partner/me')).json.partner.api_key).toBe(
      DEFAULT_PARTNER.api_key,
    )
  })

  it('still reaches the built-in sink on the same address and port', async () => {
    const { sandbox, call, port } = await servedLater()
    sandbox.setBaseUrl(`http://127.0.0.1:${port}`)
    const { creds, ids } = await partnerWith(call, [`http://localhost:${port}/_sandbox/sink/mine`])
    const [{ status, attempt }] = (await deliverTests(call, creds, ids)) as [Attempted]
    expect(attempt.error).toBeNull()
    expect(status).toBe('succeeded')
    const sink = await call('GET', '/_sandbox/sink/mine', { creds: null })
    expect(JSON.parse(sink.json.data[0].body).type).toBe('webhook.test')
  })

  it.runIf(hostIsLoopback)(
    'is refused when a name only its lookup shows to be this machine',
    async () => {
      const { sandbox, call } = await running()
      const user = await registerAndLogin(call)
      const url = `http://${hostname()}:${sandbox.port}/_sandbox/reset`
      // Made without a lookup (offline, instant); the delivery resolves it and never connects.
      const { creds, ids } = await partnerWith(call, [url])
      const [{ status, attempt }] = (await deliverTests(call, creds, ids)) as [Attempted]
      expect(status).toBe('failed')
      expect(attempt.error).toMatch(/^not sent: .* resolves to 127\.\d+\.\d+\.\d+, this sandbox/)
      expect((await call('GET', '/api/v1/partner/users/me', { headers: user.bearer })).status).toBe(
        200,
      )
    },
  )
})

describe('partner-sandbox listen --forward-to', () => {
  const listen = async (forwardTo: string, url: string) => {
    let failure: { message: string; code?: number } | undefined
    await runCommand(['listen', '--forward-to', forwardTo, '--url', url], (message, code) => {
      // The first is the refusal; runCommand's own catch reports the throw again.
      failure ??= { message, code }
      throw new Error(message)
    }).catch(() => undefined)
    return failure
  }

  it('refuses to forward into the sandbox it listens to, through any loopback spelling', async () => {
    for (const host of ['localhost', '127.0.0.1', '[::1]', '0.0.0.0']) {
      const failure = await listen(`http://${host}:4010/_sandbox/reset`, 'http://127.0.0.1:4010')
      expect(failure?.code).toBe(2)
      expect(failure?.message).toContain('is this sandbox itself')
      expect(failure?.message).toContain('/_sandbox/sink/<name>')
    }
  })

  it("knows a sandbox elsewhere is not reached through this machine's localhost", () => {
    const far = remoteSelf('http://sandbox.ci.internal:4010')
    expect(selfReason('http://localhost:4010/webhooks', far)).toBeUndefined()
    expect(selfReason('http://sandbox.ci.internal:4010/_sandbox/reset', far)).toContain(
      'is this sandbox itself',
    )
    expect(selfReason('http://localhost:3000/webhooks', remoteSelf('http://127.0.0.1:4010'))).toBe(
      undefined,
    )
  })
})

async function resolvesToLoopback(name: string): Promise<boolean> {
  try {
    const all = await lookup(name, { all: true })
    return all.length > 0 && all.every((a) => a.address.startsWith('127.') || a.address === '::1')
  } catch {
    return false
  }
}
