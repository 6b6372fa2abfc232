import { collectionNames } from '../../store/records.js'
import type { IndexName } from '../indexes.js'
import { createIndexDdl, indexSql, keyFunctionsDdl } from './index-sql.js'
import { createTableDdl, tables } from './tables.js'

/**
 * The schema as this build declares it (tables.ts, index-sql.ts): what migrations/0001-baseline.sql
 * was written from (`npx tsx scripts/baseline-sql.ts`). A released migration is never edited;
 * a later change of the declarations is a new migration file, and test/postgres-schema.test.ts
 * fails until the migrated tables match the declarations again.
 */
export function baselineDdl(): string {
  const parts = [
    '-- The sandbox state: one table per entity, typed columns (src/state/postgres/columns.ts).',
    keyFunctionsDdl,
    ...collectionNames.map((name) => createTableDdl(tables[name])),
    ...(Object.keys(indexSql) as IndexName[]).map(createIndexDdl),
    `-- What the sandbox keeps about itself: the seed a reset goes back to.
CREATE TABLE sandbox_settings (name text PRIMARY KEY, value json NOT NULL);
-- Counters shared by every replica (a partner's rate limit window): not durable.
CREATE UNLOGGED TABLE sandbox_counters (
  name text PRIMARY KEY,
  win bigint NOT NULL,
  count bigint NOT NULL
);`,
  ]
  return `${parts.join('\n\n')}\n`
}
