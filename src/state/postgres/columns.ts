import type { z } from 'zod'
import { type CollectionName, collectionNames, collectionSchemas } from '../../store/records.js'

/**
 * The columns of each collection's table, read off its zod row schema (src/store/records.ts),
 * so the schema stays the one source of truth: a field is a column of the same name, and its
 * zod type decides the SQL type (typeOf). test/postgres-schema.test.ts holds the migrated tables
 * to these. A string named `…_at` is a time (the rows keep ISO 8601 times, to the ms); an
 * integer is money in cents, epoch ms or a count; an enum or literal is checked. What the
 * sandbox keeps whole and opaque (event payloads, addresses, config, attempts: objects, arrays,
 * records, unions) is `json`, kept as written, not `jsonb`: a request journal entry may hold any
 * text a client sent, NUL included (jsonb refuses \u0000), and a payload keeps its key order.
 * An optional field absent from the row is NULL, and read back absent.
 */

export interface Column {
  name: string
  /** The name as SQL spells it: quoted where it is a reserved word (`"primary"`, `"to"`). */
  sql: string
  /** The SQL type, as DDL spells it. */
  type: 'text' | 'timestamptz' | 'bigint' | 'double precision' | 'boolean' | 'json' | 'bytea'
  /** The SQL type, as information_schema names it. */
  sqlType: string
  nullable: boolean
  /** Absent from the row when NULL (an optional field), rather than null. */
  optional: boolean
  /** The values a CHECK allows (enums and literals). */
  values?: readonly string[]
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

type Def = {
  type: string
  innerType?: z.ZodType
  entries?: Record<string, string>
  values?: unknown[]
}

const defOf = (schema: z.ZodType) => (schema as unknown as { def: Def }).def

/** A field's SQL type, and the values its CHECK allows, from its zod type (not nullable). */
function typeOf(name: string, schema: z.ZodType): [Column['type'], (readonly string[])?] {
  const def = defOf(schema)
  const literals = def.values ?? []
  const { format, isInt } = schema as unknown as { format?: string; isInt?: boolean }
  if (def.type === 'string' && format === 'base64') return ['bytea'] // a picture's bytes
  if (def.type === 'string') return [name.endsWith('_at') ? 'timestamptz' : 'text']
  if (def.type === 'enum') return ['text', Object.values(def.entries ?? {})]
  if (def.type === 'literal' && literals.every((v) => typeof v === 'string'))
    return ['text', literals as string[]]
  if (def.type === 'literal' && literals.every((v) => typeof v === 'boolean')) return ['boolean']
  if (def.type === 'number') return [isInt ? 'bigint' : 'double precision']
  if (def.type === 'boolean') return ['boolean']
  return ['json']
}

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
  const [type, values] = typeOf(name, schema)
  return {
    name,
    sql: RESERVED.has(name) ? `"${name}"` : name,
    type,
    sqlType: type === 'timestamptz' ? 'timestamp with time zone' : type,
    nullable: nullable || optional,
    optional,
    values,
  }
}

/** Every collection's columns, in its schema's field order. */
export const tableColumns = Object.fromEntries(
  collectionNames.map((collection) => {
    const { shape } = collectionSchemas[collection] as unknown as {
      shape: Record<string, z.ZodType>
    }
    return [collection, Object.entries(shape).map(([name, field]) => columnOf(name, field))]
  }),
) as Record<CollectionName, Column[]>
