import { defineConfig } from 'vitest/config'

/** The bounded soak (test/soak/), run after the suite so nothing else shares its machine. */
export default defineConfig({
  test: {
    include: ['test/soak/**/*.soak.ts'],
    // The CLI the soak starts, bundled from the sources (test/cli-build.ts).
    globalSetup: ['test/cli-build.ts'],
    pool: 'forks',
    hookTimeout: 60_000,
  },
})
