import { describe, expect, it } from 'vitest'
import { acme, createPartner, journalOf, newUser, setup } from './helpers.js'

const REGISTER = '/api/v1/partner/auth/register'

async function journalOfAda() {
  const { call } = await setup()
  const verify = async (body: unknown) => {
    const res = await call('POST', '/_sandbox/requests/verify', { creds: null, body })
    if (res.status !== 200) throw new Error(`verify: ${res.status} ${res.text}`)
    return res.json
  }
  const ada = newUser({ first_name: 'Ada' })
  await call('POST', REGISTER, { body: ada, headers: { 'X-Trace': 'trace-1' } })
  await call('GET', '/api/v1/partner/usage?period=day')
  return { call, verify, ada }
}

describe('journal filters by query, headers and a JSON subset of the body', () => {
  it('finds requests by body subset, header (any case) and query, and counts them', async () => {
    const { call, ada } = await journalOfAda()
    const body = JSON.stringify({ email: ada.email, first_name: 'Ada' })
    const byBody = await journalOf(call, { body })
    expect(byBody.map((e) => e.path)).toEqual([REGISTER])
    expect(await journalOf(call, { body: JSON.stringify({ first_name: 'Bob' }) })).toEqual([])
    const byHeader = await journalOf(call, { headers: JSON.stringify({ 'x-TRACE': 'trace-1' }) })
    expect(byHeader.map((e) => e.path)).toEqual([REGISTER])
    const byQuery = await journalOf(call, { query: JSON.stringify({ period: 'day' }) })
    expect(byQuery.map((e) => e.path)).toEqual(['/api/v1/partner/usage'])
    expect(byQuery[0].query).toEqual({ period: 'day' })
    const count = await call(
      'GET',
      `/_sandbox/requests/count?${new URLSearchParams({ method: 'POST', body })}`,
      { creds: null },
    )
    expect(count.json.count).toBe(1)
  })

  it('says which filter is not JSON', async () => {
    const { call } = await journalOfAda()
    const res = await call('GET', '/_sandbox/requests?headers=not-json', { creds: null })
    expect(res.status).toBe(400)
    expect(res.json.error.details[0]).toMatchObject({ field: 'headers', location: 'query' })
    const notStrings = await call(
      'GET',
      `/_sandbox/requests?query=${encodeURIComponent('{"a":1}')}`,
      {
        creds: null,
      },
    )
    expect(notStrings.status).toBe(400)
    expect(notStrings.json.error.details[0].field).toBe('query')
  })

  it('cannot match a redacted secret by its value: the journal never kept it', async () => {
    const { call, ada } = await journalOfAda()
    const byPassword = await journalOf(call, { body: JSON.stringify({ password: ada.password }) })
    expect(byPassword).toEqual([])
    const redacted = await journalOf(call, { body: JSON.stringify({ password: '[redacted]' }) })
    expect(redacted.map((e) => e.path)).toEqual([REGISTER])
  })
})

describe('POST /_sandbox/requests/verify', () => {
  it('matched with a count, and times asks for an exact count', async () => {
    const { verify, ada } = await journalOfAda()
    const found = await verify({ method: 'POST', path: REGISTER, body: { email: ada.email } })
    expect(found).toEqual({ matched: true, count: 1, near_misses: [] })
    expect(await verify({ path: REGISTER, times: 1 })).toMatchObject({ matched: true, count: 1 })
    expect(await verify({ path: REGISTER, times: 2 })).toMatchObject({ matched: false, count: 1 })
    expect(await verify({ path: '/api/v1/partner/cards/*', times: 0 })).toMatchObject({
      matched: true,
      count: 0,
    })
  })

  it('when nothing matched, answers the closest requests and each difference', async () => {
    const { verify, ada } = await journalOfAda()
    const result = await verify({
      method: 'POST',
      path: REGISTER,
      headers: { 'x-trace': 'trace-2' },
      body: { email: 'someone@example.test', first_name: 'Ada' },
    })
    expect(result.matched).toBe(false)
    expect(result.count).toBe(0)
    const [closest, next] = result.near_misses
    expect(closest.request.path).toBe(REGISTER)
    expect(closest.differences).toEqual([
      'headers.x-trace: expected "trace-2", got "trace-1"',
      `body.email: expected "someone@example.test", got ${JSON.stringify(ada.email)}`,
    ])
    // The usage call met fewer criteria: it comes after, with everything it missed.
    expect(next.request.path).toBe('/api/v1/partner/usage')
    expect(next.differences).toContain('method: expected POST, got GET')
    expect(next.differences).toContain(`path: expected ${REGISTER}, got /api/v1/partner/usage`)
    // The journal holds these two API requests only: both are near misses, nothing else is.
    expect(result.near_misses).toHaveLength(2)
  })

  it("never offers the suite's own control-plane calls as near misses of an API request", async () => {
    const { call, verify } = await journalOfAda()
    // Newer than the API calls, and as close by method (GET) as the usage call.
    for (let i = 0; i < 3; i++) await call('GET', '/_sandbox/partners', { creds: null })
    const result = await verify({ method: 'GET', path: '/api/v1/partner/users/me' })
    expect(result.matched).toBe(false)
    const paths = result.near_misses.map((m: { request: { path: string } }) => m.request.path)
    expect(paths[0]).toBe('/api/v1/partner/usage')
    expect(paths.filter((p: string) => p.startsWith('/_sandbox'))).toEqual([])
    // A verification of a control path still gets control calls as its near misses.
    const control = await verify({ method: 'POST', path: '/_sandbox/partners' })
    const near = control.near_misses.map((m: { request: { path: string } }) => m.request.path)
    expect(near).toContain('/_sandbox/partners')
    expect(near.every((p: string) => p.startsWith('/_sandbox/'))).toBe(true)
  })

  it('looks only at the partner it names', async () => {
    const { call, verify } = await journalOfAda()
    const other = await createPartner(call, { name: 'Other' })
    const own = await verify({ partner_id: other.id, path: REGISTER })
    expect(own).toEqual({ matched: false, count: 0, near_misses: [] })
    await call('POST', REGISTER, { creds: other.creds, body: newUser() })
    expect(await verify({ partner_id: other.id, path: REGISTER })).toMatchObject({ count: 1 })
    const acmeId = (await call('GET', '/api/v1/partner/me', { creds: acme })).json.partner.id
    expect(await verify({ partner_id: acmeId, path: REGISTER })).toMatchObject({ count: 1 })
  })

  it('names the bad field of a malformed verification', async () => {
    const { call } = await journalOfAda()
    const res = await call('POST', '/_sandbox/requests/verify', {
      creds: null,
      body: { times: -1, colour: 'red' },
    })
    expect(res.status).toBe(400)
    const fields = res.json.error.details.map((d: { field: string }) => d.field)
    expect(fields).toEqual(expect.arrayContaining(['times']))
  })
})
