import { defineConfig } from 'vitest/config'

/** The bounded soak (test/soak/), run after the suite so nothing else shares its machine. */
export default defineConfig({
  test: {
    include: ['test/soak/**/*.soak.ts'],
    pool: 'forks',
    hookTimeout: 60_000,
  },
})
