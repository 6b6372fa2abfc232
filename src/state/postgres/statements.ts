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

/** `$from+1, …, $from+count`. */
const placeholders = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `$${from + i + 1}`).join(', ')

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

/** `make(name, scoped)`, made once for each pair. */
function memo<N extends string, T>(make: (name: N, scoped: boolean) => T) {
  const made = new Map<string, T>()
  return (name: N, scoped: boolean): T => {
    const id = `${name}:${scoped}`
    if (!made.has(id)) made.set(id, make(name, scoped))
    return made.get(id) as T
  }
}

/** `ON CONFLICT (key) DO UPDATE SET` every other column. */
function upsertTail(collection: CollectionName): string {
  const { columns, key } = tables[collection]
  const sets = columns.filter((column) => !key.includes(column.name))
  const set = sets.map((column) => `${column.sql} = EXCLUDED.${column.sql}`).join(', ')
  return `ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${set}`
}

/** get, all and remove take the id ($1) and then the partner; upsert takes the row's columns. */
export const tableStatements = memo((collection: CollectionName, scoped: boolean) => {
  const { columns, tenant } = tables[collection]
  const list = columnList(collection)
  const at = (name: string) => `$${columns.findIndex((column) => column.name === name) + 1}`
  const scopeAll = scopeOf(collection, scoped, 1)
  return {
    get: `SELECT ${list} FROM ${collection} WHERE id = $1${scopeOf(collection, scoped, 2)}`,
    all: `SELECT ${list} FROM ${collection}${scopeAll ? ` WHERE true${scopeAll}` : ''} ORDER BY inserted`,
    // A tenant row stays with its partner: under its key (partner_id, id) a row moved to
    // another partner would be a second row, so none is written (the engine refuses it).
    upsert: tenant
      ? `INSERT INTO ${collection} (${list}) SELECT ${placeholders(columns.length)} WHERE NOT EXISTS (SELECT 1 FROM ` +
        `${collection} WHERE id = ${at('id')} AND partner_id <> ${at('partner_id')}) ${upsertTail(collection)}`
      : insertMany(collection, 1, true),
    remove: `DELETE FROM ${collection} WHERE id = $1${scopeOf(collection, scoped, 2)}`,
  }
})

/** INSERT of `count` rows at once (a replace, the request journal's rows), or upsert. */
export function insertMany(collection: CollectionName, count: number, upsert: boolean, from = 0) {
  const width = tables[collection].columns.length
  const rows = Array.from({ length: count }, (_, r) => `(${placeholders(width, from + r * width)})`)
  const tail = upsert ? ` ${upsertTail(collection)}` : ''
  return `INSERT INTO ${collection} (${columnList(collection)}) VALUES ${rows.join(', ')}${tail}`
}

/**
 * Upserts of several collections' rows as one statement (the parameters of each group after
 * the previous group's): every INSERT but the last in a WITH, which PostgreSQL runs once each.
 */
export function upsertGroups(groups: readonly (readonly [CollectionName, number])[]): string {
  let from = 0
  const inserts = groups.map(([collection, count]) => {
    const text = insertMany(collection, count, true, from)
    from += count * tables[collection].columns.length
    return text
  })
  const last = inserts.pop() as string
  if (inserts.length === 0) return last
  return `WITH ${inserts.map((text, i) => `w${i} AS (${text})`).join(', ')} ${last}`
}

/**
 * An index's statements: $1 the key, then (forward, reverse: $2 limit, null for all;
 * …After: $2 the row the page starts after, $3 limit; has: $2 the id; due: $2 the latest order
 * value due, $3 limit), then the partner when scoped (as $n).
 */
export const indexStatements = memo((index: IndexName, scoped: boolean) => {
  const collection = tableOf(index)
  const { key, where, order } = indexSql[index]
  const also = where ? ` AND ${where}` : ''
  const under = `(${key}) = $1${also}`
  const by = order ? `${order}, inserted` : 'inserted'
  const byDesc = order ? `${order} DESC, inserted DESC` : 'inserted DESC'
  const select = (what: string, condition: string, n: number) =>
    `SELECT ${what} FROM ${collection} WHERE ${condition}${scopeOf(collection, scoped, n)}`
  const rows = (condition: string, n: number) => select(columnList(collection), condition, n)
  // The cursor row (its columns, unqualified, are the subquery's own), under the same key and
  // partner, and the rows past it in the list's order: none when it is not under the key.
  const past = (dir: '>' | '<') =>
    `${under} AND (${by}) ${dir} (${select(by, `id = $2 AND ${under}`, 4)})`
  return {
    lookup: `${rows(under, 2)} ORDER BY ${by}`,
    lookupOne: `${rows(under, 2)} ORDER BY ${by} LIMIT 1`,
    // $1 an array of keys: the rows under any of them, in one statement.
    lookupAny: `${rows(`(${key}) = ANY($1)${also}`, 2)} ORDER BY ${by}`,
    forward: `${rows(under, 3)} ORDER BY ${by} LIMIT $2`,
    reverse: `${rows(under, 3)} ORDER BY ${byDesc} LIMIT $2`,
    forwardAfter: `${rows(past('>'), 4)} ORDER BY ${by} LIMIT $3`,
    reverseAfter: `${rows(past('<'), 4)} ORDER BY ${byDesc} LIMIT $3`,
    count: select('count(*) AS n', under, 2),
    has: select('1', `${under} AND id = $2`, 3),
    // Walked from key to key down the index (one short descent each), not grouped from every
    // row, then put in the order each key first appeared: the cost is the keys', not the rows'.
    keys:
      `WITH RECURSIVE walk(k) AS ((SELECT (${key}) FROM ${collection} WHERE (${key}) IS NOT NULL${also} ` +
      `ORDER BY 1 LIMIT 1) UNION ALL SELECT (SELECT (${key}) FROM ${collection} WHERE (${key}) > walk.k${also} ` +
      `ORDER BY 1 LIMIT 1) FROM walk WHERE walk.k IS NOT NULL) SELECT k FROM walk WHERE k IS NOT NULL ` +
      `ORDER BY (SELECT min(inserted) FROM ${collection} WHERE (${key}) = walk.k${also})`,
    due: `${rows(`${under} AND ${order ?? 'inserted'} <= $2`, 4)} ORDER BY ${by} LIMIT $3 FOR UPDATE SKIP LOCKED`,
  }
})

/**
 * A rule's use (State.useRule): the row is written with used 1 when absent, else one is added
 * to its `used` while it has uses left; a row comes back only when a use was taken.
 */
export const USE_RULE = `${insertMany('rules', 1, false)} ON CONFLICT (id) DO UPDATE SET used = rules.used + 1 WHERE rules.times IS NULL OR rules.used < rules.times RETURNING used`
