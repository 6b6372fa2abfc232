import type { CollectionName } from '../../store/records.js'
import { tables } from './tables.js'

export type Row = Record<string, unknown>

/** The parameters of a row, in its table's column order. */
export function paramsOf(collection: CollectionName, row: Row): unknown[] {
  return tables[collection].columns.map((column) => {
    const value = row[column.name]
    if (value === undefined || value === null) return null
    // Arrays too: the driver would send a JS array as a PostgreSQL array, not as JSON.
    if (column.type === 'json') return JSON.stringify(value)
    if (column.type === 'bytea') return Buffer.from(value as string, 'base64')
    return value
  })
}

/**
 * A record from its table's row, its fields in the schema's order: an optional field stored as
 * NULL is absent, as it was written. Times come back as ISO 8601 (pool.ts's type parser).
 */
export function recordOf(collection: CollectionName, found: Row): Row {
  const record: Row = {}
  for (const column of tables[collection].columns) {
    const value = found[column.name]
    if (value === null && column.optional) continue
    record[column.name] =
      column.type === 'bytea' && Buffer.isBuffer(value) ? value.toString('base64') : value
  }
  return record
}
