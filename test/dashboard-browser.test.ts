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
import { type Call, httpCall, onboardedUser, type Receiver, startReceiver } from './helpers.js'
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
