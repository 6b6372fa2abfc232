/**
 * The dashboard at /_sandbox in a real browser: a flow runs over the API (a user onboarded to
 * an active card, funded, a purchase, a webhook endpoint that fails), then the page must show
 * exactly what the API answers: balances, transactions, the delivery's attempts; its buttons
 * (redeliver, advance a partner's clock) act through the control plane; the journal is live.
 */
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { describeWithBrowser, launchBrowser } from './browser.js'
import {
  bearer,
  type Call,
  httpCall,
  onboardedUser,
  onboardingApplicant,
  type Receiver,
  registerAndLogin,
  startReceiver,
  UNDERWRITING_ANSWERS,
  walkAndComplete,
} from './helpers.js'
import { recordRequests, saveScreenshot } from './screenshots.js'

let browser: Browser | undefined
let sandbox: RunningSandbox | undefined
let receiver: Receiver | undefined
let call: Call

const texts = (page: Page, testid: string) =>
  page
    .getByTestId(testid)
    .allTextContents()
    .then((all) => all.map((t) => t.trim()))

describeWithBrowser('/_sandbox dashboard in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser()
    sandbox = await startSandbox({ port: 0, logLevel: 'silent' })
    call = httpCall(sandbox.url)
    receiver = await startReceiver(500)
    receiver.otherwise = 500
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await sandbox?.close()
    await receiver?.close()
  })

  it('shows what the API answers, acts through its buttons, and updates the journal live', async () => {
    if (!browser || !sandbox || !receiver) throw new Error('setup failed')
    const hook = await call('POST', '/api/v1/partner/webhooks', {
      body: { url: receiver.url, events: ['card.funded'] },
    })
    expect(hook.status, hook.text).toBe(201)
    const user = await onboardedUser(call)
    const as = (method: string, path: string, body?: unknown) =>
      call(method, path, { headers: user.bearer, body })
    expect(
      (await as('POST', '/api/v1/partner/cards/simulate-fund', { amount: 120.5 })).status,
    ).toBe(200)
    const bought = await as('POST', '/api/v1/partner/cards/simulate-purchase', {
      amount: 20.25,
      merchant: { name: 'Corner Shop' },
    })
    expect(bought.status, bought.text).toBe(201)
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
    await receiver.waitFor(1)
    // A user declined at completion (last name Denied: KYC fails).
    const denied = await registerAndLogin(call, { last_name: 'Denied' })
    const deniedStart = await call('POST', '/api/v1/partner/cards/onboarding', {
      headers: denied.bearer,
      body: onboardingApplicant(denied.user),
    })
    expect(deniedStart.status, deniedStart.text).toBe(200)
    const deniedDone = await walkAndComplete(call, deniedStart.json.data.onboardingId, {
      headers: denied.bearer,
    })
    expect(deniedDone.status, deniedDone.text).toBe(200)

    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    const log = await recordRequests(page)
    await page.goto(`${sandbox.url}/_sandbox`)
    await page.getByTestId('partners-section').waitFor()

    // Balances and transactions equal the API's.
    const status = (await as('GET', '/api/v1/partner/cards/status')).json.data
    const card = page.locator(`[data-testid="cards-row"][data-id="${user.cardId}"]`)
    expect(await card.getByTestId('cards-available').textContent()).toBe(
      `$${status.balances.available.toFixed(2)}`,
    )
    expect(await card.getByTestId('cards-ledger').textContent()).toBe(
      `$${status.balances.ledger.toFixed(2)}`,
    )
    const txns = (await as('GET', '/api/v1/partner/transactions?limit=100')).json.data.data as {
      id: string
    }[]
    const shown = await page
      .getByTestId('transactions-row')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')))
    expect(shown).toEqual(txns.map((t) => t.id))
    expect(await texts(page, 'users-email')).toContain(user.user.email)
    // The onboarding the partner completed (no hosted flow) shows its result, not "—".
    const latest = (await as('GET', '/api/v1/partner/cards/onboarding/latest')).json.data
    expect(latest.status).toBe('completed')
    const onboarding = page.locator(
      `[data-testid="onboardings-row"][data-id="${latest.onboardingId}"]`,
    )
    expect(await onboarding.getByTestId('onboardings-result').textContent()).toBe('pass')
    const declined = (
      await call('GET', '/api/v1/partner/cards/onboarding/latest', { headers: denied.bearer })
    ).json.data
    expect(declined.status).toBe('failed')
    const declinedRow = page.locator(
      `[data-testid="onboardings-row"][data-id="${declined.onboardingId}"]`,
    )
    expect(await declinedRow.getByTestId('onboardings-result').textContent()).toBe(
      `fail (${declined.failure_reason})`,
    )

    // The delivery and its failed attempt, as the API lists them.
    const deliveries = (
      await call('GET', `/api/v1/partner/webhooks/${hook.json.webhook.id}/deliveries`)
    ).json.data as { id: string; attempts: { status_code: number }[]; next_attempt_at: string }[]
    const first = deliveries[0] as (typeof deliveries)[number]
    const row = page.locator(`[data-testid="deliveries-row"][data-id="${first.id}"]`)
    expect(await row.getByTestId('attempt').getAttribute('data-status-code')).toBe('500')
    expect(await row.getByTestId('deliveries-next-retry').textContent()).toBe(first.next_attempt_at)

    // The journal fills in by itself with this partner's requests.
    await expect
      .poll(() => texts(page, 'journal-row'), { timeout: 10_000 })
      .toEqual(expect.arrayContaining([expect.stringContaining('/api/v1/partner/cards/status')]))

    // Redeliver: a new delivery of the same event appears after the reload.
    await page.getByTestId(`redeliver-${first.id}`).click()
    await page.waitForLoadState('load')
    await expect
      .poll(() => page.getByTestId('deliveries-row').count(), { timeout: 10_000 })
      .toBe(deliveries.length + 1)

    // The partner's clock: +1d moves it by a day, as its control route reports.
    const before = Date.parse((await page.getByTestId('partner-clock').textContent()) as string)
    await page.getByTestId('advance-partner-1d').click()
    await expect
      .poll(async () => Date.parse((await page.getByTestId('partner-clock').textContent()) ?? ''))
      .toBeGreaterThanOrEqual(before + 86_400_000)
    const clock = await call('GET', `/_sandbox/partners/${DEFAULT_PARTNER.id}/clock`, {
      creds: null,
    })
    expect(clock.json.offset_ms).toBeGreaterThanOrEqual(86_400_000)

    await saveScreenshot(page, 'dashboard', true)
    expect(log.outside).toEqual([])
    await page.close()
  }, 90_000)

  it('opens a request (redacted), names the rules met, lists hosted-page requests, origins and endpoints, and completes a finished hosted flow', async () => {
    if (!browser || !sandbox || !receiver) throw new Error('setup failed')
    // A user whose hosted flow ended (the page's steps), not yet completed by the partner.
    const { user, bearer: auth } = await registerAndLogin(call)
    const ssn = '123-45-6789'
    const started = await call('POST', '/api/v1/partner/cards/onboarding', {
      headers: auth,
      body: onboardingApplicant(user, { ssn }),
    })
    expect(started.status, started.text).toBe(200)
    const { onboardingId, accessToken, onboardingEmbedUrl } = started.json.data
    const embed = new URL(onboardingEmbedUrl)
    expect((await call('GET', `${embed.pathname}${embed.search}`, { creds: null })).status).toBe(
      200,
    )
    for (const [step, body] of [
      ['identity_verification', { confirmed: true }],
      ['underwriting', UNDERWRITING_ANSWERS],
      ['agreement', { accepted: true }],
    ] as const) {
      const res = await call('POST', `/embed/onboarding/${onboardingId}/steps/${step}`, {
        creds: null,
        headers: bearer(accessToken),
        body,
      })
      expect(res.status, res.text).toBe(200)
    }
    // A rule met by one request: the journal says what it did, not only "error".
    const rule = await call('POST', '/_sandbox/rules', {
      creds: null,
      body: {
        match: { method: 'GET', path: '/api/v1/partner/usage' },
        respond: { status: 503 },
        once: true,
      },
    })
    expect(rule.status, rule.text).toBe(201)
    expect((await call('GET', '/api/v1/partner/usage')).status).toBe(503)

    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    const log = await recordRequests(page)
    await page.goto(`${sandbox.url}/_sandbox`)
    await page.getByTestId('partners-section').waitFor()

    // No empty status line above the sections.
    expect(await page.getByTestId('status').isVisible()).toBe(false)

    // The partner's allowed origins and webhook endpoints.
    const acmeRow = page.locator(`[data-testid="partners-row"][data-id="${DEFAULT_PARTNER.id}"]`)
    expect(await acmeRow.getByTestId('partners-allowed-origins').innerText()).toContain(
      'http://localhost:*',
    )
    expect(await acmeRow.getByTestId('partners-webhook-endpoints').innerText()).toContain(
      receiver.url,
    )

    // The rules column says what the rule did.
    // The newest journal row whose Path cell is exactly `path`.
    const rowOf = (path: string) =>
      page
        .locator('[data-testid="journal-row"]')
        .filter({ has: page.locator('td:nth-child(3)', { hasText: new RegExp(`^${path}$`) }) })
        .first()
    await rowOf('/api/v1/partner/usage').waitFor({ timeout: 10_000 })
    expect(await rowOf('/api/v1/partner/usage').locator('td').nth(5).textContent()).toMatch(
      /^answered 503 \(rul_/,
    )
    // The hosted page and its step calls are listed with the partner's requests.
    await rowOf('/embed/onboarding').waitFor({ timeout: 10_000 })
    await rowOf(`/embed/onboarding/${onboardingId}/steps/agreement`).waitFor()

    // A request opens with its headers and bodies, secrets redacted.
    await rowOf('/api/v1/partner/cards/onboarding').click()
    const detail = page.getByTestId('request-detail')
    await detail.waitFor()
    expect(await page.getByTestId('detail-title').textContent()).toMatch(
      /^POST \/api\/v1\/partner\/cards\/onboarding → 200/,
    )
    const requestBody = (await page.getByTestId('detail-request-body').textContent()) ?? ''
    expect(JSON.parse(requestBody)).toMatchObject({ ssn: '[redacted]', email: user.email })
    expect(requestBody).not.toContain(ssn)
    const requestHeaders = (await page.getByTestId('detail-request-headers').textContent()) ?? ''
    expect(JSON.parse(requestHeaders)).toMatchObject({
      'x-partner-secret': '[redacted]',
      authorization: '[redacted]',
    })
    const responseBody = (await page.getByTestId('detail-response-body').textContent()) ?? ''
    expect(JSON.parse(responseBody).data).toMatchObject({ onboardingId, accessToken: '[redacted]' })
    expect(responseBody).not.toContain(accessToken)
    await saveScreenshot(page, 'dashboard-request', true)

    // The finished flow: one click completes it, as the partner's /complete would.
    const onboardingRow = page.locator(`[data-testid="onboardings-row"][data-id="${onboardingId}"]`)
    expect(await onboardingRow.getByTestId('onboardings-status').textContent()).toBe('in_progress')
    await page.getByTestId(`complete-${onboardingId}`).click()
    await page.waitForLoadState('load')
    await expect
      .poll(() => onboardingRow.getByTestId('onboardings-status').textContent(), {
        timeout: 10_000,
      })
      .toBe('completed')
    const status = await call('GET', '/api/v1/partner/cards/status', { headers: auth })
    expect(status.json.data).toMatchObject({ kyc_status: 'approved', card: { status: 'active' } })
    expect(await onboardingRow.getByTestId('onboardings-card').textContent()).toBe(
      status.json.data.card.id,
    )
    expect(await page.getByTestId(`complete-${onboardingId}`).count()).toBe(0)
    expect(log.outside).toEqual([])
    await page.close()
  }, 90_000)

  it('asks for the admin token when one is set, and its buttons then carry it', async () => {
    if (!browser) throw new Error('no browser')
    const guarded = await startSandbox({ port: 0, logLevel: 'silent', adminToken: 'dash-token' })
    try {
      const page = await browser.newPage()
      const log = await recordRequests(page)
      expect((await page.goto(`${guarded.url}/_sandbox`))?.status()).toBe(401)
      await page.locator('#token').fill('wrong')
      await page.getByRole('button', { name: 'Open the dashboard' }).click()
      await page.getByTestId('login-error').waitFor()
      await page.locator('#token').fill('dash-token')
      await page.getByRole('button', { name: 'Open the dashboard' }).click()
      await page.getByTestId('partners-section').waitFor()
      // The journal's JSON route answered the page's script (it needs the token).
      await page.locator('[data-testid="journal"][data-refreshed]').waitFor()
      const clockOf = async () => {
        const res = await fetch(`${guarded.url}/_sandbox/clock`, {
          headers: { authorization: 'Bearer dash-token' },
        })
        return Date.parse(((await res.json()) as { now: string }).now)
      }
      const before = await clockOf()
      await page.getByTestId('advance-sandbox-1h').click()
      await page.waitForLoadState('load')
      // The button's call carried the token: the clock moved, and no error was shown.
      await expect.poll(clockOf).toBeGreaterThanOrEqual(before + 3_600_000)
      await expect.poll(() => page.getByTestId('status').textContent()).toBe('')
      expect(log.outside).toEqual([])
      await page.close()
    } finally {
      await guarded.close()
    }
  }, 60_000)
})
