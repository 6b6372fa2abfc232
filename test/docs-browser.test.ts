/**
 * /docs in a real browser: Swagger UI renders every operation of /openapi.json from files this
 * sandbox serves, with the default credentials filled in, and "Execute" calls this sandbox.
 * Every request the page makes is logged by route interception; none may leave 127.0.0.1.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { describeWithBrowser, launchBrowser } from './browser.js'
import { recordRequests, saveScreenshot } from './screenshots.js'

let browser: Browser | undefined
let sandbox: RunningSandbox | undefined

describeWithBrowser('/docs API reference in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser()
    sandbox = await startSandbox({ port: 0, logLevel: 'silent' })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await sandbox?.close()
  })

  it('renders every operation offline and tries one against this sandbox', async () => {
    if (!browser || !sandbox) throw new Error('no browser or sandbox')
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const log = await recordRequests(page)
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${sandbox.url}/docs`)
    await page.locator('[data-ready="true"]').waitFor({ timeout: 20_000 })

    const doc = (await (await fetch(`${sandbox.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>
      webhooks: Record<string, Record<string, { operationId?: string }>>
    }
    // The API's operations and the webhook delivery the document describes (OpenAPI 3.1).
    const operations = [...Object.values(doc.paths), ...Object.values(doc.webhooks)].flatMap((p) =>
      Object.keys(p),
    )
    await expect.poll(() => page.locator('.opblock').count()).toBe(operations.length)

    // The partner's own profile, tried from the page with the prefilled key and secret.
    const me = page.locator('.opblock-get:has([data-path="/api/v1/partner/me"])').first()
    await me.locator('.opblock-summary').click()
    // It opens to be read: the first button offers to try it, none says "Cancel" yet.
    const first = me.locator('.opblock-body button').first()
    await first.waitFor()
    expect((await first.textContent())?.trim()).toBe('Try it out')
    expect(await me.getByRole('button', { name: 'Cancel' }).count()).toBe(0)
    await first.click()
    await me.getByRole('button', { name: 'Execute' }).click()
    const live = me.locator('.live-responses-table tbody .response-col_status').first()
    await expect.poll(() => live.textContent(), { timeout: 10_000 }).toContain('200')
    expect(await me.locator('.live-responses-table tbody').first().textContent()).toContain(
      DEFAULT_PARTNER.slug,
    )
    // Request and response schemas are shown, not only paths.
    expect(await me.locator('.responses-table').first().textContent()).toContain('partner')

    await saveScreenshot(page, 'docs-top')
    await me.scrollIntoViewIfNeeded()
    await saveScreenshot(page, 'docs-try-it')
    expect(log.outside).toEqual([])
    expect(log.requests.some((u) => u.endsWith('/openapi.json'))).toBe(true)
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)
})
