import { readFileSync } from 'node:fs'
import { defineConfig } from 'vitest/config'

/** The workflow parser ships source maps without their sources: read it without them (quiet). */
const withoutSourceMaps = {
  name: 'workflow-parser-without-source-maps',
  enforce: 'pre' as const,
  load(id: string) {
    if (!/@actions[\\/]workflow-parser[\\/].*\.js$/.test(id)) return null
    return readFileSync(id, 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, '')
  },
}

export default defineConfig({
  plugins: [withoutSourceMaps],
  test: {
    include: ['test/**/*.test.ts'],
    // examples/ run with `npm run test:examples` (their own configs; Playwright for the browser).
    exclude: ['examples/**', 'node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Reports browser suites skipped for want of a browser (test/browser.ts) in one line, and
    // starts the run's PostgreSQL server (test/postgres-setup.ts).
    globalSetup: ['test/browser-setup.ts', 'test/postgres-setup.ts'],
    // GitHub's workflow parser imports its schema JSON without an import attribute, as bundlers
    // allow and Node does not: Vite transforms it (test/workflows.test.ts).
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
})
