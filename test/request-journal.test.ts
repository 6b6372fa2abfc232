import { describe, expect, it } from 'vitest'
import { RequestJournal } from '../src/services/journal.js'
import type { State } from '../src/state/seam.js'
import {
  acme,
  createPartner,
  httpCall,
  journalOf,
  onboardedUser,
  registerAndLogin,
  servedForTest,
  setup,
  testEngine,
} from './helpers.js'
import { journalEntry, standaloneJournal } from './journal-entry.js'

const API = '/api/v1/partner'

describe('the request journal: headers, bodies and redaction', () => {
  it('keeps request and response headers and bodies, secrets redacted', async () => {
    const { call } = await setup()
    const u = await registerAndLogin(call)
    const entries = await journalOf(call, { path: `${API}/auth/*` })
    const verify = entries.find((e) => e.path.endsWith('/verify-otp'))
    expect(verify.request.body).toEqual({ email: u.user.email, code: '[redacted]' })
    expect(verify.request.headers['x-partner-key']).toBe(acme.key)
    expect(verify.request.headers['x-partner-secret']).toBe('[redacted]')
    expect(verify.response.body.sessionToken).toBe('[redacted]')
    expect(verify.response.body.user.id).toBe(u.userId)
    expect(verify.response.headers['x-request-id']).toBe(verify.id)
    const register = entries.find((e) => e.path.endsWith('/register'))
    expect(register.request.body).toMatchObject({
      email: u.user.email,
      password: '[redacted]',
      ssn: '[redacted]',
      first_name: 'Robin',
    })
    expect(register.response.body.userId).toBe(u.userId)
    const text = JSON.stringify(await journalOf(call, { limit: '1000' }))
    for (const secret of [acme.secret, u.token, u.user.password, u.user.ssn]) {
      expect(text).not.toContain(secret)
    }
  })

  it('redacts the onboarding access token and the token in the embed URL', async () => {
    const { call } = await setup()
    const u = await onboardedUser(call)
    const start = (await journalOf(call, { method: 'POST', path: `${API}/cards/onboarding` }))[0]
    expect(start.response.body.data.accessToken).toBe('[redacted]')
    expect(start.response.body.data.onboardingEmbedUrl).toContain('token=[redacted]')
    expect(start.request.headers.authorization).toBe('[redacted]')
    expect(JSON.stringify(start)).not.toContain(u.token)
  })

  it('journals over a real socket too, and keeps error envelopes readable', async () => {
    const sandbox = await servedForTest()
    const call = httpCall(sandbox.url)
    const bad = await call('POST', `${API}/auth/login`, { body: { email: 'nope' } })
    expect(bad.status).toBe(400)
    const [entry] = await journalOf(call, { status: '400' })
    expect(entry.request.body).toEqual({ email: 'nope' })
    expect(entry.response.body).toMatchObject({
      success: false,
      error: { code: 'validation_error' },
      requestId: entry.id,
    })
    expect(entry.response.headers['content-type']).toContain('application/json')
  })

  it('shows a served answer as the client got it: its headers, rate limit included, and body', async () => {
    const sandbox = await servedForTest()
    const res = await fetch(`${sandbox.url}${API}/me`, {
      headers: { 'x-partner-key': acme.key, 'x-partner-secret': acme.secret },
    })
    expect(res.status).toBe(200)
    const body = await res.json()
    const id = res.headers.get('x-request-id')
    const [entry] = await journalOf(httpCall(sandbox.url), { path: `${API}/me` })
    expect(entry.id).toBe(id)
    expect(entry.response.body).toEqual(body)
    const names = Object.keys(entry.response.headers)
    // Named as a Headers object names them: lower case, in order.
    expect(names).toEqual([...names].sort())
    expect(names).toEqual(
      expect.arrayContaining([
        'content-type',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'x-request-id',
      ]),
    )
    for (const name of names) expect(entry.response.headers[name]).toBe(res.headers.get(name))
  })

  it('journals served answers sent at once, each once, with the body its client got', async () => {
    const sandbox = await servedForTest()
    const headers = { 'x-partner-key': acme.key, 'x-partner-secret': acme.secret }
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, n) => {
        const res = await fetch(`${sandbox.url}${API}/me?n=${n}`, { headers })
        return { n: String(n), id: res.headers.get('x-request-id'), body: await res.json() }
      }),
    )
    // An HTML page too, whole for its client and in the journal.
    const page = await fetch(`${sandbox.url}/docs`)
    const html = await page.text()
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(html).toContain(acme.secret)
    expect(html.trim().endsWith('</html>')).toBe(true)
    const call = httpCall(sandbox.url)
    const entries = await journalOf(call, { path: `${API}/me`, limit: '100' })
    expect(entries).toHaveLength(40)
    for (const answer of answers) {
      const entry = entries.find((e) => e.id === answer.id)
      expect(entry?.query.n).toBe(answer.n)
      expect(entry?.response.body).toEqual(answer.body)
    }
    const [docs] = await journalOf(call, { path: '/docs' })
    expect(docs.status).toBe(200)
    expect(docs.response.headers['content-type']).toBe(page.headers.get('content-type'))
    // The page the client got, as the journal shows it: the partner secret in it redacted.
    expect(docs.response.body).toBe(html.replace(acme.secret, 'sk_test_[redacted]'))
  })

  it('counts matching requests: "exactly one deposit was created"', async () => {
    const { call } = await setup()
    const p = await createPartner(call, { name: 'Counter' })
    for (let n = 0; n < 3; n++) await call('GET', `${API}/me`, { creds: p.creds })
    await call('GET', `${API}/usage`, { creds: p.creds })
    await call('GET', `${API}/me`)
    const count = async (q: Record<string, string>) => {
      const res = await call('GET', `/_sandbox/requests/count?${new URLSearchParams(q)}`, {
        creds: null,
      })
      expect(res.status).toBe(200)
      return res.json.count
    }
    expect(await count({ partner_id: p.id, path: `${API}/me` })).toBe(3)
    expect(await count({ path: `${API}/me` })).toBe(4)
    expect(await count({ partner_id: p.id, path: `${API}/*` })).toBe(4)
    expect(await count({ partner_id: p.id, method: 'POST' })).toBe(0)
    expect(await count({ status: '200', path: `${API}/usage` })).toBe(1)
    const bad = await call('GET', '/_sandbox/requests/count?method=FETCH', { creds: null })
    expect(bad.status).toBe(400)
    expect(bad.json.error.details[0].field).toBe('method')
  })

  it('answers has_more when more entries matched than the limit', async () => {
    const { call } = await setup()
    for (let n = 0; n < 3; n++) await call('GET', `${API}/me`)
    const res = await call('GET', `/_sandbox/requests?path=${API}/me&limit=2`, { creds: null })
    expect(res.json.data).toHaveLength(2)
    expect(res.json.has_more).toBe(true)
    const all = await call('GET', `/_sandbox/requests?path=${API}/me&limit=3`, { creds: null })
    expect(all.json.has_more).toBe(false)
  })

  it('is a ring: the oldest entries go, and only the newest keep their bodies', async () => {
    const journal = await standaloneJournal(4, 2, testEngine)
    const entry = (n: number) => ({
      id: `req_${n}`,
      at: 0,
      method: 'GET',
      path: `/p/${n}`,
      status: 200,
      duration_ms: 1,
      partner_id: null,
      scenario: null,
      capture: {
        requestHeaders: new Headers({ 'x-n': String(n) }),
        requestBody: {},
        response: new Response(JSON.stringify({ n }), {
          headers: { 'content-type': 'application/json' },
        }),
      },
    })
    for (let n = 1; n <= 6; n++) journal.add(entry(n))
    const { data } = await journal.list({ limit: 10 })
    expect(data.map((e) => e.id)).toEqual(['req_6', 'req_5', 'req_4', 'req_3'])
    expect(data.map((e) => e.response?.body ?? null)).toEqual([{ n: 6 }, { n: 5 }, null, null])
    expect(await journal.count({})).toBe(4)
  })

  it('hands every write the engine refused to onError, and the request goes on', async () => {
    const refusals: string[] = []
    let n = 0
    const gone = {
      // A database gone (an engine without journal rings, whose journal is rows): each write
      // is refused with an error of its own. In memory the rings refuse nothing.
      increment: () => Promise.resolve(1),
      putEphemerals: () => Promise.reject(new Error(`write ${++n} refused`)),
    } as unknown as State
    const journal = new RequestJournal({
      state: gone,
      onError: (error) => refusals.push((error as Error).message),
    })
    await journal.add(journalEntry(1))
    await journal.add(journalEntry(2))
    expect(refusals).toEqual(['write 1 refused', 'write 2 refused'])
  })
})

describe('Prefer: code= forces an error for one request', () => {
  it('answers 503 in our envelope with Retry-After, then the next request is normal', async () => {
    const { call } = await setup()
    const forced = await call('GET', `${API}/me`, { headers: { prefer: 'code=503' } })
    expect(forced.status).toBe(503)
    expect(forced.headers.get('retry-after')).toBe('1')
    expect(forced.json).toMatchObject({ success: false, error: { code: expect.any(String) } })
    expect(forced.json.error.message).toContain('Prefer: code=503')
    expect((await call('GET', `${API}/me`)).status).toBe(200)
    const [entry] = await journalOf(call, { status: '503' })
    expect(entry.rules).toEqual([
      { id: 'Prefer: code=503', effect: 'respond', status: 503, off_contract: false },
    ])
  })

  it.each([429, 500])('forces %i, among other preferences', async (status) => {
    const { call } = await setup()
    const res = await call('POST', `${API}/auth/login`, {
      headers: { prefer: `return=minimal, code=${status}` },
      body: { email: 'a@example.com', password: 'x' },
    })
    expect(res.status).toBe(status)
    expect(res.json.success).toBe(false)
  })

  it('refuses an unsupported code with a 400 naming the header, and ignores other prefs', async () => {
    const { call } = await setup()
    const bad = await call('GET', `${API}/me`, { headers: { prefer: 'code=404' } })
    expect(bad.status).toBe(400)
    expect(bad.json.error.message).toMatch(/^Prefer: code=404 is not supported/)
    expect(bad.json.error.details).toEqual([
      expect.objectContaining({ field: 'Prefer', location: 'header' }),
    ])
    expect((await call('GET', `${API}/me`, { headers: { prefer: 'return=minimal' } })).status).toBe(
      200,
    )
  })

  it('still needs valid credentials: a forced error is no way around the 401', async () => {
    const { call } = await setup()
    const res = await call('GET', `${API}/me`, { creds: null, headers: { prefer: 'code=500' } })
    expect(res.status).toBe(401)
  })
})
