import type { z } from 'zod'
import { type CollectionName, collectionNames, collectionSchemas } from '../../store/records.js'

/**
 * The columns of each collection's table, read off its zod row schema (src/store/records.ts),
 * so the schema stays the one source of truth: a field is a column of the same name, and its
 * zod type decides the SQL type. test/postgres-schema.test.ts holds the migrated tables to these.
 *
 * - a string field named `…_at` is a `timestamptz` (the rows keep ISO 8601 times, to the ms);
 * - any other string is `text`; an enum or literal is `text` with a CHECK of its values;
 * - an integer is `bigint` (money in cents, epoch ms, counts); another number `double precision`;
 * - a boolean is `boolean`; a base64 string (`z.base64()`, a picture's bytes) is `bytea`;
 * - objects, arrays, records and unions are `json`: what the sandbox keeps whole and opaque
 *   (event payloads, addresses, config, attempts), kept as written: `json`, not `jsonb`, since a
 *   request journal entry may hold any text a client sent, NUL included (jsonb refuses \u0000),
 *   and a payload keeps its key order;
 * - a nullable or optional field is a nullable column; an optional one absent from the row is
 *   NULL, and read back absent.
 */

export type ColumnKind = 'text' | 'time' | 'int' | 'float' | 'bool' | 'json' | 'bytes'

export interface Column {
  name: string
  /** The name as SQL spells it: quoted where it is a reserved word (`"primary"`, `"to"`). */
  sql: string
  kind: ColumnKind
  /** The SQL type, as information_schema names it. */
  sqlType: string
  nullable: boolean
  /** Absent from the row when NULL (an optional field), rather than null. */
  optional: boolean
  /** The values a CHECK allows (enums and literals). */
  values?: readonly string[]
}

/** Each kind's type: as DDL spells it, and as information_schema names it. */
export const columnTypes: Record<ColumnKind, [ddl: string, info: string]> = {
  text: ['text', 'text'],
  time: ['timestamptz', 'timestamp with time zone'],
  int: ['bigint', 'bigint'],
  float: ['double precision', 'double precision'],
  bool: ['boolean', 'boolean'],
  json: ['json', 'json'],
  bytes: ['bytea', 'bytea'],
}

/** PostgreSQL's reserved words a field could be named (they must be quoted as columns). */
const RESERVED = new Set(
  (
    'all analyse analyze and any array as asc asymmetric both case cast check collate column ' +
    'constraint create current_date current_role current_time current_timestamp current_user ' +
    'default deferrable desc distinct do else end except false fetch for foreign from grant ' +
    'group having in initially intersect into lateral leading limit localtime localtimestamp ' +
    'not null offset on only or order placing primary references returning select session_user ' +
    'some symmetric table then to trailing true union unique user using variadic when where ' +
    'window with'
  ).split(' '),
)

/** A field's name as an SQL identifier. */
export const identifier = (name: string) => (RESERVED.has(name) ? `"${name}"` : name)

type Def = {
  type: string
  innerType?: z.ZodType
  entries?: Record<string, string>
  values?: unknown[]
}

const defOf = (schema: z.ZodType) => (schema as unknown as { def: Def }).def

function columnOf(name: string, field: z.ZodType): Column {
  let schema = field
  let nullable = false
  let optional = false
  for (;;) {
    const def = defOf(schema)
    if (def.type === 'nullable') nullable = true
    else if (def.type === 'optional') optional = true
    else break
    schema = def.innerType as z.ZodType
  }
  const def = defOf(schema)
  let kind: ColumnKind = 'json'
  let values: readonly string[] | undefined
  if (def.type === 'string' && (schema as unknown as { format?: string }).format === 'base64')
    kind = 'bytes'
  else if (def.type === 'string') kind = name.endsWith('_at') ? 'time' : 'text'
  else if (def.type === 'enum') {
    kind = 'text'
    values = Object.values(def.entries ?? {})
  } else if (def.type === 'literal') {
    const literals = def.values ?? []
    if (literals.every((v) => typeof v === 'string')) {
      kind = 'text'
      values = literals as string[]
    } else if (literals.every((v) => typeof v === 'boolean')) kind = 'bool'
  } else if (def.type === 'number')
    kind = (schema as unknown as { isInt?: boolean }).isInt ? 'int' : 'float'
  else if (def.type === 'boolean') kind = 'bool'
  return {
    name,
    sql: identifier(name),
    kind,
    sqlType: columnTypes[kind][1],
    nullable: nullable || optional,
    optional,
    values,
  }
}

function columnsOf(collection: CollectionName): Column[] {
  const shape = (collectionSchemas[collection] as unknown as { shape: Record<string, z.ZodType> })
    .shape
  return Object.entries(shape).map(([name, field]) => columnOf(name, field))
}

/** Every collection's columns, in its schema's field order. */
export const tableColumns = Object.fromEntries(
  collectionNames.map((name) => [name, columnsOf(name)]),
) as Record<CollectionName, Column[]>
