import postgres from 'postgres'
import { sandboxOptionsSchema } from '../config.js'
import { databaseError } from '../state/database-error.js'
import { maskDatabaseUrl } from '../state/database-url.js'
import { migrate, quoteIdent } from '../state/postgres/migrate.js'
import { migrations } from '../state/postgres/migrations.js'
import { parseDatabaseUrl } from '../state/postgres/postgres-state.js'
import { migrateCommand } from './command-specs.js'
import { helpHint, type Parsed } from './flags.js'

type Fail = (message: string, code?: number) => never

/**
 * `partner-sandbox migrate`: the database from `--database`, else SANDBOX_DATABASE_URL, else
 * SANDBOX_DATABASE (the order the sandbox itself reads them in); one line of what it did.
 */
export async function runMigrate(parsed: Parsed, fail: Fail, print: (line: string) => void) {
  if (parsed.positionals.length > 0)
    fail(`migrate takes no arguments (got ${parsed.positionals.join(' ')})`, 2)
  const [typed, url] = databaseOption(parsed.values.database as string | undefined)
  if (url === undefined)
    fail(
      `migrate needs a database: --database URL or SANDBOX_DATABASE_URL\n${helpHint(migrateCommand)}`,
      2,
    )
  const valid = sandboxOptionsSchema.shape.database.safeParse(url)
  if (!valid.success) fail(`${typed}: ${valid.error.issues[0]?.message}`)
  try {
    print(await migrateDatabase(url))
  } catch (error) {
    fail(databaseError(error, url).message)
  }
}

/** The URL and how it was given (password masked), for a message that names it. */
function databaseOption(flag: string | undefined): [string, string | undefined] {
  if (flag !== undefined) return [`--database ${maskDatabaseUrl(flag)}`, flag]
  for (const env of ['SANDBOX_DATABASE_URL', 'SANDBOX_DATABASE']) {
    const value = process.env[env]
    if (value) return [`${env}=${maskDatabaseUrl(value)}`, value]
  }
  return ['', undefined]
}

/**
 * Brings the URL's schema to this build's latest migration (migrate.ts: one transaction,
 * under the schema's lock, so a replica starting meanwhile waits and finds nothing to do), and
 * says what it applied, or the version it found.
 */
export async function migrateDatabase(raw: string): Promise<string> {
  const { url, schema } = parseDatabaseUrl(raw)
  const sql = postgres(url, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: 'partner-sandbox migrate' },
  })
  try {
    const where = `schema ${schema} of ${maskDatabaseUrl(url)}`
    const applied = await migrate(sql, schema)
    if (applied.length > 0) {
      const names = applied.map((v) => `${v} (${migrations.find((m) => m.version === v)?.name})`)
      return `applied ${names.join(', ')} to ${where}`
    }
    const [row] = await sql.unsafe<{ version: number }[]>(
      `SELECT max(version) AS version FROM ${quoteIdent(schema)}.sandbox_migrations`,
    )
    return `already up to date at ${row?.version}: ${where}`
  } finally {
    await sql.end({ timeout: 1 })
  }
}
