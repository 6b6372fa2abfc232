import type { CollectionName } from '../../store/records.js'
import { checkTenantRow, partnerOf } from '../../store/tenants.js'
import type { IndexName } from '../indexes.js'
import {
  countsTable,
  type IndexColumns,
  indexColumns,
  layouts,
  type TableLayout,
} from './layout.js'

/**
 * The SQL of every seam operation, built once per collection and index from the layout (and
 * prepared once per connection by the driver), with the parameters a row gives them.
 */

export interface Upsert {
  text: string
  params: (row: Record<string, unknown>) => (string | null)[]
}

/**
 * A table's columns (id, partner, first place, row, then each index's key, order and place)
 * and what an upsert sets in a row already there: its keys and order values, and a new place
 * only under a key it moves to or whose order value changes.
 */
function upsertParts(layout: TableLayout): {
  columns: string[]
  updates: string[]
  /** The columns of places: each row written takes a new one from the sequence. */
  places: Set<string>
} {
  const columns = ['id', 'partner_id', 'added', 'row']
  const places = new Set(['added'])
  // A tenant row's partner is part of its key: it never changes (layout.ts byPartner).
  const updates = layout.byPartner
    ? ['row = EXCLUDED.row']
    : ['partner_id = EXCLUDED.partner_id', 'row = EXCLUDED.row']
  for (const ix of layout.indexes) {
    columns.push(ix.key)
    let same = `t.${ix.key} IS NOT DISTINCT FROM EXCLUDED.${ix.key}`
    if (ix.order) {
      columns.push(ix.order)
      same += ` AND t.${ix.order} IS NOT DISTINCT FROM EXCLUDED.${ix.order}`
    }
    columns.push(ix.pos)
    places.add(ix.pos)
    updates.push(`${ix.pos} = CASE WHEN ${same} THEN t.${ix.pos} ELSE EXCLUDED.${ix.pos} END`)
    updates.push(`${ix.key} = EXCLUDED.${ix.key}`)
    if (ix.order) updates.push(`${ix.order} = EXCLUDED.${ix.order}`)
  }
  return { columns, updates, places }
}

/** The key an upsert finds a row by: a tenant row's partner and id, another's id. */
const conflictKey = (layout: TableLayout) => (layout.byPartner ? '(partner_id, id)' : '(id)')

/**
 * Writes a row: inserted with a new place under each of its keys, or updated keeping its
 * place under a key it stays under with the same order value (as the memory engine keeps
 * it), and its first-added place for `all`.
 */
function upsertOf(layout: TableLayout): Upsert {
  const { columns, updates, places } = upsertParts(layout)
  let n = 0
  const values = columns.map((c) =>
    places.has(c) ? "nextval('sandbox_pos')" : c === 'row' ? `$${++n}::text::json` : `$${++n}`,
  )
  // A row's keys under versioned indexes before the write, answered by it: a cache of the
  // key it leaves (a rotated API key) must be told as well as one of the key it takes.
  const versioned = layout.indexes.filter((ix) => ix.versioned)
  const before =
    versioned.length > 0
      ? `WITH before AS (SELECT ${versioned.map((ix) => `${ix.key} AS "${ix.name}"`).join(', ')} ` +
        `FROM ${layout.table} WHERE id = $1${layout.byPartner ? ' AND partner_id = $2' : ''}) `
      : ''
  const returning =
    versioned.length > 0
      ? ` RETURNING ${versioned.map((ix) => `(SELECT "${ix.name}" FROM before) AS "${ix.name}"`).join(', ')}`
      : ''
  const text =
    `${before}INSERT INTO ${layout.table} AS t (${columns.join(', ')}) VALUES (${values.join(', ')}) ` +
    `ON CONFLICT ${conflictKey(layout)} DO UPDATE SET ${updates.join(', ')}${returning}`
  const params = (row: Record<string, unknown>) => {
    // Refused without its partner, which keys it (store/tenants.ts).
    if (layout.byPartner) checkTenantRow(layout.collection, row, undefined)
    const partner = partnerOf(layout.collection, row)
    const out: (string | null)[] = [row.id as string, partner, JSON.stringify(row)]
    for (const ix of layout.indexes) {
      out.push(ix.keyOf(row as never) ?? null)
      if (ix.orderOf) out.push(ix.orderOf(row as never))
    }
    return out
  }
  return { text, params }
}

/**
 * Deletes a row, answering its keys under versioned indexes (their caches are told);
 * `scoped`: only of the partner in $2.
 */
function removeOf(layout: TableLayout, scoped = false): string {
  const keys = layout.indexes.filter((ix) => ix.versioned).map((ix) => `${ix.key} AS "${ix.name}"`)
  const returning = keys.length > 0 ? ` RETURNING ${keys.join(', ')}` : ''
  return `DELETE FROM ${layout.table} WHERE id = $1${scoped ? ' AND partner_id = $2' : ''}${returning}`
}

export interface IndexSql {
  lookup: string
  lookupOne: string
  /** Answers `n`; of a counted index, also `parts`, the running-count rows it summed. */
  count: string
  /** Of a counted index: folds a key's running-count rows into one (see migration 3). */
  fold?: string
  has: string
  keys: string
  /** Pages: [reverse][after]. */
  range: { forward: string; reverse: string; forwardAfter: string; reverseAfter: string }
}

/**
 * An index's statements; `scoped`: one partner's rows only (State.tenant), the partner the
 * last parameter (a counted index's count is its key's, scoped or not).
 */
function indexSqlOf(layout: TableLayout, ix: IndexColumns, scoped = false): IndexSql {
  const { table } = layout
  const mine = (n: number) => (scoped ? ` AND partner_id = $${n}` : '')
  const by = ix.order ? [ix.order, ix.pos] : [ix.pos]
  const asc = by.join(', ')
  const desc = by.map((c) => `${c} DESC`).join(', ')
  const tuple = ix.order ? `(${ix.order}, ${ix.pos})` : ix.pos
  const at = `(SELECT ${ix.order ? `${ix.order}, ${ix.pos}` : ix.pos} FROM ${table} WHERE id = $2 AND ${ix.key} = $1)`
  const base = `SELECT row FROM ${table} WHERE ${ix.key} = $1`
  const count = countSql(layout, ix)
  return {
    lookup: `${base}${mine(2)} ORDER BY ${asc}`,
    lookupOne: `${base}${mine(2)} ORDER BY ${asc} LIMIT 1`,
    ...(scoped && !ix.counted ? { count: `${count.count}${mine(2)}` } : count),
    has: `SELECT 1 FROM ${table} WHERE ${ix.key} = $1 AND id = $2${mine(3)}`,
    keys: keysSql(table, ix),
    range: {
      forward: `${base}${mine(3)} ORDER BY ${asc} LIMIT $2`,
      reverse: `${base}${mine(3)} ORDER BY ${desc} LIMIT $2`,
      forwardAfter: `${base} AND ${tuple} > ${at}${mine(4)} ORDER BY ${asc} LIMIT $3`,
      reverseAfter: `${base} AND ${tuple} < ${at}${mine(4)} ORDER BY ${desc} LIMIT $3`,
    },
  }
}

/**
 * An index's keys, in the order of each key's first row still there (its least place). Of an
 * index without an order value, a walk of the index from key to key (one short descent each,
 * whatever the rows under it), each key's first place the first entry under it: retention reads
 * the keys of its bucket indexes every second, and a scan of every row of the table grew with
 * the history kept. An ordered index keeps its places after its order values, so its least
 * place is found by reading its rows (no bucket index is ordered).
 */
function keysSql(table: string, ix: IndexColumns): string {
  const { key, pos } = ix
  if (ix.order)
    return `SELECT ${key} AS k FROM ${table} WHERE ${key} IS NOT NULL GROUP BY ${key} ORDER BY min(${pos})`
  const next = (after: string) =>
    `SELECT ${key} FROM ${table} WHERE ${after} ORDER BY ${key} LIMIT 1`
  return (
    `WITH RECURSIVE walk(k) AS ((${next(`${key} IS NOT NULL`)}) UNION ALL ` +
    `SELECT (${next(`${key} > walk.k`)}) FROM walk WHERE walk.k IS NOT NULL) ` +
    `SELECT k FROM walk WHERE k IS NOT NULL ` +
    `ORDER BY (SELECT ${pos} FROM ${table} WHERE ${key} = walk.k ORDER BY ${pos} LIMIT 1)`
  )
}

/**
 * A count: of a counted index, the sum of its key's running counts, read from a few rows
 * whatever the key holds; of another, the rows under the key. A fold deletes a key's rows and
 * writes their sum back in one statement, so every count sums the same before and after it.
 */
function countSql(layout: TableLayout, ix: IndexColumns): Pick<IndexSql, 'count' | 'fold'> {
  if (!ix.counted)
    return { count: `SELECT count(*)::int AS n FROM ${layout.table} WHERE ${ix.key} = $1` }
  const counts = countsTable(layout)
  const mine = `idx = '${ix.name}' AND k = $1`
  return {
    count: `SELECT coalesce(sum(delta), 0)::int AS n, count(*)::int AS parts FROM ${counts} WHERE ${mine}`,
    fold:
      `WITH gone AS (DELETE FROM ${counts} WHERE ${mine} RETURNING delta) ` +
      `INSERT INTO ${counts} (idx, k, delta) SELECT '${ix.name}', $1, sum(delta) FROM gone ` +
      'HAVING count(*) > 0 AND sum(delta) <> 0',
  }
}

export interface TableSql {
  layout: TableLayout
  get: string
  /** The rows of an array of ids. */
  getMany: string
  all: string
  remove: string
  upsert: Upsert
  /** Of a tenant table: the same, of one partner's rows (the partner the last parameter). */
  scoped?: { get: string; all: string; remove: string }
}

export const tableSql = Object.fromEntries(
  Object.values(layouts).map((layout) => [
    layout.collection,
    {
      layout,
      get: `SELECT row FROM ${layout.table} WHERE id = $1`,
      getMany: `SELECT row FROM ${layout.table} WHERE id = ANY($1::text[])`,
      all: `SELECT row FROM ${layout.table} ORDER BY added`,
      remove: removeOf(layout),
      upsert: upsertOf(layout),
      scoped: layout.byPartner
        ? {
            get: `SELECT row FROM ${layout.table} WHERE id = $1 AND partner_id = $2`,
            all: `SELECT row FROM ${layout.table} WHERE partner_id = $1 ORDER BY added`,
            remove: removeOf(layout, true),
          }
        : undefined,
    },
  ]),
) as Record<CollectionName, TableSql>

export const indexSql = Object.fromEntries(
  Object.entries(indexColumns).map(([name, { layout, columns }]) => [
    name,
    indexSqlOf(layout, columns),
  ]),
) as Record<IndexName, IndexSql>

/** The statements of the indexes of tenant tables, of one partner's rows (State.tenant). */
export const scopedIndexSql = Object.fromEntries(
  Object.entries(indexColumns)
    .filter(([, { layout }]) => layout.byPartner)
    .map(([name, { layout, columns }]) => [name, indexSqlOf(layout, columns, true)]),
) as Partial<Record<IndexName, IndexSql>>

/** The statements writing many rows at once, by the names of their collections in order. */
const batched = new Map<string, string>()
const batchedWrites = new Map<string, string>()

/**
 * Per collection of `collections`, an INSERT of any number of its rows, each as `upsertOf`
 * writes one, from its parameter arrays (`unnest`), the first at $`first`; and, of a table
 * with versioned indexes, a SELECT of its rows' keys there before (`null` else).
 */
function batchPartsOf(collections: readonly CollectionName[]) {
  let n = 0
  const parts = collections.map((collection) => {
    const layout = layouts[collection]
    const { columns, updates, places } = upsertParts(layout)
    // Every column but the places, which each row takes from the sequence, is an array.
    const given = columns.filter((c) => !places.has(c))
    const first = n + 1
    const arrays = given.map(() => `$${++n}::text[]`)
    const values = columns.map((c) =>
      places.has(c) ? "nextval('sandbox_pos')" : c === 'row' ? 'v.row::json' : `v.${c}`,
    )
    const insert =
      `INSERT INTO ${layout.table} AS t (${columns.join(', ')}) ` +
      `SELECT ${values.join(', ')} FROM unnest(${arrays.join(', ')}) AS v(${given.join(', ')}) ` +
      `ON CONFLICT ${conflictKey(layout)} DO UPDATE SET ${updates.join(', ')}`
    // The ids are the first array, the partners the second (upsertParts' columns).
    const versioned = layout.indexes.filter((ix) => ix.versioned)
    const before =
      versioned.length > 0
        ? `SELECT json_build_object(${versioned.map((ix) => `'${ix.name}', ${ix.key}`).join(', ')}) AS keys ` +
          `FROM ${layout.table} WHERE id = ANY($${first}::text[])` +
          (layout.byPartner ? ` AND partner_id = ANY($${first + 1}::text[])` : '')
        : null
    return { insert, before }
  })
  return Object.assign(parts, { params: n })
}

/**
 * One statement writing any number of rows of each of `collections` (different ones), each
 * row as `upsertOf` writes one: per collection, an INSERT of the rows of its parameter arrays
 * (`unnest`), all but the last as data-modifying CTEs. Its text depends on the collections
 * alone, not on how many rows, so it is prepared once. The rows of one collection must have
 * different ids (a row cannot be written twice by one INSERT). Nothing is answered: it is for
 * ephemeral rows, whose keys no cache follows.
 */
export function batchUpsertOf(collections: readonly CollectionName[]): string {
  return cached(batched, collections, () => {
    const parts = batchPartsOf(collections).map((part) => part.insert)
    const last = parts.pop() as string
    return parts.length ? `WITH ${parts.map((p, i) => `w${i} AS (${p})`).join(', ')} ${last}` : last
  })
}

/**
 * A transaction's writes in one statement: batchUpsertOf's INSERTs, all as data-modifying
 * CTEs, answering one row (`keys`, a JSON object by index name) for each row written that was
 * there before, with its keys under versioned indexes then, as `upsertOf` answers them: every
 * part reads the table as it was when the statement began.
 */
export function batchWriteOf(collections: readonly CollectionName[]): string {
  return cached(batchedWrites, collections, () => {
    const { ctes, before } = writesOf(collections)
    return `WITH ${ctes} ${before}`
  })
}

const batchedNotices = new Map<string, string>()

/**
 * batchWriteOf's writes, also numbering and sending the transaction's notice (change-notices.ts
 * noticeOf): its parameters are the batch's, then the channel, the notice's head and its
 * `whole`. The database completes the notice with the keys the rows left (`b`, if any) and
 * the number it takes (`n`), last in the transaction as a notice sent alone is, and answers
 * one row: `keys`, those keys as a JSON array (or null), and `n`. A notice that would be too
 * long for NOTIFY (8,000 bytes) is sent as its `whole` instead. So a transaction's last writes
 * and its notice are one statement, sent with the COMMIT.
 */
export function batchWriteNoticeOf(collections: readonly CollectionName[]): string {
  return cached(batchedNotices, collections, () => {
    const { ctes, before, params } = writesOf(collections)
    const [channel, head, whole] = [1, 2, 3].map((i) => `$${params + i}`)
    const numbered = (body: string) => `${body} || ',"n":' || n || '}'`
    return (
      `WITH ${ctes}, before AS (${before}), ` +
      'moved AS (SELECT json_agg(keys) AS keys FROM before), ' +
      "numbered AS (SELECT nextval('sandbox_commits') AS n), " +
      `notice AS (SELECT n, ${numbered(`${head}::text || coalesce(',"b":' || (SELECT keys FROM moved)::text, '')`)} AS body FROM numbered) ` +
      `SELECT (SELECT keys FROM moved) AS keys, n, pg_notify(${channel}::text, ` +
      `CASE WHEN octet_length(body) < 8000 THEN body ELSE ${numbered(`${whole}::text`)} END) ` +
      'FROM notice'
    )
  })
}

/**
 * The INSERTs of `collections` as data-modifying CTEs (`w0 AS (…), …`), the SELECT of the keys
 * their rows had before (batchWriteOf), and how many parameters they take.
 */
function writesOf(collections: readonly CollectionName[]) {
  const parts = batchPartsOf(collections)
  const befores = parts.flatMap((part) => (part.before ? [part.before] : []))
  return {
    ctes: parts.map((part, i) => `w${i} AS (${part.insert})`).join(', '),
    before:
      befores.length > 0 ? befores.join(' UNION ALL ') : 'SELECT NULL::json AS keys WHERE false',
    params: parts.params,
  }
}

/** A statement's text by its collections, built once. */
function cached(
  texts: Map<string, string>,
  collections: readonly CollectionName[],
  build: () => string,
) {
  const key = collections.join(',')
  let text = texts.get(key)
  if (text === undefined) {
    text = build()
    texts.set(key, text)
  }
  return text
}

/** The parameters of batchUpsertOf([collection]) for `rows`: one array per given column. */
export function batchParamsOf(
  collection: CollectionName,
  rows: readonly Record<string, unknown>[],
): (string | null)[][] {
  return columnsOf(rows.map(tableSql[collection].upsert.params))
}

/** Rows' upsert parameters (`Upsert.params`), as batch parameters: one array per column. */
export function columnsOf(rows: Iterable<(string | null)[]>): (string | null)[][] {
  const columns: (string | null)[][] = []
  for (const values of rows) {
    values.forEach((value, i) => {
      columns[i] ??= []
      ;(columns[i] as (string | null)[]).push(value)
    })
  }
  return columns
}

/**
 * Whether two upserts' parameters of one row put it under other keys or order values (the
 * parameters after its id, partner and row text): a row that moved takes a new place.
 */
export function movedBetween(a: (string | null)[], b: (string | null)[]): boolean {
  for (let i = 3; i < a.length; i++) if (a[i] !== b[i]) return true
  return false
}
