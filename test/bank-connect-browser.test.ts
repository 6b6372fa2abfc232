/**
 * The hosted bank-connect page in a real browser: Chromium (driven by playwright-core, found by
 * test/browser.ts) opens the connect_url of a real token call on a phone-sized viewport, the
 * user picks a bank and an account, and the connected account is then usable for a deposit.
 * Without a browser the suite is skipped, or fails with CI=true (`.ci/run` installs chromium).
 */

import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { describeWithBrowser, launchBrowser } from './browser.js'
import {
  type Call,
  httpCall,
  onboardingApplicant,
  registerAndLogin,
  walkAndComplete,
} from './helpers.js'

const BROWSER_TEST_TIMEOUT = 60_000
/** How long one step of the page may take to show up (real time). */
const UI_TIMEOUT = 10_000
const CONNECT = '/api/v1/external-bank-account-connect'
const ONBOARDING = '/api/v1/partner/cards/onboarding'
const FIRST_BANK = 'ins_sandbox_first'

let browser: Browser | undefined
let sandbox: RunningSandbox | undefined
let call: Call
const cleanup: (() => Promise<unknown>)[] = []

afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close().catch(() => {})
})

const screenshot = (page: Page, name: string) => {
  const path = join(tmpdir(), `partner-sandbox-bank-connect-${name}.png`)
  return page.screenshot({ path, fullPage: true }).then(() => path)
}

/** A phone-sized browser context (closed after the test). */
async function phone(): Promise<BrowserContext> {
  if (!browser || !sandbox)
    throw new Error('Chromium or the sandbox did not start (see beforeAll).')
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  })
  cleanup.push(() => context.close())
  return context
}

/** A registered, logged-in user of the default partner and a fresh connect session. */
async function connectSession() {
  const session = await registerAndLogin(call)
  const res = await call('POST', `${CONNECT}/token`, { headers: session.bearer })
  expect(res.status, res.text).toBe(201)
  const data = res.json.data as { connect_token: string; connect_url: string; expires_at: string }
  expect(data.connect_url.startsWith(`${sandbox?.url}${CONNECT}/connect?token=`)).toBe(true)
  expect(new URL(data.connect_url).searchParams.get('token')).toBe(data.connect_token)
  return { ...session, ...data }
}

/** Opens a connect link; answers the HTTP status of the page. */
async function open(page: Page, url: string) {
  const response = await page.goto(url)
  if (!response) throw new Error(`no response for ${url}`)
  return response.status()
}

/** Every account the page offers (all banks), as rendered: id, bank and text. */
const offered = (page: Page) =>
  page.$$eval('[data-account]', (labels) =>
    labels.map((l) => ({
      id: l.getAttribute('data-account'),
      bank: l.getAttribute('data-institution-id'),
      text: (l.textContent ?? '').replace(/\s+/g, ' ').trim(),
    })),
  )

/** The ids of the accounts a user can see right now. */
async function visibleAccounts(page: Page): Promise<string[]> {
  const ids: string[] = []
  for (const label of await page.locator('[data-account]').all()) {
    if (await label.isVisible()) ids.push((await label.getAttribute('data-account')) as string)
  }
  return ids
}

describeWithBrowser('hosted bank connect in a real browser (phone viewport)', () => {
  beforeAll(async () => {
    browser = await launchBrowser()
    sandbox = await startSandbox({ port: 0, logLevel: 'silent' })
    call = httpCall(sandbox.url)
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await sandbox?.close()
  })

  it(
    'connects an account: postMessage result, listed over the API, event recorded, link used up, then a deposit from it',
    async () => {
      const s = await connectSession()
      const page = await (await phone()).newPage()
      expect(await open(page, s.connect_url)).toBe(200)

      // 1. The bank list; the accounts and the result are not shown yet.
      await page.getByTestId('connect-banks').waitFor({ timeout: UI_TIMEOUT })
      expect(await page.getByTestId('connect-accounts').isHidden()).toBe(true)
      expect(await page.getByTestId('connect-result').isHidden()).toBe(true)
      expect(await page.getByTestId('connect-error').isHidden()).toBe(true)
      expect(await visibleAccounts(page)).toEqual([])
      await screenshot(page, 'banks')

      // 2. A bank: only its own accounts are offered.
      await page.getByTestId(`bank-${FIRST_BANK}`).click()
      await page.getByTestId('connect-accounts').waitFor({ timeout: UI_TIMEOUT })
      expect(await page.getByTestId('connect-banks').isHidden()).toBe(true)
      expect(await page.getByTestId('selected-bank').textContent()).toBe('Sandbox First Bank')
      const all = await offered(page)
      const visible = await visibleAccounts(page)
      expect(visible).toEqual(all.filter((a) => a.bank === FIRST_BANK).map((a) => a.id))
      expect(visible).toHaveLength(2)
      const accountId = visible[0] as string
      const chosen = all.find((a) => a.id === accountId)
      const mask = /••(\d{4})/.exec(chosen?.text ?? '')?.[1]
      expect(mask, chosen?.text).toMatch(/^\d{4}$/)
      await page.getByTestId(`account-${accountId}`).locator('input').check()
      await screenshot(page, 'accounts')

      // 3. Connect: the result view and the message for the app.
      await page.getByTestId('connect-submit').click()
      await page.getByTestId('connect-result').waitFor({ timeout: UI_TIMEOUT })
      expect(await page.getByTestId('connect-accounts').isHidden()).toBe(true)
      expect(await page.getByTestId('connect-error').isHidden()).toBe(true)
      // biome-ignore lint/suspicious/noExplicitAny: the message is asserted field by field
      const message = (await page.evaluate('window.__bankConnectResult')) as any
      expect(message).toMatchObject({
        type: 'partner-sandbox:bank-connect',
        version: 1,
        result: 'connected',
        bankAccount: {
          institution_id: FIRST_BANK,
          institution_name: 'Sandbox First Bank',
          account_mask: mask,
          status: 'active',
        },
      })
      const bankAccount = message.bankAccount
      expect(bankAccount.id).toMatch(/^bank_/)
      expect(bankAccount).not.toHaveProperty('routing_number')
      expect(chosen?.text).toContain(bankAccount.account_name)
      // Bank, account name and number each in their own place, never run together.
      expect(await page.getByTestId('connect-result-institution').textContent()).toBe(
        'Sandbox First Bank',
      )
      expect(await page.getByTestId('connect-result-account').textContent()).toBe(
        bankAccount.account_name,
      )
      expect(await page.getByTestId('connect-result-mask').textContent()).toBe(`•••• ${mask}`)
      expect(
        (await page.getByTestId('connect-result-detail').innerText())
          .split('\n')
          .map((l) => l.trim()),
      ).toEqual([
        'Bank',
        'Sandbox First Bank',
        'Account',
        bankAccount.account_name,
        'Number',
        `•••• ${mask}`,
      ])
      // The partner is named, and the way back to its app is said (a plain tab cannot close).
      expect(await page.getByTestId('partner-name').textContent()).toBe('Acme Fintech')
      expect(await page.getByTestId('connect-return-hint').textContent()).toContain(
        'return to Acme Fintech',
      )
      expect(await page.getByTestId('connect-return').isHidden()).toBe(true)
      const resultShot = await screenshot(page, 'connected')
      expect(existsSync(resultShot)).toBe(true)

      // 4. The partner's backend sees the account.
      const list = await call('GET', `${CONNECT}/accounts`, { headers: s.bearer })
      expect(list.status, list.text).toBe(200)
      expect(list.json.data).toEqual({ data: [bankAccount], has_more: false })
      expect(list.json.data.data[0]).toMatchObject({
        institution_name: 'Sandbox First Bank',
        account_mask: mask,
      })

      // 5. And the event was recorded.
      const events = await call('GET', '/_sandbox/events?type=external_bank_account.created', {
        creds: null,
      })
      expect(events.status, events.text).toBe(200)
      const created = events.json.data.filter(
        // biome-ignore lint/suspicious/noExplicitAny: envelopes are asserted field by field
        (e: any) => e.data.object.id === bankAccount.id,
      )
      expect(created).toHaveLength(1)
      expect(created[0]).toMatchObject({
        object: 'event',
        type: 'external_bank_account.created',
        data: {
          object: {
            object: 'external_bank_account',
            user_id: s.userId,
            id: bankAccount.id,
            institution_id: FIRST_BANK,
            account_mask: mask,
          },
        },
      })

      // 6. The link works once: reloading it shows the error page.
      const again = await page.reload()
      expect(again?.status()).toBe(410)
      await page.getByTestId('embed-error').waitFor({ timeout: UI_TIMEOUT })
      expect(await page.getByTestId('embed-error-title').textContent()).toBe('Link already used')
      expect(await page.getByTestId('embed-error-message').textContent()).toContain('already used')
      expect(await page.getByTestId('bank-connect').count()).toBe(0)
      await screenshot(page, 'used')

      // 7. A deposit from the connected account, once the user has an active card.
      const start = await call('POST', ONBOARDING, {
        headers: s.bearer,
        body: onboardingApplicant(s.user),
      })
      expect(start.status, start.text).toBe(200)
      const done = await walkAndComplete(call, start.json.data.onboardingId, {
        headers: s.bearer,
        body: { result: 'pass', data: {}, agreement_accepted: true },
      })
      expect(done.status, done.text).toBe(200)
      expect(done.json.data).toMatchObject({ status: 'completed', card: { status: 'active' } })
      const deposit = await call('POST', '/api/v1/partner/cards/deposits', {
        headers: s.bearer,
        body: { amount: 25, external_bank_account_id: bankAccount.id },
      })
      expect(deposit.status, deposit.text).toBe(201)
      expect(deposit.json.data).toMatchObject({
        external_bank_account_id: bankAccount.id,
        card_id: done.json.data.card.id,
        amount: 25,
        currency: 'USD',
        status: 'pending',
        failure_reason: null,
      })
    },
    BROWSER_TEST_TIMEOUT,
  )

  it(
    'shows the error page for a made-up token',
    async () => {
      const page = await (await phone()).newPage()
      const base = `${sandbox?.url}${CONNECT}/connect`
      for (const token of [`bct_madeup.${'x'.repeat(40)}`, 'nonsense']) {
        expect(await open(page, `${base}?token=${encodeURIComponent(token)}`), token).toBe(404)
        await page.getByTestId('embed-error').waitFor({ timeout: UI_TIMEOUT })
        expect(await page.getByTestId('embed-error-message').textContent()).toContain('not valid')
        expect(await page.getByTestId('bank-connect').count()).toBe(0)
      }
      // No token at all, or an empty one: 400.
      for (const url of [base, `${base}?token=`]) {
        expect(await open(page, url), url).toBe(400)
        await page.getByTestId('embed-error').waitFor({ timeout: UI_TIMEOUT })
        expect(await page.getByTestId('embed-error-title').textContent()).toBe('Link incomplete')
      }

      // A real session id with a wrong secret is refused the same way.
      const s = await connectSession()
      const [id] = s.connect_token.split('.')
      expect(await open(page, `${base}?token=${id}.${'y'.repeat(40)}`)).toBe(404)
      expect(await page.getByTestId('embed-error-message').textContent()).toContain('not valid')
      await screenshot(page, 'made-up')
    },
    BROWSER_TEST_TIMEOUT,
  )

  it(
    'offers the same accounts on two loads of the same link (two fresh tabs)',
    async () => {
      const s = await connectSession()
      const first = await (await phone()).newPage()
      const second = await (await phone()).newPage()
      expect(await open(first, s.connect_url)).toBe(200)
      expect(await open(second, s.connect_url)).toBe(200)
      const a = await offered(first)
      const b = await offered(second)
      expect(a).toHaveLength(8)
      expect(new Set(a.map((x) => x.id)).size).toBe(8)
      for (const x of a)
        expect(x.text).toMatch(/^.+'s .+ (Checking|Savings) (checking|savings) ••\d{4}$/)
      expect(b).toEqual(a)

      // Both tabs still work: the first to connect wins, the other is told.
      await first.getByTestId(`bank-${FIRST_BANK}`).click()
      await second.getByTestId(`bank-${FIRST_BANK}`).click()
      const [firstId] = await visibleAccounts(first)
      const [secondId] = await visibleAccounts(second)
      await first.getByTestId(`account-${firstId}`).locator('input').check()
      await second.getByTestId(`account-${secondId}`).locator('input').check()
      await first.getByTestId('connect-submit').click()
      await first.getByTestId('connect-result').waitFor({ timeout: UI_TIMEOUT })
      await second.getByTestId('connect-submit').click()
      const error = second.getByTestId('connect-error')
      await error.waitFor({ timeout: UI_TIMEOUT })
      expect(await error.textContent()).toContain('already used')
      expect(await second.getByTestId('connect-result').isHidden()).toBe(true)
      expect(await second.evaluate('window.__bankConnectResult')).toBeUndefined()
      const list = await call('GET', `${CONNECT}/accounts`, { headers: s.bearer })
      expect(list.json.data.data).toHaveLength(1)
    },
    BROWSER_TEST_TIMEOUT,
  )

  it(
    'the back button returns to the bank list; connect without an account shows an error',
    async () => {
      const s = await connectSession()
      const page = await (await phone()).newPage()
      expect(await open(page, s.connect_url)).toBe(200)
      const all = await offered(page)

      // Connect with nothing chosen: an error, nothing connected.
      await page.getByTestId(`bank-${FIRST_BANK}`).click()
      await page.getByTestId('connect-accounts').waitFor({ timeout: UI_TIMEOUT })
      await page.getByTestId('connect-submit').click()
      const error = page.getByTestId('connect-error')
      await error.waitFor({ timeout: UI_TIMEOUT })
      expect(await error.textContent()).toBe('Choose an account to connect.')
      expect(await page.getByTestId('connect-result').isHidden()).toBe(true)
      await screenshot(page, 'no-account')

      // Choose an account, then go back: the bank list again, the choice and the error gone.
      const [firstAccount] = await visibleAccounts(page)
      await page.getByTestId(`account-${firstAccount}`).locator('input').check()
      await page.getByTestId('connect-back').click()
      await page.getByTestId('connect-banks').waitFor({ timeout: UI_TIMEOUT })
      expect(await page.getByTestId('connect-accounts').isHidden()).toBe(true)
      expect(await error.isHidden()).toBe(true)
      expect(await visibleAccounts(page)).toEqual([])

      // Another bank: only its accounts, none chosen; connect still asks for one.
      await page.getByTestId('bank-ins_harbor_cu').click()
      await page.getByTestId('connect-accounts').waitFor({ timeout: UI_TIMEOUT })
      expect(await page.getByTestId('selected-bank').textContent()).toBe('Harbor Credit Union')
      const harbor = await visibleAccounts(page)
      expect(harbor).toEqual(all.filter((a) => a.bank === 'ins_harbor_cu').map((a) => a.id))
      expect(await page.locator('[data-account] input:checked').count()).toBe(0)
      await page.getByTestId('connect-submit').click()
      await error.waitFor({ timeout: UI_TIMEOUT })
      expect(await error.textContent()).toBe('Choose an account to connect.')

      // Back to the first bank: what is shown checked is what gets connected (nothing yet).
      await page.getByTestId('connect-back').click()
      await page.getByTestId(`bank-${FIRST_BANK}`).click()
      expect(await page.locator('[data-account] input:checked').count()).toBe(0)

      // Connect the second account of the first bank: that exact account is connected.
      const secondAccount = (await visibleAccounts(page))[1] as string
      await page.getByTestId(`account-${secondAccount}`).locator('input').check()
      await page.getByTestId('connect-submit').click()
      await page.getByTestId('connect-result').waitFor({ timeout: UI_TIMEOUT })
      expect(await error.isHidden()).toBe(true)
      const list = await call('GET', `${CONNECT}/accounts`, { headers: s.bearer })
      expect(list.status, list.text).toBe(200)
      const [connected] = list.json.data.data
      expect(list.json.data.data).toHaveLength(1)
      expect(all.find((a) => a.id === secondAccount)?.text).toContain(connected.account_name)
      expect(all.find((a) => a.id === secondAccount)?.text).toContain(`••${connected.account_mask}`)
    },
    BROWSER_TEST_TIMEOUT,
  )

  it(
    'in a popup: "Return to <partner>" closes the window and hands back to the opener',
    async () => {
      const s = await connectSession()
      const context = await phone()
      const opener = await context.newPage()
      await opener.goto(`${sandbox?.url}/_sandbox/health`)
      const popupOpened = context.waitForEvent('page')
      await opener.evaluate(`window.open(${JSON.stringify(s.connect_url)}, 'bank')`)
      const popup = await popupOpened
      await popup.getByTestId(`bank-${FIRST_BANK}`).click({ timeout: UI_TIMEOUT })
      const [account] = await visibleAccounts(popup)
      await popup.getByTestId(`account-${account}`).locator('input').check()
      await popup.getByTestId('connect-submit').click()
      const back = popup.getByTestId('connect-return')
      await back.waitFor({ timeout: UI_TIMEOUT })
      expect(await back.textContent()).toBe('Return to Acme Fintech')
      await screenshot(popup, 'popup-connected')
      const closed = popup.waitForEvent('close')
      // The page closes itself inside the click's handler, so the click can find its target
      // gone before it returns: that is the outcome asserted here. Any other click error fails,
      // and a page that stays open fails on \`closed\`.
      const clicked = back.click().catch((error: Error) => {
        if (!/has been closed/.test(error.message)) throw error
      })
      await Promise.all([clicked, closed])
      expect(popup.isClosed()).toBe(true)
    },
    BROWSER_TEST_TIMEOUT,
  )
})
