import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { repoRoot } from './cli-process.js'

/** Where browser tests keep screenshots to look at: .scratch/ is git-ignored. */
export const screenshotDir = join(repoRoot, '.scratch', 'screenshots')

export async function saveScreenshot(page: Page, name: string, fullPage = false): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true })
  const path = join(screenshotDir, `${name}.png`)
  await page.screenshot({ path, fullPage })
  return path
}

/**
 * Routes every request of a page through a log; anything not for 127.0.0.1 is aborted and
 * recorded, so a test can assert the page works offline and reaches nothing else.
 */
export async function recordRequests(page: Page) {
  const requests: string[] = []
  const outside: string[] = []
  await page.route('**/*', (route) => {
    const url = route.request().url()
    requests.push(url)
    const { protocol, hostname } = new URL(url)
    if (protocol === 'data:' || protocol === 'blob:' || hostname === '127.0.0.1')
      return route.continue()
    outside.push(url)
    return route.abort()
  })
  return { requests, outside }
}
