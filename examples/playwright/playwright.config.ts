import { defineConfig } from '@playwright/test'

/**
 * The e2e suite of a partner's web app, with partner-sandbox as its card service. No browser
 * download: Debian's Chromium (or CHROMIUM_PATH). Each worker gets its own sandbox partner
 * (fixtures.ts), so the workers run in parallel without seeing each other.
 */
export default defineConfig({
  testDir: './tests',
  globalSetup: './global-setup.ts',
  fullyParallel: true,
  workers: Number(process.env.EXAMPLE_WORKERS ?? 2),
  forbidOnly: !!process.env.CI,
  reporter: process.env.CI ? 'line' : 'list',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    },
    viewport: { width: 420, height: 900 },
    trace: 'retain-on-failure',
  },
})
