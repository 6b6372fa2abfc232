/**
 * `partner-sandbox migrate` and the database's start-up errors, through the real CLI process:
 * the migrate job creates every table and says what it applied, a second run applies nothing,
 * and whatever keeps the database from being used (a closed port, a refused login, a schema
 * newer than this build, a bad URL, --data beside --database) is one line on stderr with exit
 * code 1 (2 for a usage mistake), never a stack trace, never the password.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { migrations } from '../src/state/postgres/migrate.js'
import { collectionNames, ephemeralCollections } from '../src/store/records.js'
import { spawnCli, stopCliProcesses, until } from './cli-process.js'
import { closedPort } from './helpers.js'
import { describePostgres, freshDatabaseUrl, testDatabase } from './postgres.js'
import { startRefusingPostgres } from './postgres-refusing.js'

const PASSWORD = 'hunter2-not-for-logs'

afterEach(stopCliProcesses)

async function run(args: string[], env: Record<string, string> = {}) {
  const { output, exited } = spawnCli(args, env)
  const { code } = await exited
  return { code, ...output }
}

/** One line, ours, without a stack or the password. */
function expectOneLine(stderr: string, text: string) {
  expect(stderr).toBe(`partner-sandbox: ${text}\n`)
  expect(stderr).not.toContain(PASSWORD)
}

/** The test server's URL with a password in it (the server trusts every login, so it is unused). */
const withPassword = (url: string) => url.replace('postgres@', `postgres:${PASSWORD}@`)
const schemaOf = (url: string) => new URL(url).searchParams.get('schema') as string

describePostgres('partner-sandbox migrate', () => {
  const client = new pg.Client({ connectionString: testDatabase })
  client.on('error', () => {})
  beforeAll(() => client.connect())
  afterAll(() => client.end())
  const sql = async <R extends pg.QueryResultRow>(text: string, params: unknown[] = []) =>
    (await client.query<R>(text, params)).rows

  const tablesOf = async (schema: string) =>
    (
      await sql<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
        [schema],
      )
    )
      .map((row) => row.table_name)
      .sort()

  /** The latest migration this build has (migrations/0001-baseline.sql, …). */
  const latest = migrations[migrations.length - 1]?.version

  it('creates every table of a new schema, says so, and a second run applies nothing', async () => {
    const url = withPassword(freshDatabaseUrl())
    const schema = schemaOf(url)
    const shown = `schema ${schema} of ${url.replace(PASSWORD, '****').replace(/\?schema=.*/, '')}`
    expect(await tablesOf(schema)).toEqual([])

    const first = await run(['migrate', '--database', url])
    expect(first, first.stderr).toMatchObject({ code: 0, stderr: '' })
    expect(first.stdout).toBe(
      `applied 1 (baseline), 2 (rules), 3 (partner-names), 4 (users-by-primary-key), 5 (partners-with-own-clock), 6 (sandbox-scenario), 7 (partners-by-scenario), 8 (partners-by-slug) to ${shown}\n`,
    )
    expect(migrations.map((m) => `${m.version} (${m.name})`)).toEqual([
      '1 (baseline)',
      '2 (rules)',
      '3 (partner-names)',
      '4 (users-by-primary-key)',
      '5 (partners-with-own-clock)',
      '6 (sandbox-scenario)',
      '7 (partners-by-scenario)',
      '8 (partners-by-slug)',
    ])
    // One table per collection, and the sandbox's own.
    const expected = [
      'sandbox_counters',
      'sandbox_settings',
      'schema_migrations',
      ...collectionNames,
    ].sort()
    expect(await tablesOf(schema)).toEqual(expected)
    // What docs/postgres.md says: the ephemeral collections' tables are UNLOGGED.
    const unlogged = await sql<{ relname: string }>(
      `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relpersistence = 'u'`,
      [schema],
    )
    expect(unlogged.map((row) => row.relname).sort()).toEqual(
      ['sandbox_counters', ...ephemeralCollections].sort(),
    )

    // From the environment, as a job in a compose file or a Kubernetes Job is given it.
    const second = await run(['migrate'], { SANDBOX_DATABASE_URL: url })
    expect(second).toMatchObject({ code: 0, stderr: '' })
    expect(second.stdout).toBe(`already up to date at 8: ${shown}\n`)
    const versions = await sql<{ version: number; name: string }>(
      `SELECT version, name FROM "${schema}".schema_migrations ORDER BY version`,
    )
    expect(versions).toEqual([
      { version: 1, name: 'baseline' },
      { version: 2, name: 'rules' },
      { version: 3, name: 'partner-names' },
      { version: 4, name: 'users-by-primary-key' },
      { version: 5, name: 'partners-with-own-clock' },
      { version: 6, name: 'sandbox-scenario' },
      { version: 7, name: 'partners-by-scenario' },
      { version: 8, name: 'partners-by-slug' },
    ])
  }, 60_000)

  it('a sandbox then starts on the migrated schema, its banner naming it without the password', async () => {
    const url = withPassword(freshDatabaseUrl())
    expect((await run(['migrate'], { SANDBOX_DATABASE: url })).code).toBe(0)
    const cli = spawnCli(['--port', '0', '--log-level', 'silent', '--database', url])
    await until(cli, (out) => out.includes('X-Partner-Key'), 'banner')
    const masked = url.replace(PASSWORD, '****').replace(/\?schema=.*/, '')
    expect(cli.output.stdout).toContain(
      `  Storage   PostgreSQL ${masked} (schema ${schemaOf(url)})\n`,
    )
    expect(cli.output.stdout).not.toContain(PASSWORD)
    const api = /API {7}(\S+)/.exec(cli.output.stdout)?.[1] as string
    const me = await fetch(`${api}/partner/me`, {
      headers: {
        'X-Partner-Key': 'pk_test_acme_sandbox_default_key',
        'X-Partner-Secret': 'sk_test_acme_sandbox_default_secret',
      },
    })
    expect(me.status).toBe(200)
  }, 60_000)

  it('a schema migrated by a newer build: migrate and the sandbox refuse it in one line', async () => {
    const url = withPassword(freshDatabaseUrl())
    const schema = schemaOf(url)
    await sql(`CREATE SCHEMA "${schema}"`)
    await sql(`CREATE TABLE "${schema}".schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
    await sql(`INSERT INTO "${schema}".schema_migrations (version, name) VALUES (999, 'future')`)
    const [migrate, start] = await Promise.all([
      run(['migrate', '--database', url]),
      run(['--port', '0', '--database', url]),
    ])
    const line = `the database schema "${schema}" is at migration 999, newer than this sandbox knows (${latest}): upgrade partner-sandbox`
    for (const result of [migrate, start]) {
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      expectOneLine(result.stderr, line)
    }
    // Refused as a whole: nothing of this build's migration was left behind.
    expect(await tablesOf(schema)).toEqual(['schema_migrations'])
  }, 60_000)

  it('a schema of the key-value layout of an earlier build: refused in one line saying what to do', async () => {
    const url = withPassword(freshDatabaseUrl())
    const schema = schemaOf(url)
    await sql(`CREATE SCHEMA "${schema}"`)
    await sql(`CREATE TABLE "${schema}".sandbox_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
    await sql(
      `INSERT INTO "${schema}".sandbox_migrations (version, name) VALUES (4, 'tenant keys')`,
    )
    const [migrate, start] = await Promise.all([
      run(['migrate', '--database', url]),
      run(['--port', '0', '--database', url]),
    ])
    const line = `the database schema "${schema}" holds the key-value layout of an earlier partner-sandbox, which this one does not read: drop it (DROP SCHEMA "${schema}" CASCADE) or name another with ?schema=`
    for (const result of [migrate, start]) {
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      expectOneLine(result.stderr, line)
    }
    expect(await tablesOf(schema)).toEqual(['sandbox_migrations'])
  }, 60_000)

  it('a user who may not create the schema is told which grant it lacks', async () => {
    const role = `r_${randomBytes(4).toString('hex')}`
    await sql(`CREATE ROLE "${role}" LOGIN`)
    try {
      const url = freshDatabaseUrl().replace('postgres@', `${role}:${PASSWORD}@`)
      const result = await run(['migrate', '--database', url])
      expect(result.code).toBe(1)
      const server = new URL(url).host
      expectOneLine(
        result.stderr,
        `PostgreSQL at ${server}: permission denied for database postgres (the URL's user needs CREATE on it: GRANT CREATE ON DATABASE "postgres" TO "${role}")`,
      )
      expect(await tablesOf(schemaOf(url))).toEqual([])
    } finally {
      await sql(`DROP ROLE "${role}"`)
    }
  }, 60_000)
})

describe('a database that cannot be used', () => {
  it('a closed port: migrate and the sandbox exit 1 with one line naming the server', async () => {
    const port = await closedPort()
    const url = `postgres://sandbox:${PASSWORD}@127.0.0.1:${port}/sandbox`
    const [migrate, start] = await Promise.all([
      run(['migrate', '--database', url]),
      run(['--port', '0'], { SANDBOX_DATABASE_URL: url }),
    ])
    for (const result of [migrate, start]) {
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      expectOneLine(
        result.stderr,
        `cannot connect to PostgreSQL at 127.0.0.1:${port}: connection refused (is PostgreSQL running there, and are the host and port right?)`,
      )
    }
  }, 60_000)

  it('a wrong password: the login refusal in one line, the password sent but never printed', async () => {
    const server = await startRefusingPostgres()
    try {
      const url = `postgres://sandbox:${PASSWORD}@127.0.0.1:${server.port}/sandbox`
      const [migrate, start] = await Promise.all([
        run(['migrate', '--database', url]),
        run(['--port', '0', '--database', url]),
      ])
      for (const result of [migrate, start]) {
        expect(result.code).toBe(1)
        expect(result.stdout).toBe('')
        expectOneLine(
          result.stderr,
          `PostgreSQL at 127.0.0.1:${server.port} refused the login: password authentication failed for user "sandbox" (check the user and password in the URL)`,
        )
      }
      // The refusal was the server's answer to the password, not a failure before it.
      expect(server.passwords).toContain(PASSWORD)
    } finally {
      await server.close()
    }
  }, 60_000)

  it('a server that wants TLS: the refusal says to add ?sslmode=require', async () => {
    const server = await startRefusingPostgres({ withoutTls: true })
    try {
      const url = `postgres://sandbox:${PASSWORD}@127.0.0.1:${server.port}/sandbox`
      const result = await run(['migrate', '--database', url])
      expect(result.code).toBe(1)
      expectOneLine(
        result.stderr,
        `PostgreSQL at 127.0.0.1:${server.port} refused the login: no pg_hba.conf entry for host "127.0.0.1", user "sandbox", database "sandbox", no encryption (it wants TLS: add ?sslmode=require to the URL)`,
      )
      expect(server.passwords).toEqual([])
    } finally {
      await server.close()
    }
  }, 60_000)

  it('a URL that does not parse or is not PostgreSQL: exit 1 naming it, password masked', async () => {
    const [badPort, mysql] = await Promise.all([
      run(['migrate', '--database', `postgres://sandbox:${PASSWORD}@127.0.0.1:99999/sandbox`]),
      run(['migrate'], { SANDBOX_DATABASE_URL: `mysql://sandbox:${PASSWORD}@127.0.0.1/sandbox` }),
    ])
    expect(badPort.code).toBe(1)
    expectOneLine(
      badPort.stderr,
      'postgres://sandbox:****@127.0.0.1:99999/sandbox is not a valid URL (postgres://user:password@host:5432/database)',
    )
    expect(mysql.code).toBe(1)
    expectOneLine(
      mysql.stderr,
      'SANDBOX_DATABASE_URL=mysql://sandbox:****@127.0.0.1/sandbox: must be a postgres:// or postgresql:// URL',
    )
  }, 60_000)

  it('migrate without a database, and --data beside --database, are usage mistakes (exit 2)', async () => {
    const url = `postgres://sandbox:${PASSWORD}@127.0.0.1:5432/sandbox`
    const [bare, both] = await Promise.all([
      run(['migrate']),
      run(['--port', '0', '--data', 'state.json', '--database', url]),
    ])
    expect(bare).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'partner-sandbox: migrate needs a database: --database URL or SANDBOX_DATABASE_URL\nRun partner-sandbox migrate --help for its options.\n',
    })
    expect(both).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'partner-sandbox: --data state.json and --database postgres://sandbox:****@127.0.0.1:5432/sandbox: state lives in a data file or in a database; give one of them\nRun partner-sandbox --help for the options.\n',
    })
  }, 60_000)
})
