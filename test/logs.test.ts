import { describe, expect, it } from 'vitest'
import type { SandboxOptions } from '../src/index.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { type Call, receiverForTest, setup } from './helpers.js'

/** A sandbox whose log lines land in `lines`, clock frozen so retries wait for an advance. */
async function logged(options: SandboxOptions = {}) {
  const lines: string[] = []
  const t = await setup(
    { logLevel: 'info', onLog: (line) => lines.push(line), ...options },
    { frozenAt: Date.parse('2026-03-01T12:00:00Z') },
  )
  return { ...t, lines }
}

async function endpointAndEvent(call: Call, url: string) {
  const created = await call('POST', '/api/v1/partner/webhooks', { body: { url, events: [] } })
  expect(created.status, created.text).toBe(201)
  const event = await call('POST', '/_sandbox/events', {
    creds: null,
    body: { partner_id: DEFAULT_PARTNER.id, type: 'card.funded', object: { id: 'card_1' } },
  })
  expect(event.status, event.text).toBe(201)
  return { secret: created.json.secret as string, webhookId: created.json.webhook.id as string }
}

describe('logs', () => {
  it('--log-format json writes one JSON object per line with the request fields', async () => {
    const { call, lines } = await logged({ logFormat: 'json' })
    const res = await call('GET', '/api/v1/partner/me')
    const entries = lines.map((l) => JSON.parse(l))
    const entry = entries.find((e) => e.path === '/api/v1/partner/me')
    expect(entry).toMatchObject({
      level: 'info',
      method: 'GET',
      status: 200,
      partner: DEFAULT_PARTNER.slug,
      request_id: res.headers.get('x-request-id'),
    })
    expect(Date.parse(entry.time)).not.toBeNaN()
    expect(typeof entry.duration_ms).toBe('number')
    expect(lines.join('\n')).not.toContain('\x1b[')
  })

  it('logs every webhook attempt: failures at warn with the next retry, success at info', async () => {
    const { call, lines } = await logged()
    const hook = await receiverForTest(500, 200)
    await endpointAndEvent(call, hook.url)
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
    await call('POST', '/_sandbox/clock/advance', { creds: null, body: { by: '5s' } })
    expect(hook.requests).toHaveLength(2)
    const attempts = lines.filter((l) => l.includes(' webhook card.funded attempt'))
    expect(attempts).toHaveLength(2)
    expect(attempts[0]).toMatch(
      new RegExp(
        `warn {2}webhook card\\.funded attempt 1 of 4 to ${hook.url}: 500 in \\d+ms, next retry 2026-03-01T12:00:05\\.000Z`,
      ),
    )
    expect(attempts[1]).toMatch(
      /info {2}webhook card\.funded attempt 2 of 4 to .*: 200 in \d+ms, succeeded/,
    )
    expect(attempts[1]).toMatch(/delivery=dlv_\w+ event_id=evt_\w+ endpoint=wh_\w+/)
  })

  it('json webhook lines carry attempt, status, duration and next_retry_at as fields', async () => {
    const { call, lines } = await logged({ logFormat: 'json' })
    const hook = await receiverForTest(503)
    await endpointAndEvent(call, hook.url)
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
    const entry = lines.map((l) => JSON.parse(l)).find((e) => e.delivery)
    expect(entry).toMatchObject({
      level: 'warn',
      event: 'card.funded',
      url: hook.url,
      attempt: 1,
      of: 4,
      status: 503,
      next_retry_at: '2026-03-01T12:00:05.000Z',
    })
    expect(entry.endpoint).toMatch(/^wh_/)
  })

  it('debug adds request, response and webhook bodies with every secret redacted', async () => {
    const { call, lines } = await logged({ logLevel: 'debug' })
    const hook = await receiverForTest(200)
    const { secret } = await endpointAndEvent(call, hook.url)
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
    await call('POST', '/api/v1/partner/auth/login', {
      body: { email: 'nobody@example.test', password: 'Hunter2-secret!' },
    })
    const log = lines.join('\n')
    const create = lines.find((l) => l.includes('POST /api/v1/partner/webhooks 201')) as string
    expect(create).toContain('request_body={"url":"http://127.0.0.1')
    expect(create).toContain('"secret":"[redacted]"')
    expect(lines.find((l) => l.includes('attempt 1 of 4'))).toContain('body={"id":"evt_')
    expect(log).toContain('"password":"[redacted]"')
    expect(log).not.toContain(secret)
    expect(log).not.toContain('Hunter2-secret!')
    expect(log).not.toContain(DEFAULT_PARTNER.api_secret)
  })

  it('info lines carry no bodies, and silent writes nothing at all', async () => {
    const info = await logged()
    await info.call('POST', '/api/v1/partner/webhooks', { body: { url: 'http://127.0.0.1:9/x' } })
    expect(info.lines.join('\n')).not.toMatch(/request_body|response_body|whsec_/)
    const silent = await logged({ logLevel: 'silent' })
    const hook = await receiverForTest(500)
    await endpointAndEvent(silent.call, hook.url)
    await silent.call('POST', '/_sandbox/webhooks/flush', { creds: null })
    expect(silent.lines).toEqual([])
  })
})
