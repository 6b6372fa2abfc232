import { type CollectionName, collectionNames, ephemeralCollections } from '../../store/records.js'
import { tenantCollections } from '../../store/tenants.js'
import { type Column, tableColumns } from './columns.js'

/**
 * One table per collection (the collection's name), its columns from the zod row schema
 * (columns.ts). Tenant tables key on (partner_id, id), so distributing by partner is
 * configuration; their rows are found by id alone through a plain index on id. Each table also
 * has `inserted`, the order rows were first written in: lists of rows with the same time, and
 * lookups that are not ordered by a time, come in that order (as the memory engine keeps them).
 * Ephemeral collections (records.ts) are UNLOGGED tables: they are not durable state.
 */

export interface ForeignKey {
  columns: string[]
  table: CollectionName
  to: string[]
}

export interface TableSpec {
  collection: CollectionName
  columns: Column[]
  /** The columns' names, in order. */
  names: readonly string[]
  /** The primary key's columns. */
  key: string[]
  tenant: boolean
  unlogged: boolean
  references: ForeignKey[]
}

const toPartner: ForeignKey = { columns: ['partner_id'], table: 'partners', to: ['id'] }
const toOwn = (column: string, table: CollectionName): ForeignKey => ({
  columns: ['partner_id', column],
  table,
  to: ['partner_id', 'id'],
})

/**
 * Where one row belongs to another, removed with it (ON DELETE CASCADE: a partner's removal
 * removes its rows). Checked at commit (DEFERRABLE INITIALLY DEFERRED), so a transaction may
 * write a parent and its children in any order. Deliveries and labs name their endpoint and
 * event without a key: a delivery outlives both (its attempts say "the endpoint was deleted").
 */
const references: Partial<Record<CollectionName, ForeignKey[]>> = {
  users: [toPartner],
  sessions: [toOwn('user_id', 'users')],
  verification_codes: [toOwn('user_id', 'users')],
  events: [toPartner],
  files: [toOwn('user_id', 'users')],
  webhooks: [toPartner],
  webhook_deliveries: [toPartner],
  webhook_labs: [toPartner],
  onboardings: [toOwn('user_id', 'users')],
  cards: [toOwn('user_id', 'users')],
  transactions: [toOwn('card_id', 'cards')],
  deposits: [toOwn('card_id', 'cards')],
  disputes: [toOwn('transaction_id', 'transactions')],
  bank_accounts: [toOwn('user_id', 'users')],
  connect_tokens: [toOwn('user_id', 'users')],
}

function specOf(collection: CollectionName): TableSpec {
  const tenant = tenantCollections.has(collection) && collection !== 'partners'
  return {
    collection,
    columns: tableColumns[collection],
    names: tableColumns[collection].map((column) => column.name),
    key: tenant ? ['partner_id', 'id'] : ['id'],
    tenant,
    unlogged: ephemeralCollections.includes(collection),
    references: references[collection] ?? [],
  }
}

export const tables = Object.fromEntries(
  collectionNames.map((name) => [name, specOf(name)]),
) as Record<CollectionName, TableSpec>
