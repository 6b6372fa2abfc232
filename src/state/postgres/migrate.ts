import type { Sql, TransactionSql } from 'postgres'
import { migrations } from './migrations.js'

/**
 * Brings a schema up to the latest migration: in one transaction, under an advisory lock on
 * the schema's name, so replicas starting at once migrate it once (the others wait, then find
 * nothing to do). Answers the versions it applied. Run at every start and by
 * `partner-sandbox migrate`.
 */
export async function migrate(sql: Sql, schema: string): Promise<number[]> {
  return sql.begin(async (tx) => {
    await lockSchema(tx, schema)
    await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`)
    await tx.unsafe(`SET LOCAL search_path TO ${quoteIdent(schema)}`)
    await tx.unsafe(
      `CREATE TABLE IF NOT EXISTS sandbox_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    )
    const rows = await tx.unsafe<{ version: number }[]>('SELECT version FROM sandbox_migrations')
    const done = new Set(rows.map((row) => row.version))
    const applied: number[] = []
    for (const migration of migrations) {
      if (done.has(migration.version)) continue
      await tx.unsafe(migration.sql)
      await tx.unsafe('INSERT INTO sandbox_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ])
      applied.push(migration.version)
    }
    const latest = migrations[migrations.length - 1]?.version ?? 0
    const newest = Math.max(0, ...done)
    if (newest > latest) {
      throw new Error(
        `the database schema "${schema}" is at migration ${newest}, newer than this sandbox knows (${latest}): upgrade partner-sandbox`,
      )
    }
    return applied
  })
}

/** Holds the schema's advisory lock until the transaction ends. */
export async function lockSchema(tx: TransactionSql, schema: string): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(hashtext(${`partner-sandbox:${schema}`}))`
}

/** An SQL identifier, quoted. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}
