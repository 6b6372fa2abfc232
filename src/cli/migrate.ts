import pg from 'pg'
import { sandboxOptionsSchema } from '../config.js'
import { databaseError } from '../state/database-error.js'
import { maskDatabaseUrl, parseDatabaseUrl } from '../state/database-url.js'
import { migrate, migrations, quoteIdent } from '../state/postgres/migrate.js'
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
  const client = new pg.Client({
    connectionString: url,
    application_name: 'partner-sandbox migrate',
  })
  // An error of the connection while no query runs (the server going away) is an event:
  // without a listener it would end the process; the query under way fails with it anyway.
  client.on('error', () => {})
  await client.connect()
  try {
    const where = `schema ${schema} of ${maskDatabaseUrl(url)}`
    const applied = await migrate(client, schema)
    if (applied.length > 0) {
      const names = applied.map((v) => `${v} (${migrations.find((m) => m.version === v)?.name})`)
      return `applied ${names.join(', ')} to ${where}`
    }
    const { rows } = await client.query<{ version: number }>(
      `SELECT max(version) AS version FROM ${quoteIdent(schema)}.schema_migrations`,
    )
    return `already up to date at ${rows[0]?.version}: ${where}`
  } finally {
    await client.end().catch(() => {})
  }
}
