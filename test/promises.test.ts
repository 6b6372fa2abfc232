import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DEFAULT_PARTNER, parseOptions } from '../src/index.js'
import {
  type Call,
  FIXTURE_PASSWORD,
  registerAndLogin,
  setup,
  startReceiver,
  tempDirForTest,
} from './helpers.js'

/**
 * Promises the README and docs/ make that nothing else pins down: each of these tests fails when
 * its promise is broken (each was checked by breaking the code).
 */

const MiB = 1024 * 1024
const ALICE = 'jamil.kreiger@example.com'

describe('login codes never reach the data file', () => {
  it('neither the journal nor the compacted file holds a code that was sent', async () => {
    const dir = tempDirForTest('sandbox-codes-')
    const data = join(dir, 'state.json')
    const { sandbox, call } = await setup({ data, seed: 3 })
    const codes: string[] = []
    for (const code of ['482913', '771205']) {
      const res = await call('POST', '/api/v1/partner/auth/login', {
        body: { email: ALICE, password: FIXTURE_PASSWORD },
        headers: { 'x-sandbox-scenario': JSON.stringify({ otp: { code } }) },
      })
      expect(res.status).toBe(200)
      codes.push(code)
    }
    const reset = await call('POST', '/api/v1/partner/auth/forgot-password/request', {
      body: { email: ALICE },
      headers: { 'x-sandbox-scenario': JSON.stringify({ otp: { code: '390417' } }) },
    })
    expect(reset.status).toBe(200)
    codes.push('390417')
    const inbox = await call('GET', '/_sandbox/inbox', { creds: null })
    expect(inbox.json.data.map((m: { code: string }) => m.code).sort()).toEqual([...codes].sort())
    const files = () => readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'))
    const journalled = files().join('\n')
    expect(journalled.length).toBeGreaterThan(0)
    for (const code of codes) expect(journalled).not.toContain(code)
    await sandbox.close() // compacts the journal into the file
    const compacted = files().join('\n')
    for (const code of codes) expect(compacted).not.toContain(code)
  })
})

describe('has_more', () => {
  it('is false on a last page that is exactly full, true only while items remain', async () => {
    const { call } = await setup()
    for (let i = 0; i < 4; i++) {
      const res = await call('POST', '/api/v1/partner/webhooks', {
        body: { url: `http://127.0.0.1:9/hook-${i}`, events: [] },
      })
      expect(res.status).toBe(201)
    }
    const list = (query: string) => call('GET', `/api/v1/partner/webhooks?${query}`)
    const all = await list('limit=100')
    const total = all.json.data.length as number
    expect(total).toBeGreaterThanOrEqual(4)
    expect(all.json.has_more).toBe(false)
    const exact = await list(`limit=${total}`)
    expect(exact.json.data).toHaveLength(total)
    expect(exact.json.has_more).toBe(false)
    const short = await list(`limit=${total - 1}`)
    expect(short.json.has_more).toBe(true)
    // The second page of two exactly full pages.
    const half = await list('limit=2')
    const last = all.json.data[total - 3].id
    const page = await list(`limit=2&starting_after=${last}`)
    expect(half.json.has_more).toBe(true)
    expect(page.json.data).toHaveLength(2)
    expect(page.json.has_more).toBe(false)
  })
})

describe('defaults', () => {
  it('the JSON body limit is 1 MiB: exactly 1 MiB is read, one byte more is a 413', async () => {
    expect(parseOptions({}).bodyLimit).toBe(MiB)
    const { call } = await setup()
    const body = (size: number) => {
      const head = '{"display_name":"'
      const tail = '"}'
      return `${head}${'x'.repeat(size - head.length - tail.length)}${tail}`
    }
    for (const path of ['/api/v1/partner/me', '/_sandbox/partners']) {
      const method = path.startsWith('/api') ? 'PATCH' : 'POST'
      const headers = { 'content-type': 'application/json' }
      const exact = await call(method, path, { raw: body(MiB), headers })
      expect(exact.status, path).not.toBe(413)
      const over = await call(method, path, { raw: body(MiB + 1), headers })
      expect(over.status, path).toBe(413)
      expect(over.json.error.code).toBe('payload_too_large')
    }
  })

  describe('a webhook delivery', () => {
    afterEach(() => {
      vi.useRealTimers()
    })

    it('times out after 5 s: still waiting at 4.999 s, failed at 5 s', async () => {
      const { sandbox, call } = await setup()
      const receiver = await startReceiver()
      receiver.otherwise = 'hang'
      const created = await call('POST', '/api/v1/partner/webhooks', {
        body: { url: receiver.url, events: ['card.funded'] },
      })
      const id = created.json.webhook.id as string
      // On PostgreSQL, every connection of the pool (3) opens now: the driver opens one on a
      // 0 ms timer, which the fake timers below would never run.
      const state = sandbox.services.state
      await Promise.all(Array.from({ length: 20 }, () => state.get('webhooks', id)))
      // Only the timers: the socket to the receiver is real.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
      const tick = () => new Promise((resolve) => setImmediate(resolve))
      const triggered = await call('POST', '/_sandbox/events', {
        creds: null,
        body: { partner_id: DEFAULT_PARTNER.id, type: 'card.funded', object: { id: 'card_1' } },
      })
      expect(triggered.status).toBe(201)
      while (receiver.requests.length === 0) await tick()
      const attempts = async () => {
        const res = await call('GET', `/api/v1/partner/webhooks/${id}/deliveries`)
        return res.json.data[0].attempts as { error: string | null }[]
      }
      vi.advanceTimersByTime(4_999)
      for (let i = 0; i < 20; i++) await tick()
      expect(await attempts()).toEqual([])
      vi.advanceTimersByTime(1)
      let seen = await attempts()
      for (let i = 0; i < 200 && seen.length === 0; i++) {
        await tick()
        seen = await attempts()
      }
      expect(seen[0]?.error).toBe('timed out after 5000 ms')
      vi.useRealTimers()
      await receiver.close()
    })
  })
})

describe('a reset_token lives 15 minutes of sandbox time', () => {
  async function tokenAt(offsetMs: number) {
    const { call, sandbox } = await setup()
    await call('POST', '/_sandbox/clock/freeze', { creds: null, body: {} })
    await call('POST', '/api/v1/partner/auth/forgot-password/request', { body: { email: ALICE } })
    const inbox = await call('GET', `/_sandbox/inbox?kind=password_reset_code&email=${ALICE}`, {
      creds: null,
    })
    const verify = await call('POST', '/api/v1/partner/auth/forgot-password/verify', {
      body: { email: ALICE, code: inbox.json.data[0].code },
    })
    expect(verify.status).toBe(200)
    await sandbox.clock.advance(offsetMs)
    return { call, token: verify.json.reset_token as string }
  }
  const reset = (call: Call, token: string) =>
    call('POST', '/api/v1/partner/auth/forgot-password/reset', {
      body: { email: ALICE, reset_token: token, new_password: 'Brand-New-Passw0rd?' },
    })

  it('works at 14:59', async () => {
    const { call, token } = await tokenAt(14 * 60_000 + 59_000)
    expect((await reset(call, token)).status).toBe(200)
  })

  it.each([15 * 60_000, 15 * 60_000 + 1_000])('is refused at %i ms', async (offset) => {
    const { call, token } = await tokenAt(offset)
    const res = await reset(call, token)
    expect(res.status).toBe(400)
    expect(res.json.error.details.map((d: { field: string }) => d.field)).toEqual(['reset_token'])
  })
})

describe('X-Request-Id', () => {
  it('is on every kind of response: redirect, page, document, error, hosted page, API', async () => {
    const { call } = await setup()
    const { bearer } = await registerAndLogin(call)
    const cases: [string, string, Record<string, unknown>][] = [
      ['GET', '/', { creds: null }],
      ['GET', '/docs', { creds: null }],
      ['GET', '/openapi.json', { creds: null }],
      ['GET', '/no/such/route', { creds: null }],
      ['HEAD', '/', { creds: null }],
      ['GET', '/api/v1/partner/me', {}],
      ['GET', '/api/v1/partner/me', { creds: null }],
      ['GET', '/api/v1/partner/users/me', { headers: bearer }],
      ['POST', '/api/v1/partner/me', { raw: '{', headers: { 'content-type': 'application/json' } }],
      ['GET', '/embed/onboarding?onboarding_id=x&access_token=y', { creds: null }],
      ['GET', '/api/v1/external-bank-account-connect/connect?token=x.y', { creds: null }],
      ['GET', '/_sandbox/health', { creds: null }],
      ['GET', '/files/nothing.png', { creds: null }],
    ]
    for (const [method, path, opts] of cases) {
      const res = await call(method, path, opts)
      expect(res.headers.get('x-request-id'), `${method} ${path} (${res.status})`).toMatch(/^req_/)
    }
    const redirect = await call('GET', '/', { creds: null })
    expect(redirect.status).toBe(302)
    expect(redirect.headers.get('location')).toBe('/docs')
  })
})
