import { randomBytes } from 'node:crypto'
import { describe } from 'vitest'
import { DATABASE_ENV } from './postgres-setup.js'

/** The run's PostgreSQL server (test/postgres-setup.ts), when PostgreSQL is installed. */
export const testDatabase = process.env[DATABASE_ENV]

/** A suite that needs PostgreSQL: skipped (and reported once) when it is not installed. */
export function describePostgres(name: string, fn: () => void): void {
  if (testDatabase) describe(name, fn)
  else describe.skip(name, fn)
}

/** A URL naming a new, empty schema of the test server: one sandbox's own database. */
export function freshDatabaseUrl(): string {
  if (!testDatabase) throw new Error('no test PostgreSQL server (see test/postgres-setup.ts)')
  return `${testDatabase}?schema=t_${randomBytes(6).toString('hex')}`
}
