/**
 * The hosted onboarding result reaches the partner outside an iframe too (Chromium, found by
 * test/browser.ts): in a popup the page posts it to `window.opener` on the partner's allowed
 * origins only; in a plain tab the Continue button takes the user to `redirect_uri` with
 * everything the completion call needs (`result`, `data`, `agreement_accepted`). The iframe
 * and WebView containers are covered by onboarding-browser.test.ts.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { describeWithBrowser, launchBrowser } from './browser.js'
import { type Call, httpCall, onboardingApplicant, registerAndLogin } from './helpers.js'

const TIMEOUT = 60_000
const UI_TIMEOUT = 10_000
const ONBOARDING = '/api/v1/partner/cards/onboarding'

let browser: Browser | undefined
const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close().catch(() => {})
})

/**
 * A partner web app on 127.0.0.1: `/opener?url=` has a button that opens `url` in a popup
 * and keeps each `message` event in `window.messages`; `/done` is a redirect target that
 * records the query it was reached with.
 */
async function startPartnerApp() {
  const landings: URLSearchParams[] = []
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    res.setHeader('cache-control', 'no-store')
    if (url.pathname === '/done') {
      landings.push(url.searchParams)
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1 id="done">Welcome back</h1>')
      return
    }
    if (url.pathname !== '/opener') return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>
<title>Acme wallet</title>
<script>
  window.messages = [];
  window.addEventListener('message', function (e) { window.messages.push({ origin: e.origin, data: e.data }); });
  var target = ${JSON.stringify(url.searchParams.get('url') ?? '')};
</script>
<button id="open" onclick="window.open(target, 'onboarding', 'width=420,height=800')">Get your card</button>`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  return { origin, landings }
}

async function setup(allow: boolean) {
  if (!browser) throw new Error('The browser did not start (see beforeAll).')
  const sandbox: RunningSandbox = await startSandbox({ port: 0, logLevel: 'silent' })
  cleanup.push(() => sandbox.close())
  const call = httpCall(sandbox.url)
  const app = await startPartnerApp()
  // Not allowed: one exact origin only (the fixtures' http://127.0.0.1:* would allow the app).
  const patched = await call('PATCH', '/api/v1/partner/me', {
    body: {
      allowed_origins: allow ? ['http://localhost:3000', app.origin] : ['http://localhost:3000'],
    },
  })
  expect(patched.status, patched.text).toBe(200)
  const context = await browser.newContext()
  cleanup.push(() => context.close())
  const user = await registerAndLogin(call)
  return { sandbox, call, app, context, user }
}

/** Walks identity, underwriting and agreement in `page`, up to the result screen. */
async function walkFlow(page: Page) {
  await page.getByTestId('step-identity').waitFor({ timeout: UI_TIMEOUT })
  await page.getByTestId('identity-confirm').check()
  await page.getByTestId('identity-submit').click()
  await page.getByTestId('step-underwriting').waitFor({ timeout: UI_TIMEOUT })
  await page.getByTestId('employment-status').selectOption('employed')
  await page.getByTestId('annual-income').selectOption('50k_100k')
  await page.getByTestId('source-of-funds').selectOption('salary')
  await page.getByTestId('underwriting-submit').click()
  await page.getByTestId('step-agreement').waitFor({ timeout: UI_TIMEOUT })
  await page.getByTestId('agreement-accept').check()
  await page.getByTestId('agreement-submit').click()
  await page.getByTestId('result').waitFor({ timeout: UI_TIMEOUT })
}

async function complete(call: Call, bearer: Record<string, string>, id: string, body: object) {
  return call('POST', `${ONBOARDING}/${id}/complete`, { headers: bearer, body })
}

describeWithBrowser('hosted onboarding result in a popup and in a plain tab', () => {
  beforeAll(async () => {
    browser = await launchBrowser()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
  })

  it(
    'popup: the result is posted to window.opener on an allowed origin, and completes the onboarding',
    async () => {
      const { sandbox, call, app, context, user } = await setup(true)
      const start = await call('POST', ONBOARDING, {
        headers: user.bearer,
        body: onboardingApplicant(user.user),
      })
      expect(start.status, start.text).toBe(200)
      const opener = await context.newPage()
      await opener.goto(
        `${app.origin}/opener?url=${encodeURIComponent(start.json.data.onboardingEmbedUrl)}`,
      )
      const [popup] = await Promise.all([context.waitForEvent('page'), opener.click('#open')])
      await walkFlow(popup)
      await opener.waitForFunction('window.messages.length >= 1', undefined, {
        timeout: UI_TIMEOUT,
      })
      // biome-ignore lint/suspicious/noExplicitAny: the message is asserted field by field
      const messages = (await opener.evaluate('window.messages')) as any[]
      expect(messages).toHaveLength(1)
      expect(messages[0].origin).toBe(sandbox.url)
      expect(messages[0].data).toMatchObject({
        type: 'partner-sandbox:onboarding',
        onboardingId: start.json.data.onboardingId,
        result: 'pass',
        outcome: 'approved',
        agreementAccepted: true,
      })
      const { result, data, agreementAccepted } = messages[0].data
      const done = await complete(call, user.bearer, start.json.data.onboardingId, {
        result,
        data,
        agreement_accepted: agreementAccepted,
      })
      expect(done.status, done.text).toBe(200)
      expect(done.json.data.card.status).toBe('active')
    },
    TIMEOUT,
  )

  it(
    'popup: an opener on an origin that is not allowed receives nothing',
    async () => {
      const { call, app, context, user } = await setup(false)
      const start = await call('POST', ONBOARDING, {
        headers: user.bearer,
        body: onboardingApplicant(user.user),
      })
      const opener = await context.newPage()
      await opener.goto(
        `${app.origin}/opener?url=${encodeURIComponent(start.json.data.onboardingEmbedUrl)}`,
      )
      const [popup] = await Promise.all([context.waitForEvent('page'), opener.click('#open')])
      await walkFlow(popup)
      // The popup itself has the message (it was sent); the foreign opener got none.
      await popup.waitForFunction('window.__onboardingResult !== undefined')
      expect(await opener.evaluate('window.messages.length')).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'plain tab (and an Android WebView bridge): Continue goes to redirect_uri with result, data and agreement_accepted, enough to complete',
    async () => {
      const { call, app, context, user } = await setup(true)
      const start = await call('POST', ONBOARDING, {
        headers: user.bearer,
        body: onboardingApplicant(user.user, { redirect_uri: `${app.origin}/done?from=card` }),
      })
      expect(start.status, start.text).toBe(200)
      const tab = await context.newPage()
      // No console error and no failed request (a missing favicon would be a 404 here).
      const failures: string[] = []
      tab.on('console', (m) => {
        if (m.type() === 'error') failures.push(m.text())
      })
      tab.on('response', (r) => {
        if (r.status() >= 400) failures.push(`${r.status()} ${r.url()}`)
      })
      // An Android WebView's JavascriptInterface, as the page sees one.
      await tab.addInitScript(
        'window.bridged = []; window.PartnerSandboxAndroid = { postMessage: function (s) { window.bridged.push(s) } }',
      )
      await tab.goto(start.json.data.onboardingEmbedUrl)
      await walkFlow(tab)
      expect(failures).toEqual([])
      const bridged = (await tab.evaluate('window.bridged')) as string[]
      expect(bridged).toHaveLength(1)
      expect(JSON.parse(bridged[0] as string)).toMatchObject({
        result: 'pass',
        outcome: 'approved',
      })
      await tab.getByTestId('result-continue').click()
      await tab.waitForURL(`${app.origin}/done?**`, { timeout: UI_TIMEOUT })
      expect(app.landings).toHaveLength(1)
      const query = app.landings[0] as URLSearchParams
      expect(Object.fromEntries(query)).toMatchObject({
        from: 'card',
        onboarding_id: start.json.data.onboardingId,
        result: 'pass',
        outcome: 'approved',
        agreement_accepted: 'true',
      })
      const data = JSON.parse(query.get('data') ?? 'null')
      expect(data).toMatchObject({
        onboardingId: start.json.data.onboardingId,
        outcome: 'approved',
      })
      const done = await complete(call, user.bearer, start.json.data.onboardingId, {
        result: query.get('result'),
        data: query.get('data'),
        agreement_accepted: query.get('agreement_accepted') === 'true',
      })
      expect(done.status, done.text).toBe(200)
      expect(done.json.data.card.status).toBe('active')
    },
    TIMEOUT,
  )
})
