/**
 * vitest globalSetup: the test files (in worker processes) append the suites they skip for
 * want of a browser to one file; after the run this prints them as ONE plain line, instead of
 * a warning per file lost between test results.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Where the test files collect the names of skipped suites (one per line). */
export const SKIPPED_SUITES_FILE_ENV = 'PARTNER_SANDBOX_SKIPPED_BROWSER_SUITES'

export const HOW_TO_ENABLE =
  'install Chromium (Debian/Ubuntu: `apt-get install -y chromium`) or Chrome, ' +
  'or run `npx playwright install chromium`, or set CHROMIUM_PATH to a Chromium/Chrome binary'

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-browser-'))
  const file = join(dir, 'skipped')
  process.env[SKIPPED_SUITES_FILE_ENV] = file
  return () => {
    let names: string[] = []
    try {
      names = readFileSync(file, 'utf8').split('\n').filter(Boolean)
    } catch {}
    rmSync(dir, { recursive: true, force: true })
    if (names.length === 0) return
    const list = [...new Set(names)].map((name) => `"${name}"`).join(', ')
    console.log(
      `\nSkipped browser suites (no usable browser found): ${list}. To run them, ${HOW_TO_ENABLE}.\n`,
    )
  }
}
