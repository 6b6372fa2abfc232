import { defineConfig } from 'vitest/config'

/** The in-process example: no port, no browser; each test builds its own sandbox. */
export default defineConfig({
  test: { root: import.meta.dirname, include: ['*.test.ts'], testTimeout: 20_000 },
})
