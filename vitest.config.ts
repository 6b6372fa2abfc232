import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // examples/ run with `npm run test:examples` (their own configs; Playwright for the browser).
    exclude: ['examples/**', 'node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Reports browser suites skipped for want of a browser (test/browser.ts) in one line.
    globalSetup: ['test/browser-setup.ts'],
  },
})
