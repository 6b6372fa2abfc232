import type { Deps } from '../deps.js'
import { type CollectionsData, collectionNames, emptyCollections } from '../store/records.js'
import type { SnapshotDoc } from '../store/snapshot-file.js'
import { redactSecrets } from './snapshot-secrets.js'

/**
 * The one export of the sandbox's state, for the whole sandbox (GET /_sandbox/snapshot) or
 * for one partner (GET /_sandbox/partners/{id}/snapshot), so whatever is done to an export
 * (redaction of secrets, for one) applies to both.
 */
export interface ExportFilter {
  /** Only this partner's rows: its own row and every row whose `partner_id` is it. */
  partnerId?: string
  /** Key material too (snapshot-secrets.ts); redacted unless asked. */
  includeSecrets?: boolean
}

export type PartnerSnapshotDoc = SnapshotDoc & { partner_id: string }

export function exportState(deps: Deps, filter?: { includeSecrets?: boolean }): SnapshotDoc
export function exportState(
  deps: Deps,
  filter: { partnerId: string; includeSecrets?: boolean },
): PartnerSnapshotDoc
export function exportState(
  deps: Deps,
  filter: ExportFilter = {},
): SnapshotDoc | PartnerSnapshotDoc {
  const doc = deps.store.export()
  const secrets = (collections: CollectionsData) =>
    filter.includeSecrets ? collections : redactSecrets(collections)
  if (filter.partnerId === undefined) return { ...doc, collections: secrets(doc.collections) }
  return {
    ...doc,
    partner_id: filter.partnerId,
    saved_at: deps.clocks.forPartner(filter.partnerId).iso(),
    collections: secrets(rowsOfPartner(doc.collections, filter.partnerId)),
  }
}

/** The rows of one partner; the sandbox-wide `meta` row belongs to nobody. */
export function rowsOfPartner(collections: CollectionsData, partnerId: string): CollectionsData {
  const out = emptyCollections()
  for (const name of collectionNames) {
    if (name === 'meta') continue
    const into = out[name] as Record<string, unknown>
    for (const [id, row] of Object.entries(collections[name])) {
      const owner = name === 'partners' ? row.id : (row as { partner_id: string }).partner_id
      if (owner === partnerId) into[id] = row
    }
  }
  return out
}
