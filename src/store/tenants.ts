import type { CollectionName } from './records.js'

/**
 * The tenant collections: each row is one partner's, from its first write on, for its whole
 * life. On PostgreSQL they are the tables whose primary key starts with partner_id (migration
 * 4, and each tenant table made since), so they can be distributed by partner (Citus
 * `create_distributed_table(table, 'partner_id')`). The other collections are the sandbox's
 * own (its signing key, clocks, scenarios, sinks, the request journal and global rules: rows of no
 * partner, of any, or ring slots whose partner changes with each request): small, and kept
 * whole on every node (`create_reference_table`). docs/postgres.md says how to distribute.
 */
export const tenantCollections: ReadonlySet<CollectionName> = new Set<CollectionName>([
  'partners',
  'users',
  'sessions',
  'verification_codes',
  'events',
  'files',
  'file_contents',
  'webhooks',
  'webhook_deliveries',
  'webhook_labs',
  'onboardings',
  'cards',
  'transactions',
  'deposits',
  'disputes',
  'bank_accounts',
  'connect_tokens',
  'inbox_messages',
])

/** The partner a row belongs to (the tenant key every table carries), when it has one. */
export function partnerOf(collection: CollectionName, row: Record<string, unknown>): string | null {
  if (collection === 'partners') return row.id as string
  if (typeof row.partner_id === 'string') return row.partner_id
  const entry = row.entry as { partner_id?: unknown } | undefined
  if (entry && typeof entry.partner_id === 'string') return entry.partner_id
  return null
}

/**
 * Refuses a write of a tenant row without its partner, or that would move a row (`before`, as
 * it stands) to another partner: either would leave a row outside its tenant's keys.
 */
export function checkTenantRow(
  collection: CollectionName,
  row: Record<string, unknown>,
  before: Record<string, unknown> | undefined,
): void {
  const partner = partnerOf(collection, row)
  if (partner === null)
    throw new Error(`a ${collection} row must belong to a partner (its partner_id)`)
  if (before && partnerOf(collection, before) !== partner)
    throw new Error(`a ${collection} row stays with its partner (${String(row.id)} would move)`)
}

/**
 * Refuses a write, in a transaction scoped to `partner` (State.transaction), of a tenant row of
 * another partner: a partner's request writes its own rows only.
 */
export function checkScope(
  collection: CollectionName,
  row: Record<string, unknown>,
  partner: string,
): void {
  if (partnerOf(collection, row) !== partner)
    throw new Error(
      `a ${collection} row of another partner is written in partner ${partner}'s transaction`,
    )
}
