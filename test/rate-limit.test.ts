import { describe, expect, it } from 'vitest'
import { northwind, setup } from './helpers.js'

async function limitedSandbox(limit: number, options = {}) {
  const t = await setup(options)
  const id = (await t.call('GET', '/api/v1/partner/me')).json.partner.id
  await t.call('PATCH', `/_sandbox/partners/${id}`, { creds: null, body: { rate_limit: limit } })
  t.sandbox.clock.freeze(Date.parse('2026-03-01T10:00:10Z'))
  return t
}

describe('rate limit per partner', () => {
  it('counts down in the headers, then answers 429 with Retry-After', async () => {
    const { call } = await limitedSandbox(3)
    const remaining: string[] = []
    for (let i = 0; i < 3; i++) {
      const res = await call('GET', '/api/v1/partner/me')
      expect(res.status).toBe(200)
      expect(res.headers.get('x-ratelimit-limit')).toBe('3')
      expect(res.headers.get('x-ratelimit-reset')).toBe(
        String(Date.parse('2026-03-01T10:01:00Z') / 1000),
      )
      remaining.push(res.headers.get('x-ratelimit-remaining') as string)
    }
    expect(remaining).toEqual(['2', '1', '0'])
    const over = await call('GET', '/api/v1/partner/me')
    expect(over.status).toBe(429)
    expect(over.json.error.code).toBe('rate_limited')
    expect(over.headers.get('retry-after')).toBe('50')
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0')
  })

  it('refusals by the route carry the headers too: a 404 and a 400', async () => {
    const { call } = await limitedSandbox(5)
    const missing = await call('GET', '/api/v1/partner/webhooks/wh_nope')
    expect(missing.status, missing.text).toBe(404)
    expect(missing.headers.get('x-ratelimit-remaining')).toBe('4')
    expect(missing.headers.get('x-request-id')).toBe(missing.json.requestId)
    const invalid = await call('PATCH', '/api/v1/partner/me', { body: { display_name: 7 } })
    expect(invalid.status, invalid.text).toBe(400)
    expect(invalid.headers.get('x-ratelimit-remaining')).toBe('3')
    expect(invalid.headers.get('x-ratelimit-limit')).toBe('5')
  })

  it('a 429 changes no state', async () => {
    const { call } = await limitedSandbox(1)
    await call('GET', '/api/v1/partner/me')
    const res = await call('PATCH', '/api/v1/partner/me', { body: { display_name: 'Over limit' } })
    expect(res.status).toBe(429)
    const list = await call('GET', '/_sandbox/partners', { creds: null })
    expect(
      list.json.data.find((p: { slug: string }) => p.slug === 'acme-fintech').display_name,
    ).toBe('Acme Fintech')
  })

  it('requests sent at once share the budget: each gets its own count, the rest 429', async () => {
    const { call } = await limitedSandbox(20)
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => call('GET', '/api/v1/partner/me')),
    )
    const ok = answers.filter((res) => res.status === 200)
    expect(ok).toHaveLength(20)
    expect(answers.filter((res) => res.status === 429)).toHaveLength(10)
    const remaining = ok.map((res) => Number(res.headers.get('x-ratelimit-remaining')))
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i))
    expect((await call('GET', '/api/v1/partner/me')).status).toBe(429)
  })

  it("one partner's burst never blocks another", async () => {
    const { call } = await limitedSandbox(2)
    for (let i = 0; i < 5; i++) await call('GET', '/api/v1/partner/me')
    expect((await call('GET', '/api/v1/partner/me')).status).toBe(429)
    const other = await call('GET', '/api/v1/partner/me', { creds: northwind })
    expect(other.status).toBe(200)
    expect(other.headers.get('x-ratelimit-remaining')).toBe('599')
  })

  it('a new window on the sandbox clock restores the budget', async () => {
    const { sandbox, call } = await limitedSandbox(1)
    await call('GET', '/api/v1/partner/me')
    expect((await call('GET', '/api/v1/partner/me')).status).toBe(429)
    await sandbox.clock.advance(50_000)
    expect((await call('GET', '/api/v1/partner/me')).status).toBe(200)
  })

  it('--rate-limit overrides every partner, and off removes limiting', async () => {
    const fixed = await limitedSandbox(1000, { rateLimit: 2 })
    await fixed.call('GET', '/api/v1/partner/me')
    await fixed.call('GET', '/api/v1/partner/me')
    expect((await fixed.call('GET', '/api/v1/partner/me')).status).toBe(429)

    const off = await limitedSandbox(1, { rateLimit: 'off' })
    for (let i = 0; i < 5; i++) {
      const res = await off.call('GET', '/api/v1/partner/me')
      expect(res.status).toBe(200)
      expect(res.headers.get('x-ratelimit-limit')).toBeNull()
    }
  })

  it('a partner scenario can set the limit', async () => {
    const { call } = await setup({
      scenario: { name: 'tight', description: 'two a minute', rate_limit: { per_minute: 2 } },
    })
    await call('GET', '/api/v1/partner/me')
    await call('GET', '/api/v1/partner/me')
    const res = await call('GET', '/api/v1/partner/me')
    expect(res.status).toBe(429)
    expect(res.json.error.message).toContain('2 requests per minute')
  })
})
