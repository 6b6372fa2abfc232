/**
 * The hosted onboarding flow in a real browser: Chromium (driven by playwright-core, found by
 * test/browser.ts) opens the onboardingEmbedUrl of a real start call inside an <iframe> of a
 * partner-like page served on 127.0.0.1, on a phone-sized viewport. Without a browser the suite
 * is skipped, or fails with CI=true (`.ci/run` installs Debian's chromium).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, FrameLocator, Page, Response } from 'playwright-core'
import { Webhook } from 'standardwebhooks'
import Stripe from 'stripe'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { describeWithBrowser, launchBrowser } from './browser.js'
import {
  type Call,
  httpCall,
  onboardingApplicant,
  type ReceivedRequest,
  type Receiver,
  registerAndLogin,
  startReceiver,
  walkAndComplete,
} from './helpers.js'

const BROWSER_TEST_TIMEOUT = 60_000
/** How long one step of the page may take to show up (real time). */
const UI_TIMEOUT = 10_000
const ONBOARDING = '/api/v1/partner/cards/onboarding'
const ONBOARDING_EVENTS = [
  'onboarding.started',
  'onboarding.completed',
  'onboarding.failed',
  'card.created',
]

let browser: Browser | undefined
const cleanup: (() => Promise<unknown>)[] = []

afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close().catch(() => {})
})

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: join(tmpdir(), `partner-sandbox-${name}.png`) })

/** What the partner page records of each `message` event it receives. */
interface Received {
  origin: string
  // biome-ignore lint/suspicious/noExplicitAny: the message is asserted field by field
  data: any
}

const attr = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;')

/**
 * A partner's web app on 127.0.0.1 (port 0): `/app?embed=<url>` embeds that URL in an
 * iframe and keeps every `message` event in `window.messages` ({ origin, data }).
 */
async function startPartnerPage() {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const embed = url.searchParams.get('embed')
    if (url.pathname !== '/app' || !embed) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    res.end(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme wallet</title>
<style>
  body { margin: 0; font: 15px/1.4 system-ui, sans-serif; background: #fff; }
  .bar { height: 48px; display: flex; align-items: center; padding: 0 16px; background: #111827; color: #fff; font-weight: 600; }
  iframe { display: block; width: 100%; height: calc(100vh - 48px); border: 0; }
</style>
<script>
  window.messages = [];
  window.frameLoads = 0;
  window.addEventListener('message', function (event) {
    window.messages.push({ origin: event.origin, data: event.data });
  });
</script>
</head>
<body>
<div class="bar">Acme wallet · Get your card</div>
<iframe id="onboarding" title="Card application" src="${attr(embed)}" onload="window.frameLoads++"></iframe>
</body>
</html>`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const origin = `http://127.0.0.1:${port}`
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  return {
    origin,
    pageFor: (embedUrl: string) => `${origin}/app?embed=${encodeURIComponent(embedUrl)}`,
  }
}

/**
 * A running sandbox (real socket), a partner page whose origin is added to acme's
 * allowed_origins, a webhook receiver subscribed to the onboarding and card events, and a
 * phone-sized browser page. Everything is closed after the test.
 */
async function setup(options: { onLog?: (line: string) => void } = {}) {
  if (!browser) throw new Error('The browser did not start (see beforeAll).')
  const sandbox: RunningSandbox = await startSandbox({
    port: 0,
    logLevel: options.onLog ? 'warn' : 'silent',
    ...options,
  })
  cleanup.push(() => sandbox.close())
  const call = httpCall(sandbox.url)
  const partner = await startPartnerPage()

  const me = await call('GET', '/api/v1/partner/me')
  expect(me.status, me.text).toBe(200)
  const origins = [...(me.json.partner.allowed_origins as string[]), partner.origin]
  const patched = await call('PATCH', '/api/v1/partner/me', { body: { allowed_origins: origins } })
  expect(patched.status, patched.text).toBe(200)
  expect(patched.json.partner.allowed_origins).toContain(partner.origin)

  const receiver = await startReceiver()
  cleanup.push(() => receiver.close())
  const hook = await call('POST', '/api/v1/partner/webhooks', {
    body: { url: receiver.url, events: ONBOARDING_EVENTS },
  })
  expect(hook.status, hook.text).toBe(201)

  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  })
  cleanup.push(() => context.close())
  const page = await context.newPage()
  return { sandbox, call, partner, receiver, secret: hook.json.secret as string, page }
}

async function startOnboarding(call: Call, auth: Record<string, string>, body: object) {
  const res = await call('POST', ONBOARDING, { headers: auth, body })
  expect(res.status, res.text).toBe(200)
  return res.json.data as {
    onboardingEmbedUrl: string
    accessToken: string
    onboardingId: string
    consumerId: string
    status: string
  }
}

async function latest(call: Call, auth: Record<string, string>) {
  const res = await call('GET', `${ONBOARDING}/latest`, { headers: auth })
  expect(res.status, res.text).toBe(200)
  expect(res.json.success, res.text).toBe(true)
  return res.json.data
}

/** Waits until the partner page got `count` messages; answers them all. */
async function messagesOf(page: Page, count = 1): Promise<Received[]> {
  await page.waitForFunction(`window.messages.length >= ${count}`, undefined, {
    timeout: UI_TIMEOUT,
  })
  return (await page.evaluate('window.messages')) as Received[]
}

/** The parsed envelope of one delivery, after checking both signatures on its exact bytes. */
function verifiedEvent(secret: string, r: ReceivedRequest) {
  const stripeEvent = new Stripe('sk_test_x').webhooks.constructEvent(
    r.body,
    String(r.headers['x-service-signature']),
    secret,
  )
  const standard = new Webhook(secret).verify(r.body, r.headers as Record<string, string>)
  expect(standard).toEqual(stripeEvent)
  // biome-ignore lint/suspicious/noExplicitAny: the envelope is asserted field by field
  return stripeEvent as any
}

const typeOf = (r: ReceivedRequest): string => JSON.parse(r.body.toString('utf8')).type

/** Waits (real time, with a deadline) for a delivery of this event type; flushes due work. */
async function deliveryOf(call: Call, receiver: Receiver, type: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = receiver.requests.find((r) => typeOf(r) === type)
    if (found) return found
    if (Date.now() > deadline) {
      throw new Error(
        `no ${type} delivery within ${timeoutMs} ms; got: ${receiver.requests.map(typeOf).join(', ') || 'nothing'}`,
      )
    }
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Every step of the hosted flow, accepted, in a page or a frame; `answers` of underwriting. */
async function walkFlow(scope: Page | FrameLocator, answers: [string, string, string]) {
  await scope.getByTestId('identity-confirm').check({ timeout: UI_TIMEOUT })
  await scope.getByTestId('identity-submit').click()
  await scope.getByTestId('employment-status').selectOption(answers[0])
  await scope.getByTestId('annual-income').selectOption(answers[1])
  await scope.getByTestId('source-of-funds').selectOption(answers[2])
  await scope.getByTestId('underwriting-submit').click()
  await scope.getByTestId('agreement-accept').check({ timeout: UI_TIMEOUT })
  await scope.getByTestId('agreement-submit').click()
}

/**
 * A partner with only the fixtures' any-port origins, framing a new onboarding from a dev
 * server on a port nobody listed, reached as `host`: the flow walked to its end, the page
 * waiting, and its message received by that page's own origin (found through the entry).
 */
async function frameFromDevServer(
  { sandbox, call, page }: Awaited<ReturnType<typeof setup>>,
  host: 'localhost' | '127.0.0.1',
  answers: [string, string, string],
) {
  const fixtureOnly = await call('PATCH', '/api/v1/partner/me', {
    body: { allowed_origins: ['http://localhost:*', 'http://127.0.0.1:*'] },
  })
  expect(fixtureOnly.status, fixtureOnly.text).toBe(200)
  const devServer = await startPartnerPage()
  const { user, bearer } = await registerAndLogin(call)
  const start = await startOnboarding(call, bearer, onboardingApplicant(user))
  await page.goto(devServer.pageFor(start.onboardingEmbedUrl).replace('127.0.0.1', host))
  const frame = page.frameLocator('#onboarding')
  await walkFlow(frame, answers)
  await frame
    .locator('[data-testid="result"][data-state="waiting"]')
    .waitFor({ timeout: UI_TIMEOUT })
  const [message] = await messagesOf(page)
  expect(message?.origin).toBe(sandbox.url)
  expect(message?.data).toMatchObject({ onboardingId: start.onboardingId, result: 'pass' })
  return { call, frame, start }
}

describeWithBrowser('hosted onboarding in a real browser, embedded in a partner page', () => {
  beforeAll(async () => {
    browser = await launchBrowser()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
  })

  it(
    'approves: every step in the iframe, the postMessage to the parent, completion, an active card and a signed card.created',
    async () => {
      const { sandbox, call, partner, receiver, secret, page } = await setup()
      const { user, userId, bearer } = await registerAndLogin(call)
      const start = await startOnboarding(call, bearer, onboardingApplicant(user))
      expect(new URL(start.onboardingEmbedUrl).origin).toBe(sandbox.url)
      expect(await latest(call, bearer)).toMatchObject({
        onboardingId: start.onboardingId,
        status: 'pending',
        current_step: 'identity_verification',
        steps: { identity_verification: false, underwriting: false, agreement: false },
      })

      await page.goto(partner.pageFor(start.onboardingEmbedUrl))
      const frame = page.frameLocator('#onboarding')

      // 1. Identity: the applicant's details, the SSN masked.
      await frame.getByTestId('step-identity').waitFor({ timeout: UI_TIMEOUT })
      expect(await frame.getByTestId('partner-name').textContent()).toBeTruthy()
      expect(await frame.getByTestId('identity-name').textContent()).toBe(
        `${user.first_name} ${user.last_name}`,
      )
      expect(await frame.getByTestId('identity-ssn').textContent()).toBe('•••-••-4321')
      await frame.getByTestId('identity-confirm').check()
      await frame.getByTestId('identity-submit').click()

      // 2. Underwriting.
      await frame.getByTestId('step-underwriting').waitFor({ timeout: UI_TIMEOUT })
      expect(await frame.getByTestId('step-identity').isHidden()).toBe(true)
      expect(await latest(call, bearer)).toMatchObject({
        status: 'in_progress',
        current_step: 'underwriting',
        steps: { identity_verification: true, underwriting: false, agreement: false },
        flow_result: null,
      })
      await frame.getByTestId('employment-status').selectOption('employed')
      await frame.getByTestId('annual-income').selectOption('50k_100k')
      await frame.getByTestId('source-of-funds').selectOption('salary')
      await frame.getByTestId('underwriting-submit').click()

      // 3. Agreement.
      await frame.getByTestId('step-agreement').waitFor({ timeout: UI_TIMEOUT })
      expect(await latest(call, bearer)).toMatchObject({
        status: 'in_progress',
        current_step: 'agreement',
        steps: { identity_verification: true, underwriting: true, agreement: false },
      })
      await frame.getByTestId('agreement-accept').check()
      await frame.getByTestId('agreement-submit').click()

      // 4. Result, and the message to the parent page. The flow's end is not the card: the
      // page says the answers went to the app and waits for the partner's completion.
      const result = frame.getByTestId('result')
      await result.waitFor({ timeout: UI_TIMEOUT })
      expect(await result.getAttribute('data-outcome')).toBe('approved')
      expect(await result.getAttribute('data-state')).toBe('waiting')
      expect(await frame.getByTestId('result-title').textContent()).toBe('Application sent')
      expect(await frame.getByTestId('result-detail').textContent()).not.toContain('issued.')
      expect(await frame.getByTestId('result-state').textContent()).toMatch(
        /^Waiting for .+ to confirm/,
      )

      const messages = await messagesOf(page)
      expect(messages).toHaveLength(1)
      const [message] = messages as [Received]
      expect(message.origin).toBe(sandbox.url)
      expect(message.data).toEqual({
        type: 'partner-sandbox:onboarding',
        version: 1,
        onboardingId: start.onboardingId,
        result: 'pass',
        outcome: 'approved',
        reason: null,
        agreementAccepted: true,
        data: {
          onboardingId: start.onboardingId,
          consumerId: start.consumerId,
          outcome: 'approved',
          steps: {
            identity_verification: expect.any(String),
            underwriting: expect.any(String),
            agreement: expect.any(String),
          },
          underwriting: {
            employment_status: 'employed',
            annual_income: '50k_100k',
            source_of_funds: 'salary',
          },
        },
      })
      expect(await latest(call, bearer)).toMatchObject({
        status: 'in_progress',
        current_step: 'result',
        steps: { identity_verification: true, underwriting: true, agreement: true },
        flow_result: 'pass',
        card_id: null,
      })
      await screenshot(page, 'approved')

      // 5. The partner's backend completes with what the page sent.
      const done = await call('POST', `${ONBOARDING}/${start.onboardingId}/complete`, {
        headers: bearer,
        body: {
          result: message.data.result,
          data: message.data.data,
          agreement_accepted: message.data.agreementAccepted,
        },
      })
      expect(done.status, done.text).toBe(200)
      expect(done.json.data).toMatchObject({
        onboardingId: start.onboardingId,
        status: 'completed',
        result: 'pass',
        consumer: { kyc_status: 'approved', provider_consumer_id: start.consumerId },
        card: { status: 'active' },
      })
      const cardId = done.json.data.card.id as string

      const status = await call('GET', '/api/v1/partner/cards/status', { headers: bearer })
      expect(status.status, status.text).toBe(200)
      const { card, ...rest } = status.json.data
      expect(rest).toMatchObject({
        user_id: userId,
        kyc_status: 'approved',
        provider_consumer_id: start.consumerId,
        onboarding: { onboardingId: start.onboardingId, status: 'completed' },
      })
      expect(card).toMatchObject({ id: cardId, status: 'active' })
      expect(card.last4).toMatch(/^\d{4}$/)

      // The page, still open, polled its own status and now shows the real outcome.
      await frame
        .locator('[data-testid="result"][data-state="completed"]')
        .waitFor({ timeout: UI_TIMEOUT })
      expect(await frame.getByTestId('result-title').textContent()).toBe('You are approved')
      expect(await frame.getByTestId('result-detail').textContent()).toContain(
        `Your card ending ${card.last4} is issued.`,
      )
      await screenshot(page, 'approved-completed')
      expect(card.exp_month).toBeGreaterThanOrEqual(1)
      expect(card.exp_month).toBeLessThanOrEqual(12)
      expect(card.exp_year).toBeGreaterThan(new Date(sandbox.clock.now()).getUTCFullYear())

      // 6. A signed card.created for that card reached the partner's receiver.
      const delivery = await deliveryOf(call, receiver, 'card.created')
      const event = verifiedEvent(secret, delivery)
      expect(event).toMatchObject({
        type: 'card.created',
        object: 'event',
        data: { object: { object: 'card', id: cardId, user_id: userId, status: 'active' } },
      })
      await deliveryOf(call, receiver, 'onboarding.completed')
      expect(receiver.requests.map(typeOf)).not.toContain('onboarding.failed')
    },
    BROWSER_TEST_TIMEOUT,
  )

  it(
    'declines at KYC (magic SSN 000000001): the result right after identity, a fail message, no card, onboarding.failed',
    async () => {
      const { sandbox, call, partner, receiver, secret, page } = await setup()
      const { user, bearer } = await registerAndLogin(call)
      const start = await startOnboarding(
        call,
        bearer,
        onboardingApplicant(user, { ssn: '000-00-0001' }),
      )

      await page.goto(partner.pageFor(start.onboardingEmbedUrl))
      const frame = page.frameLocator('#onboarding')
      await frame.getByTestId('step-identity').waitFor({ timeout: UI_TIMEOUT })
      expect(await frame.getByTestId('identity-ssn').textContent()).toBe('•••-••-0001')
      await frame.getByTestId('identity-confirm').check()
      await frame.getByTestId('identity-submit').click()

      const result = frame.getByTestId('result')
      await result.waitFor({ timeout: UI_TIMEOUT })
      expect(await result.getAttribute('data-outcome')).toBe('declined')
      expect(await frame.getByTestId('result-title').textContent()).toBe('We could not approve you')
      expect(await frame.getByTestId('result-detail').textContent()).toContain(
        'identity verification failed',
      )
      // The flow ends there: no underwriting questions, no agreement.
      expect(await frame.getByTestId('step-underwriting').isHidden()).toBe(true)
      expect(await frame.getByTestId('step-agreement').isHidden()).toBe(true)

      const [message, ...more] = await messagesOf(page)
      expect(more).toEqual([])
      expect(message?.origin).toBe(sandbox.url)
      expect(message?.data).toMatchObject({
        type: 'partner-sandbox:onboarding',
        version: 1,
        onboardingId: start.onboardingId,
        result: 'fail',
        outcome: 'declined',
        reason: 'identity_verification_failed',
        agreementAccepted: false,
        data: { onboardingId: start.onboardingId, outcome: 'declined', underwriting: null },
      })
      expect(await latest(call, bearer)).toMatchObject({
        current_step: 'result',
        steps: { identity_verification: true, underwriting: false, agreement: false },
        flow_result: 'fail',
      })
      await screenshot(page, 'kyc-declined')

      const done = await call('POST', `${ONBOARDING}/${start.onboardingId}/complete`, {
        headers: bearer,
        body: {
          result: message?.data.result,
          data: message?.data.data,
          agreement_accepted: message?.data.agreementAccepted,
        },
      })
      expect(done.status, done.text).toBe(200)
      expect(done.json.data).toMatchObject({
        status: 'failed',
        result: 'fail',
        card: null,
        consumer: { kyc_status: 'rejected', provider_consumer_id: null },
        failure_reason: 'identity_verification_failed',
      })

      const status = await call('GET', '/api/v1/partner/cards/status', { headers: bearer })
      expect(status.json.data).toMatchObject({
        kyc_status: 'rejected',
        card: null,
        onboarding: {
          onboardingId: start.onboardingId,
          status: 'failed',
          failure_reason: 'identity_verification_failed',
        },
      })

      const failed = verifiedEvent(secret, await deliveryOf(call, receiver, 'onboarding.failed'))
      expect(failed.data.object).toMatchObject({
        object: 'onboarding',
        id: start.onboardingId,
        status: 'failed',
        failure_reason: 'identity_verification_failed',
        card_id: null,
      })
      // card.created would have been recorded in the same write as onboarding.failed.
      await call('POST', '/_sandbox/webhooks/flush', { creds: null })
      expect(receiver.requests.map(typeOf).sort()).toEqual([
        'onboarding.failed',
        'onboarding.started',
      ])
    },
    BROWSER_TEST_TIMEOUT,
  )

  it(
    'shows the error page for an expired link (clock +61 min) and for a wrong access token',
    async () => {
      const { sandbox, call, partner, page } = await setup()
      const { user, bearer } = await registerAndLogin(call)
      const first = await startOnboarding(call, bearer, onboardingApplicant(user))
      const frame = page.frameLocator('#onboarding')
      const embedResponse = () =>
        page.waitForResponse((r: Response) =>
          r.url().startsWith(`${sandbox.url}/embed/onboarding?`),
        )

      // The link open on the phone expires under the user's feet: the step is refused.
      await page.goto(partner.pageFor(first.onboardingEmbedUrl))
      await frame.getByTestId('step-identity').waitFor({ timeout: UI_TIMEOUT })
      const advanced = await call('POST', '/_sandbox/clock/advance', {
        creds: null,
        body: { by: '61m' },
      })
      expect(advanced.status, advanced.text).toBe(200)
      await frame.getByTestId('identity-confirm').check()
      await frame.getByTestId('identity-submit').click()
      const alert = frame.getByTestId('error')
      await alert.waitFor({ timeout: UI_TIMEOUT })
      expect(await alert.textContent()).toContain('expired')
      expect(await frame.getByTestId('step-identity').isVisible()).toBe(true)

      // Opening the expired link again: the error page, 410.
      const expiredResponse = embedResponse()
      await page.goto(partner.pageFor(first.onboardingEmbedUrl))
      const expired = await expiredResponse
      expect(expired.status()).toBe(410)
      // Chromium keeps a 410 fresh forever unless told otherwise: the superseded link below
      // would then show this cached "Link expired" page instead of the server's answer.
      expect(await expired.headerValue('cache-control')).toBe('no-store')
      await frame.getByTestId('embed-error').waitFor({ timeout: UI_TIMEOUT })
      expect(await frame.getByTestId('embed-error-title').textContent()).toBe('Link expired')
      expect(await frame.getByTestId('embed-error-message').textContent()).toMatch(
        /expired.*Start the onboarding again/,
      )
      expect(await frame.getByTestId('onboarding').count()).toBe(0)
      await screenshot(page, 'link-expired')

      // Starting again resumes with a new token; a tampered token is refused: 401.
      const second = await startOnboarding(call, bearer, onboardingApplicant(user))
      expect(second.onboardingId).toBe(first.onboardingId)
      const wrong = new URL(second.onboardingEmbedUrl)
      wrong.searchParams.set('access_token', `obt_${'x'.repeat(40)}`)
      const wrongResponse = embedResponse()
      await page.goto(partner.pageFor(wrong.toString()))
      expect((await wrongResponse).status()).toBe(401)
      await frame.getByTestId('embed-error').waitFor({ timeout: UI_TIMEOUT })
      expect(await frame.getByTestId('embed-error-title').textContent()).toBe('Link not valid')
      expect(await frame.getByTestId('embed-error-message').textContent()).toContain('not valid')

      // The superseded token (from the first start) is refused too; the new one works.
      const staleResponse = embedResponse()
      await page.goto(partner.pageFor(first.onboardingEmbedUrl))
      expect((await staleResponse).status()).toBe(401)
      await frame.getByTestId('embed-error').waitFor({ timeout: UI_TIMEOUT })
      await page.goto(partner.pageFor(second.onboardingEmbedUrl))
      await frame.getByTestId('step-identity').waitFor({ timeout: UI_TIMEOUT })
      expect(await page.evaluate('window.messages')).toEqual([])
    },
    BROWSER_TEST_TIMEOUT,
  )

  it(
    'refuses to be framed by an origin that is not in allowed_origins (CSP frame-ancestors), and logs why',
    async () => {
      const lines: string[] = []
      const { sandbox, call, partner, page } = await setup({ onLog: (l) => lines.push(l) })
      // Only the partner page's exact origin: the fixtures' any-port entries would allow the
      // stranger, which is on 127.0.0.1 as well.
      const only = await call('PATCH', '/api/v1/partner/me', {
        body: { allowed_origins: [partner.origin] },
      })
      expect(only.status, only.text).toBe(200)
      const stranger = await startPartnerPage() // not added to allowed_origins
      const { user, bearer } = await registerAndLogin(call)
      const start = await startOnboarding(call, bearer, onboardingApplicant(user))

      const served = page.waitForResponse((r: Response) =>
        r.url().startsWith(`${sandbox.url}/embed/onboarding?`),
      )
      await page.goto(stranger.pageFor(start.onboardingEmbedUrl))
      const response = await served
      expect(response.status()).toBe(200)
      const csp = (await response.headerValue('content-security-policy')) ?? ''
      const ancestors = /frame-ancestors ([^;]*)/.exec(csp)?.[1]?.split(' ') ?? []
      expect(ancestors).toContain(partner.origin)
      expect(ancestors).not.toContain(stranger.origin)

      // The browser enforces it: the iframe never shows the onboarding.
      await page.waitForFunction('window.frameLoads > 0', undefined, { timeout: UI_TIMEOUT })
      const frame = page.frameLocator('#onboarding')
      await expect(
        frame.getByTestId('onboarding').waitFor({ state: 'attached', timeout: 3_000 }),
      ).rejects.toThrow(/Timeout/)
      const child = page.frames().find((f) => f !== page.mainFrame())
      expect(child?.url() ?? '').not.toContain('/embed/onboarding')
      expect(await page.evaluate('window.messages')).toEqual([])
      await screenshot(page, 'frame-refused')
      // The sandbox said it, naming the refused origin and how to allow it.
      const warning = lines.find((l) => l.includes('framed by')) ?? ''
      expect(warning).toContain(stranger.origin)
      expect(warning).toContain('allowed_origins')
      expect(warning).toContain('PATCH /api/v1/partner/me')
      const refusals = lines.filter((l) => l.includes('framed by')).length

      // The same link in the allowed partner's page loads (so the refusal above is the CSP).
      await page.goto(partner.pageFor(start.onboardingEmbedUrl))
      await frame.getByTestId('step-identity').waitFor({ timeout: UI_TIMEOUT })
      expect(await latest(call, bearer)).toMatchObject({
        status: 'pending',
        steps: { identity_verification: false, underwriting: false, agreement: false },
      })
      expect(lines.filter((l) => l.includes('framed by'))).toHaveLength(refusals)
    },
    BROWSER_TEST_TIMEOUT,
  )

  it(
    'frames from any 127.0.0.1 port with the fixture origins: the message arrives, the page waits, then shows the control-plane completion',
    async () => {
      const { call, frame, start } = await frameFromDevServer(await setup(), '127.0.0.1', [
        'student',
        'under_25k',
        'savings',
      ])

      // The dashboard's completion (control plane) is what the page then shows.
      const done = await call('POST', `/_sandbox/onboardings/${start.onboardingId}/complete`, {
        creds: null,
        body: {},
      })
      expect(done.status, done.text).toBe(200)
      await frame
        .locator('[data-testid="result"][data-state="completed"]')
        .waitFor({ timeout: UI_TIMEOUT })
      expect(await frame.getByTestId('result-detail').textContent()).toContain(
        `Your card ending ${done.json.card.last4} is issued.`,
      )
    },
    BROWSER_TEST_TIMEOUT,
  )

  it(
    "frames from any localhost port (Vite's and Angular's default host) with the fixture origins, logging no refusal",
    async () => {
      const lines: string[] = []
      await frameFromDevServer(await setup({ onLog: (l) => lines.push(l) }), 'localhost', [
        'employed',
        '25k_50k',
        'salary',
      ])
      expect(lines.filter((l) => l.includes('framed by'))).toEqual([])
    },
    BROWSER_TEST_TIMEOUT,
  )

  it(
    'in a plain tab (no redirect_uri, no opener) with auto_complete: the page ends on the real card',
    async () => {
      const { call, page } = await setup()
      const created = await call('POST', '/_sandbox/partners', {
        creds: null,
        body: { name: 'Tab Wallet', auto_complete: true },
      })
      expect(created.status, created.text).toBe(201)
      const creds = { key: created.json.api_key, secret: created.json.api_secret }
      const { user, bearer } = await registerAndLogin(call, {}, creds)
      const res = await call('POST', ONBOARDING, {
        creds,
        headers: bearer,
        body: onboardingApplicant(user),
      })
      expect(res.status, res.text).toBe(200)
      await page.goto(res.json.data.onboardingEmbedUrl)
      expect(await page.getByTestId('partner-name').textContent()).toBe('Tab Wallet')
      await walkFlow(page, ['employed', '50k_100k', 'salary'])
      await page
        .locator('[data-testid="result"][data-state="completed"]')
        .waitFor({ timeout: UI_TIMEOUT })
      const status = await call('GET', '/api/v1/partner/cards/status', { creds, headers: bearer })
      expect(status.json.data).toMatchObject({ kyc_status: 'approved', card: { status: 'active' } })
      expect(await page.getByTestId('result-title').textContent()).toBe('You are approved')
      expect(await page.getByTestId('result-detail').textContent()).toBe(
        `Your card ending ${status.json.data.card.last4} is issued. You can return to Tab Wallet.`,
      )
      await screenshot(page, 'plain-tab-auto-complete')
    },
    BROWSER_TEST_TIMEOUT,
  )

  it(
    'opened after the flow was walked headlessly and completed: the page shows the outcome, not a blank step',
    async () => {
      const { call, page } = await setup()
      const { user, bearer } = await registerAndLogin(call)
      const start = await startOnboarding(call, bearer, onboardingApplicant(user))
      const done = await walkAndComplete(call, start.onboardingId, {
        headers: bearer,
        body: { result: 'pass', data: { from: 'backend' }, agreement_accepted: true },
      })
      expect(done.status, done.text).toBe(200)
      await page.goto(start.onboardingEmbedUrl)
      await page
        .locator('[data-testid="result"][data-state="completed"]')
        .waitFor({ timeout: UI_TIMEOUT })
      expect(await page.getByTestId('result-title').textContent()).toBe('You are approved')
      expect(await page.getByTestId('result-detail').textContent()).toContain(
        `Your card ending ${done.json.data.card.last4} is issued.`,
      )
    },
    BROWSER_TEST_TIMEOUT,
  )
})
