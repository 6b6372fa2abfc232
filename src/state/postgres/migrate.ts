import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type pg from 'pg'
import { packageRoot } from '../../package-root.js'
import { within } from './pool.js'

/**
 * The schema's migrations: the SQL files of migrations/ (`0001-baseline.sql`, …), applied in
 * the order of their numbers, each once, all in one transaction under an advisory lock on the
 * schema's name, so replicas starting at once migrate it once (the others wait, then find
 * nothing to do). Run at every start and by `partner-sandbox migrate`. A released file is never
 * edited: a change of schema is a new file.
 */

const FILE = /^(\d{4})-([a-z0-9-]+)\.sql$/
const DIR = join(packageRoot, 'migrations')

export const migrations = readdirSync(DIR)
  .flatMap((file) => {
    const named = FILE.exec(file)
    if (!named) return []
    const sql = readFileSync(join(DIR, file), 'utf8')
    return [{ version: Number(named[1]), name: named[2] as string, sql }]
  })
  .sort((a, b) => a.version - b.version)

/** Brings `schema` up to the latest migration; answers the versions it applied. */
export function migrate(client: pg.ClientBase, schema: string): Promise<number[]> {
  return within(client, 'BEGIN', async () => {
    await lockSchema(client, schema)
    const quoted = quoteIdent(schema)
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`)
    await client.query(`SET LOCAL search_path TO ${quoted}`)
    const { rows: old } = await client.query(
      "SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'sandbox_migrations'",
      [schema],
    )
    if (old.length > 0) {
      throw new Error(
        `the database schema "${schema}" holds the key-value layout of an earlier partner-sandbox, which this one does not read: drop it (DROP SCHEMA ${quoted} CASCADE) or name another with ?schema=`,
      )
    }
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    )
    const { rows } = await client.query<{ version: number }>(
      'SELECT version FROM schema_migrations',
    )
    const done = new Set(rows.map((row) => row.version))
    const latest = migrations[migrations.length - 1]?.version ?? 0
    const newest = Math.max(0, ...done)
    if (newest > latest) {
      throw new Error(
        `the database schema "${schema}" is at migration ${newest}, newer than this sandbox knows (${latest}): upgrade partner-sandbox`,
      )
    }
    const pending = migrations.filter((migration) => !done.has(migration.version))
    const record = 'INSERT INTO schema_migrations (version, name) VALUES ($1, $2)'
    for (const { version, name, sql } of pending) {
      await client.query(sql)
      await client.query(record, [version, name])
    }
    return pending.map((migration) => migration.version)
  })
}

/** Holds the schema's advisory lock until the transaction ends. */
export async function lockSchema(client: pg.ClientBase, schema: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`partner-sandbox:${schema}`])
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}
