/**
 * The one place browser tests get their browser. Write a browser suite as
 *
 *   describeWithBrowser('hosted page in a real browser', () => {
 *     let browser: Browser
 *     beforeAll(async () => { browser = await launchBrowser() })
 *     afterAll(() => browser?.close())
 *     it(...)
 *   })
 *
 * The browser is the first usable one of: `CHROMIUM_PATH`, Playwright's own installed
 * Chromium (`npx playwright install chromium`), a system Chromium or Chrome. "Usable" means it
 * starts and prints its version. Without one the suite is skipped (test/browser-setup.ts prints
 * one line naming the skipped suites and how to enable them), so `npm install && npm test`
 * passes on a machine without a browser; with `CI=true` a missing browser fails the suite.
 */
import { spawnSync } from 'node:child_process'
import { accessSync, appendFileSync, constants, readdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'
import { type Browser, chromium } from 'playwright-core'
import { describe, it } from 'vitest'
import { HOW_TO_ENABLE, SKIPPED_SUITES_FILE_ENV } from './browser-setup.js'

const SYSTEM_BROWSERS = [
  'chromium',
  'chromium-browser',
  'google-chrome',
  'google-chrome-stable',
  'chrome',
]
const MAC_BROWSERS = [
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
]

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Playwright's browsers: the exact revision playwright-core wants first, then any other. */
function playwrightBrowsers(): string[] {
  const found: string[] = []
  try {
    found.push(chromium.executablePath())
  } catch {}
  const root = process.env.PLAYWRIGHT_BROWSERS_PATH || join(homedir(), '.cache', 'ms-playwright')
  try {
    for (const dir of readdirSync(root).sort().reverse()) {
      if (dir.startsWith('chromium_headless_shell-'))
        found.push(join(root, dir, 'chrome-headless-shell-linux64', 'chrome-headless-shell'))
      else if (dir.startsWith('chromium-')) {
        found.push(join(root, dir, 'chrome-linux64', 'chrome'))
        found.push(join(root, dir, 'chrome-linux', 'chrome'))
      }
    }
  } catch {}
  return found
}

const onPath = (name: string): string[] =>
  (process.env.PATH ?? '').split(delimiter).flatMap((dir) => (dir ? [join(dir, name)] : []))

/** Every place a browser may be, in order of preference. */
export function browserCandidates(): string[] {
  const explicit = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : []
  return [...explicit, ...playwrightBrowsers(), ...SYSTEM_BROWSERS.flatMap(onPath), ...MAC_BROWSERS]
}

/** Starts the binary once with --version: a file that exists but cannot run is not usable. */
function runs(path: string): boolean {
  if (!executable(path)) return false
  const result = spawnSync(path, ['--version'], { stdio: 'ignore', timeout: 15_000 })
  return result.status === 0
}

let memo: { path: string | undefined } | undefined

/** The first usable browser's executable, or undefined. Checked once per test file. */
export function findBrowser(): string | undefined {
  if (!memo) memo = { path: browserCandidates().find(runs) }
  return memo.path
}

/** Launches the found browser headless (closing it is the caller's job). */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = findBrowser()
  if (!executablePath) throw new Error(`No usable browser: ${HOW_TO_ENABLE}.`)
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
}

/**
 * `describe` for a suite that needs a browser: runs it when one is found, skips it (and
 * reports it) when none is, fails it when none is and CI=true.
 */
export function describeWithBrowser(name: string, fn: () => void): void {
  if (findBrowser()) {
    describe(name, fn)
    return
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('has a browser to run in (CI=true)', () => {
        throw new Error(`No usable browser for "${name}": ${HOW_TO_ENABLE}.`)
      })
    })
    return
  }
  const file = process.env[SKIPPED_SUITES_FILE_ENV]
  if (file) appendFileSync(file, `${name}\n`)
  else console.warn(`Skipped browser suite "${name}": no usable browser; ${HOW_TO_ENABLE}.`)
  describe.skip(name, fn)
}
