// Prints the schema this build declares (src/state/postgres: columns.ts, tables.ts,
// index-sql.ts), the text migrations/0001-baseline.sql was written from. A released migration
// is never edited: a later change of the declarations is a new migration file, written by hand
// from the difference, and test/postgres-schema.test.ts fails until the migrated tables match.
import type { IndexName } from '../src/state/indexes.js'
import type { Column } from '../src/state/postgres/columns.js'
import { indexSql, tableOf } from '../src/state/postgres/index-sql.js'
import { type TableSpec, tables } from '../src/state/postgres/tables.js'
import { collectionNames } from '../src/store/records.js'

const quote = (value: string) => `'${value.replaceAll("'", "''")}'`

/** A column's line of CREATE TABLE. */
function columnDdl(column: Column): string {
  const notNull = column.nullable ? '' : ' NOT NULL'
  const check = column.values
    ? ` CHECK (${column.sql} IN (${column.values.map(quote).join(', ')}))`
    : ''
  return `${column.sql} ${column.type}${notNull}${check}`
}

/** CREATE TABLE of one collection, with its key, its row order and its foreign keys. */
function createTableDdl(spec: TableSpec): string {
  const lines = [
    ...spec.columns.map(columnDdl),
    'inserted bigint GENERATED ALWAYS AS IDENTITY',
    `PRIMARY KEY (${spec.key.join(', ')})`,
    ...spec.references.map(
      (fk) =>
        `FOREIGN KEY (${fk.columns.join(', ')}) REFERENCES ${fk.table} (${fk.to.join(', ')}) ` +
        'ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED',
    ),
  ]
  const unlogged = spec.unlogged ? 'UNLOGGED ' : ''
  const byId = spec.tenant
    ? `\nCREATE INDEX ${spec.collection}_by_id ON ${spec.collection} (id);`
    : ''
  return `CREATE ${unlogged}TABLE ${spec.collection} (\n  ${lines.join(',\n  ')}\n);${byId}`
}

/**
 * The functions the index keys call: an ISO hour or day of a time, in UTC (immutable, as an
 * index needs: the zone is fixed and the pattern has no word a locale changes).
 */
const keyFunctionsDdl = `CREATE FUNCTION sandbox_hour(timestamptz) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_char($1 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24') $$;
CREATE FUNCTION sandbox_day(timestamptz) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_char($1 AT TIME ZONE 'UTC', 'YYYY-MM-DD') $$;`

/** CREATE INDEX of one declared index, named for the lookup it serves. */
function createIndexDdl(index: IndexName): string {
  const { key, where, order } = indexSql[index]
  // A key that is a constant ('waiting': every row the condition admits) is not a column.
  const keyColumn = key.startsWith("'") ? undefined : `(${key})`
  const by = [keyColumn, order, 'inserted'].filter(Boolean).join(', ')
  return `CREATE INDEX ${index} ON ${tableOf(index)} (${by})${where ? ` WHERE ${where}` : ''};`
}

const parts = [
  '-- The sandbox state: one table per entity, typed columns (src/state/postgres/columns.ts).',
  keyFunctionsDdl,
  ...collectionNames.map((name) => createTableDdl(tables[name])),
  ...(Object.keys(indexSql) as IndexName[]).filter((i) => !indexSql[i].primary).map(createIndexDdl),
  `-- What the sandbox keeps about itself: the seed a reset goes back to.
CREATE TABLE sandbox_settings (name text PRIMARY KEY, value json NOT NULL);
-- Counters shared by every replica (a partner's rate limit window): not durable.
CREATE UNLOGGED TABLE sandbox_counters (
  name text PRIMARY KEY,
  win bigint NOT NULL,
  count bigint NOT NULL
);`,
]
process.stdout.write(`${parts.join('\n\n')}\n`)
