import { describe, expect, it } from 'vitest'
import { serverErrors } from '../src/errors.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { type Call, journalOf, offeredBankAccounts, onboardedUser, setup } from './helpers.js'

/**
 * The public bank-connect page (spec section 4: needs neither credentials nor a session).
 * Its failures are HTML pages with the status a browser, a link checker or a test expects:
 * 400 without a token, 404 for one the sandbox never issued, 410 once used or expired.
 * Never a 401: there is no credential to get wrong.
 */

const CONNECT = '/api/v1/external-bank-account-connect'
const PAGE = `${CONNECT}/connect`
/** Declared on every operation (src/errors.ts). */
const SERVER_ERRORS = serverErrors.map((e) => String(e.status))

async function connecting() {
  const { call } = await setup()
  const user = await onboardedUser(call)
  const issue = async () => {
    const res = await call('POST', `${CONNECT}/token`, { headers: user.bearer })
    expect(res.status, res.text).toBe(201)
    return res.json.data.connect_token as string
  }
  const open = (query: string) => call('GET', `${PAGE}${query}`, { creds: null })
  return { call, user, issue, open }
}

/** An error page: HTML, not cached, its title and message shown, no JSON envelope. */
function expectErrorPage(
  res: Awaited<ReturnType<Call>>,
  status: number,
  title: string,
  message: string,
) {
  expect(res.status, res.text).toBe(status)
  expect(res.headers.get('content-type')).toContain('text/html')
  expect(res.headers.get('cache-control')).toBe('no-store')
  expect(res.text).toContain(`data-testid="embed-error-title">${title}</h1>`)
  expect(res.text).toContain(message)
  expect(res.text).not.toContain('data-testid="bank-connect"')
}

describe('the public bank-connect page', () => {
  it('serves the page for a fresh token with no credentials at all', async () => {
    const { issue, open } = await connecting()
    const res = await open(`?token=${encodeURIComponent(await issue())}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(res.text).toContain('data-testid="bank-connect"')
  })

  it('names the partner, and is journaled under it with the token redacted', async () => {
    const { call, issue, open } = await connecting()
    const token = await issue()
    const res = await open(`?token=${encodeURIComponent(token)}`)
    expect(res.text).toContain('<title>Acme Fintech · Connect your bank</title>')
    expect(res.text).toContain('data-testid="partner-name">Acme Fintech</strong>')
    const [entry] = await journalOf(call, { path: PAGE })
    expect(entry.partner_id).toBe(DEFAULT_PARTNER.id)
    expect(entry.status).toBe(200)
    // The page's HTML carries the token for its script: the journal never shows it.
    const secret = token.split('.')[1] as string
    expect(JSON.stringify(entry)).not.toContain(secret)
    expect(JSON.stringify(entry.response.body)).toContain('bctok_[redacted]')
  })

  it('a missing or empty token is a 400 page', async () => {
    const { open } = await connecting()
    for (const query of ['', '?token=', '?other=1']) {
      expectErrorPage(await open(query), 400, 'Link incomplete', 'has no token')
    }
  })

  it('a token the sandbox never issued, or with a wrong secret, is a 404 page', async () => {
    const { issue, open } = await connecting()
    const [id] = (await issue()).split('.')
    for (const token of [
      `bct_madeup.${'x'.repeat(40)}`,
      'nonsense',
      `${id}.${'y'.repeat(40)}`,
      `${id}.`,
      '__proto__.x',
      'constructor.x',
    ]) {
      expectErrorPage(
        await open(`?token=${encodeURIComponent(token)}`),
        404,
        'Link not valid',
        'not valid',
      )
    }
  })

  it('a used token and an expired one are 410 pages; the enrollment still answers 401', async () => {
    const { call, issue, open } = await connecting()
    const token = await issue()
    const page = await open(`?token=${encodeURIComponent(token)}`)
    const [, accountId, institutionId] =
      /data-account="([^"]+)" data-institution-id="([^"]+)"/.exec(page.text) ?? []
    const body = { token, account_id: accountId, institution_id: institutionId }
    const enrolled = await call('POST', `${CONNECT}/enrollment/public`, { creds: null, body })
    expect(enrolled.status, enrolled.text).toBe(201)
    expectErrorPage(
      await open(`?token=${encodeURIComponent(token)}`),
      410,
      'Link already used',
      'already used',
    )
    const again = await call('POST', `${CONNECT}/enrollment/public`, { creds: null, body })
    expect(again.status).toBe(401)
    for (const bogus of ['__proto__.x', 'constructor.y']) {
      const res = await call('POST', `${CONNECT}/enrollment/public`, {
        creds: null,
        body: { ...body, token: bogus },
      })
      expect(res.status, res.text).toBe(401)
    }

    const late = await issue()
    const advanced = await call('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { by: '16m' },
    })
    expect(advanced.status, advanced.text).toBe(200)
    expectErrorPage(
      await open(`?token=${encodeURIComponent(late)}`),
      410,
      'Link expired',
      'expired',
    )
  })

  it('is in the OpenAPI document: public, its token parameter, an HTML page per status', async () => {
    const { call } = await connecting()
    const doc = (await call('GET', '/openapi.json', { creds: null })).json
    const op = doc.paths[PAGE].get
    expect(op.security).toEqual([])
    expect(op.operationId).toBe('openBankConnectPage')
    expect(op.parameters).toContainEqual(
      expect.objectContaining({ name: 'token', in: 'query', required: true }),
    )
    expect(Object.keys(op.responses).sort()).toEqual(
      ['200', '400', '403', '404', '410'].concat(SERVER_ERRORS),
    )
    for (const [status, response] of Object.entries(op.responses) as [
      string,
      { content: object },
    ][]) {
      // A server error is the API's JSON envelope, as on every operation.
      const type = SERVER_ERRORS.includes(status) ? 'application/json' : 'text/html'
      expect(Object.keys(response.content)).toEqual([type])
    }
  })
})

describe('the accounts a bank offers', () => {
  it('are named after the user who connects, on the page and once connected', async () => {
    const { call } = await setup()
    const dana = await onboardedUser(call, { first_name: 'Dana', last_name: 'Tester' })
    const issued = await call('POST', `${CONNECT}/token`, { headers: dana.bearer })
    expect(issued.status, issued.text).toBe(201)
    const token = issued.json.data.connect_token as string
    const page = await call('GET', `${PAGE}?token=${encodeURIComponent(token)}`, { creds: null })
    // Each account's label as the page shows it: "Dana's Everyday Checking", …
    const names = [...page.text.matchAll(/name="account" value="[^"]+"> ([^<]+?) <small>/g)].map(
      (m) => (m[1] as string).replaceAll('&#39;', "'"),
    )
    expect(names.length).toBe(8)
    for (const name of names)
      expect(name).toMatch(/^Dana's [A-Z][a-z]+( Yield)? (Checking|Savings)$/)

    const [offered] = offeredBankAccounts(page.text)
    const enrolled = await call('POST', `${CONNECT}/enrollment/public`, {
      creds: null,
      body: { token, ...offered },
    })
    expect(enrolled.status, enrolled.text).toBe(201)
    expect(enrolled.json.data.account_name).toBe(names[0])
    const listed = await call('GET', `${CONNECT}/accounts`, { headers: dana.bearer })
    expect(listed.json.data.data.map((a: { account_name: string }) => a.account_name)).toEqual([
      names[0],
    ])
  })
})
