/**
 * vitest globalSetup: one throwaway PostgreSQL server for the whole run (test/postgres-server.ts),
 * its URL handed to the test files in PARTNER_SANDBOX_TEST_DATABASE; each test makes its own
 * schema in it (test/postgres.ts). Without PostgreSQL installed the engine's suites are skipped,
 * and this says so in one line after the run.
 */
import { startPostgres } from './postgres-server.js'

export const DATABASE_ENV = 'PARTNER_SANDBOX_TEST_DATABASE'

export default async function setup(): Promise<() => void> {
  const server = await startPostgres()
  if (!server) {
    return () =>
      console.log(
        '\nSkipped the PostgreSQL engine suites: PostgreSQL is not installed ' +
          '(Debian/Ubuntu: `apt-get install -y postgresql`, or set PG_BIN to its bin folder).\n',
      )
  }
  process.env[DATABASE_ENV] = server.url
  return () => server.stop()
}
