import { type CollectionName, collectionNames, ephemeralCollections } from '../../store/records.js'
import { tenantCollections } from '../../store/tenants.js'
import { type IndexName, indexDefs } from '../indexes.js'

/**
 * How the PostgreSQL engine lays the seam's collections out: one table per collection, the row
 * as JSON beside its id and its partner, and for each declared index (src/state/indexes.ts) the
 * row's key under it (`k_`), its order value (`o_`, ordered indexes only) and its place (`p_`),
 * computed from the row when it is written. So an index is a btree over plain columns, and a
 * lookup or a page of it is one indexed query, whatever the key function is.
 *
 * The migrations (migrations.ts) create exactly these columns; test/postgres-layout.test.ts
 * checks that they do, so an index added to indexDefs without a migration fails there.
 */

export interface IndexColumns {
  name: IndexName
  key: string
  /** Where the row entered the key (a sequence): ties in `order`, or the whole order. */
  pos: string
  order?: string
  keyOf: (row: never) => string | undefined
  /** A cache keyed on its keys' versions is told of their changes (seam keyVersion). */
  versioned: boolean
  /** Its count is a sum of running counts (migration 3), not a count of its rows. */
  counted: boolean
  orderOf?: (row: never) => string
}

export interface TableLayout {
  collection: CollectionName
  /** The table's name (the collection's, in the sandbox's schema). */
  table: string
  /** Not durable: an UNLOGGED table (see records.ts ephemeralCollections). */
  ephemeral: boolean
  /** A tenant table (store/tenants.ts): its primary key is (partner_id, id) (migration 4). */
  byPartner: boolean
  indexes: IndexColumns[]
}

function layoutOf(collection: CollectionName): TableLayout {
  const indexes: IndexColumns[] = []
  for (const [name, def] of Object.entries(indexDefs) as [
    IndexName,
    (typeof indexDefs)[IndexName],
  ][]) {
    if (def.collection !== collection) continue
    const ordered = 'order' in def && def.order !== undefined
    indexes.push({
      name,
      key: `k_${name}`,
      pos: `p_${name}`,
      order: ordered ? `o_${name}` : undefined,
      keyOf: def.key as (row: never) => string | undefined,
      versioned: 'versioned' in def && def.versioned === true,
      counted: 'counted' in def && def.counted === true,
      orderOf: ordered ? (def.order as (row: never) => string) : undefined,
    })
  }
  return {
    collection,
    table: collection,
    ephemeral: ephemeralCollections.includes(collection),
    byPartner: tenantCollections.has(collection),
    indexes,
  }
}

export const layouts = Object.fromEntries(
  collectionNames.map((name) => [name, layoutOf(name)]),
) as Record<CollectionName, TableLayout>

/** Where a counted index's running counts are kept: UNLOGGED for an ephemeral table. */
export function countsTable(layout: TableLayout): string {
  return layout.ephemeral ? 'sandbox_ephemeral_counts' : 'sandbox_counts'
}

/** The index's columns, by its name. */
export const indexColumns = Object.fromEntries(
  Object.values(layouts).flatMap((layout) =>
    layout.indexes.map((columns) => [columns.name, { layout, columns }]),
  ),
) as Record<IndexName, { layout: TableLayout; columns: IndexColumns }>

/**
 * The DDL of one table and its indexes, as the first migration wrote it (migration 4 then
 * gave the tenant tables their key).
 */
export function createTableSql(layout: TableLayout): string {
  const columns = [
    'id text PRIMARY KEY',
    'partner_id text',
    'added bigint NOT NULL',
    'row json NOT NULL',
  ]
  const indexes: string[] = [
    `CREATE INDEX ${layout.table}_partner ON ${layout.table} (partner_id);`,
  ]
  for (const ix of layout.indexes) {
    columns.push(`${ix.key} text`)
    if (ix.order) columns.push(`${ix.order} text`)
    columns.push(`${ix.pos} bigint`)
    const by = [ix.key, ix.order, ix.pos].filter(Boolean).join(', ')
    indexes.push(`CREATE INDEX ${ix.name} ON ${layout.table} (${by}) WHERE ${ix.key} IS NOT NULL;`)
  }
  const unlogged = layout.ephemeral ? 'UNLOGGED ' : ''
  return [
    `CREATE ${unlogged}TABLE ${layout.table} (\n  ${columns.join(',\n  ')}\n);`,
    ...indexes,
  ].join('\n')
}
