import type { CollectionName } from '../../store/records.js'
import type { IndexName } from '../indexes.js'
import { indexSql, tableOf } from './index-sql.js'
import { tables } from './tables.js'

/**
 * The statements the engine sends, made once from the declarations (tables.ts, index-sql.ts).
 * A reader of one partner (a tenant scope) adds `AND <partner column> = $n` on that partner's
 * tables, so each statement names the partner and a distributed table is read on its node.
 */

const columnList = (collection: CollectionName) =>
  tables[collection].columns.map((column) => column.sql).join(', ')

/** The column that says whose a row is, on a partner's tables (none on the sandbox's own). */
export function partnerColumn(collection: CollectionName): string | undefined {
  if (collection === 'partners') return 'id'
  return tables[collection].tenant || collection === 'inbox_messages' ? 'partner_id' : undefined
}

/** `AND <partner column> = $n` when scoped to a partner on one of its tables. */
function scopeOf(collection: CollectionName, scoped: boolean, n: number): string {
  const column = scoped ? partnerColumn(collection) : undefined
  return column ? ` AND ${column} = $${n}` : ''
}

export interface TableStatements {
  get: string
  all: string
  upsert: string
  remove: string
}

const cache = new Map<string, string>()
const once = (name: string, make: () => string) => {
  let text = cache.get(name)
  if (text === undefined) {
    text = make()
    cache.set(name, text)
  }
  return text
}

export function tableStatements(collection: CollectionName, scoped: boolean): TableStatements {
  const { columns, key } = tables[collection]
  const list = columnList(collection)
  const name = `${collection}:${scoped}`
  return {
    get: once(
      `get:${name}`,
      () => `SELECT ${list} FROM ${collection} WHERE id = $1${scopeOf(collection, scoped, 2)}`,
    ),
    all: once(`all:${name}`, () => {
      const scope = scopeOf(collection, scoped, 1)
      return `SELECT ${list} FROM ${collection}${scope ? ` WHERE true${scope}` : ''} ORDER BY inserted`
    }),
    upsert: once(`upsert:${collection}`, () => {
      const values = columns.map((_, i) => `$${i + 1}`).join(', ')
      const sets = columns
        .filter((column) => !key.includes(column.name))
        .map((column) => `${column.sql} = EXCLUDED.${column.sql}`)
        .join(', ')
      const conflict = `ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${sets} RETURNING 1 AS put`
      if (!tables[collection].tenant)
        return `INSERT INTO ${collection} (${list}) VALUES (${values}) ${conflict}`
      // A tenant row stays with its partner: under its key (partner_id, id) a row moved to
      // another partner would be a second row, so none is written (the engine refuses it).
      const at = (name: string) => `$${columns.findIndex((column) => column.name === name) + 1}`
      return (
        `INSERT INTO ${collection} (${list}) SELECT ${values} WHERE NOT EXISTS ` +
        `(SELECT 1 FROM ${collection} WHERE id = ${at('id')} AND partner_id <> ${at('partner_id')}) ${conflict}`
      )
    }),
    remove: once(
      `remove:${name}`,
      () => `DELETE FROM ${collection} WHERE id = $1${scopeOf(collection, scoped, 2)}`,
    ),
  }
}

/** INSERT of `count` rows at once (a replace, the request journal's rows), or upsert. */
export function insertMany(collection: CollectionName, count: number, upsert: boolean): string {
  const { columns, key } = tables[collection]
  const width = columns.length
  const rows = Array.from(
    { length: count },
    (_, r) => `(${columns.map((_, c) => `$${r * width + c + 1}`).join(', ')})`,
  )
  const sets = columns
    .filter((column) => !key.includes(column.name))
    .map((column) => `${column.sql} = EXCLUDED.${column.sql}`)
    .join(', ')
  const conflict = upsert ? ` ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${sets}` : ''
  return `INSERT INTO ${collection} (${columnList(collection)}) VALUES ${rows.join(', ')}${conflict}`
}

export interface IndexStatements {
  lookup: string
  lookupOne: string
  /** $1 key, $2 limit (null: all), then the partner. */
  forward: string
  reverse: string
  /** $1 key, $2 the row after which the page starts, $3 limit, then the partner. */
  forwardAfter: string
  reverseAfter: string
  count: string
  has: string
  keys: string
  /** $1 key, $2 the latest order value due, $3 limit, then the partner. */
  due: string
}

export function indexStatements(index: IndexName, scoped: boolean): IndexStatements {
  const collection = tableOf(index)
  const { key, where, order } = indexSql[index]
  const list = columnList(collection)
  const under = `(${key}) = $1${where ? ` AND ${where}` : ''}`
  const by = order ? `${order}, inserted` : 'inserted'
  const byDesc = order ? `${order} DESC, inserted DESC` : 'inserted DESC'
  const name = `${index}:${scoped}`
  const select = (more: string, scopeAt: number) =>
    `SELECT ${list} FROM ${collection} WHERE ${under}${more}${scopeOf(collection, scoped, scopeAt)}`
  // The cursor row (its columns, unqualified, are the subquery's own), under the same key and
  // partner, and the rows past it in the list's order: none when it is not under the key.
  const cursor = `(SELECT ${order ? `${order}, ` : ''}inserted FROM ${collection} WHERE id = $2 AND ${under}${scopeOf(collection, scoped, 4)})`
  const past = (dir: '>' | '<') =>
    order ? ` AND (${order}, inserted) ${dir} ${cursor}` : ` AND inserted ${dir} ${cursor}`
  return {
    lookup: once(`lookup:${name}`, () => `${select('', 2)} ORDER BY ${by}`),
    lookupOne: once(`lookupOne:${name}`, () => `${select('', 2)} ORDER BY ${by} LIMIT 1`),
    forward: once(`forward:${name}`, () => `${select('', 3)} ORDER BY ${by} LIMIT $2`),
    reverse: once(`reverse:${name}`, () => `${select('', 3)} ORDER BY ${byDesc} LIMIT $2`),
    forwardAfter: once(
      `forwardAfter:${name}`,
      () => `${select(past('>'), 4)} ORDER BY ${by} LIMIT $3`,
    ),
    reverseAfter: once(
      `reverseAfter:${name}`,
      () => `${select(past('<'), 4)} ORDER BY ${byDesc} LIMIT $3`,
    ),
    count: once(
      `count:${name}`,
      () =>
        `SELECT count(*) AS n FROM ${collection} WHERE ${under}${scopeOf(collection, scoped, 2)}`,
    ),
    has: once(
      `has:${name}`,
      () =>
        `SELECT 1 FROM ${collection} WHERE ${under} AND id = $2${scopeOf(collection, scoped, 3)}`,
    ),
    keys: once(
      `keys:${index}`,
      () =>
        `SELECT (${key}) AS k FROM ${collection} WHERE (${key}) IS NOT NULL${where ? ` AND ${where}` : ''} ` +
        'GROUP BY 1 ORDER BY min(inserted)',
    ),
    due: once(
      `due:${name}`,
      () =>
        `${select(` AND ${order ?? 'inserted'} <= $2`, 4)} ORDER BY ${by} LIMIT $3 FOR UPDATE SKIP LOCKED`,
    ),
  }
}
