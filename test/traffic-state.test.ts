import { describe, expect, it } from 'vitest'
import { journalOf, setup } from './helpers.js'

// The request journal is state behind the seam (an ephemeral collection), and so are rules: a
// counted rule is met exactly as often as it says under concurrent requests, and a reset or
// restore, which replace the data, leave the sandbox's traffic as it was.

const ME = '/api/v1/partner/me'

describe('rules and the journal as state', () => {
  it('a rule with times: 3 answers exactly 3 of 30 requests sent at once', async () => {
    const { call } = await setup()
    const added = await call('POST', '/_sandbox/rules', {
      creds: null,
      body: { match: { method: 'GET', path: ME }, respond: { status: 503 }, times: 3 },
    })
    expect(added.status, added.text).toBe(201)
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async () => (await call('GET', ME)).status),
    )
    expect(statuses.filter((s) => s === 503)).toHaveLength(3)
    expect(statuses.filter((s) => s === 200)).toHaveLength(27)
    const listed = await call('GET', '/_sandbox/rules', { creds: null })
    expect(listed.json.data).toEqual([])
    expect(await journalOf(call, { ruled: 'true', limit: '100' })).toHaveLength(3)
  })

  it("a scenario rule with times counts each partner's requests, also when sent at once", async () => {
    const { call } = await setup({
      scenario: {
        name: 'flaky-me',
        rules: [{ match: { method: 'GET', path: ME }, respond: { status: 500 }, times: 2 }],
      },
    })
    const statuses = await Promise.all(
      Array.from({ length: 12 }, async () => (await call('GET', ME)).status),
    )
    expect(statuses.filter((s) => s === 500)).toHaveLength(2)
    // Cleared with the partner's rules: the next two are met again.
    const me = (await call('GET', ME)).json.partner.id
    const cleared = await call('DELETE', `/_sandbox/partners/${me}/rules`, { creds: null })
    expect(cleared.status).toBe(200)
    expect((await call('GET', ME)).status).toBe(500)
    expect((await call('GET', ME)).status).toBe(500)
    expect((await call('GET', ME)).status).toBe(200)
  })

  it('a reset and a restore keep the journal; the restore brings back the rules it held', async () => {
    const { call } = await setup()
    const marked = await call('GET', ME, { headers: { 'x-request-id': 'before-reset' } })
    expect(marked.status).toBe(200)
    await call('POST', '/_sandbox/rules', {
      creds: null,
      body: { match: { method: 'GET', path: '/api/v1/partner/usage' }, latency_ms: 1 },
    })
    const snapshot = await call('GET', '/_sandbox/snapshot', { creds: null })
    expect(snapshot.status).toBe(200)
    expect((await call('POST', '/_sandbox/reset', { creds: null })).status).toBe(200)
    expect(
      (await call('POST', '/_sandbox/snapshot', { creds: null, body: snapshot.json })).status,
    ).toBe(200)
    const entry = await call('GET', '/_sandbox/requests/before-reset', { creds: null })
    expect(entry.status).toBe(200)
    // With its headers and body still kept.
    expect(entry.json.response.headers['x-request-id']).toBe('before-reset')
    expect(entry.json.response.body).toEqual(marked.json)
    const rules = await call('GET', '/_sandbox/rules', { creds: null })
    expect(rules.json.data).toHaveLength(1)
  })

  it('the same X-Request-Id twice is journaled twice; the newest is the one found by id', async () => {
    const { call } = await setup()
    await call('GET', ME, { headers: { 'x-request-id': 'twice' } })
    await call('GET', '/api/v1/partner/usage', { headers: { 'x-request-id': 'twice' } })
    const entries = await journalOf(call, { limit: '10' })
    expect(entries.filter((e) => e.id === 'twice').map((e) => e.path)).toEqual([
      '/api/v1/partner/usage',
      ME,
    ])
    const found = await call('GET', '/_sandbox/requests/twice', { creds: null })
    expect(found.json.path).toBe('/api/v1/partner/usage')
  })
})
