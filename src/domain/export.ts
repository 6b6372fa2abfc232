import type { State } from '../state/seam.js'
import {
  type CollectionsData,
  collectionNames,
  emptyCollections,
  ephemeralCollections,
} from '../store/records.js'
import type { SnapshotDoc } from '../store/snapshot-file.js'
import type { PartnerClocks } from './partner-clocks.js'
import { redactSecrets } from './snapshot-secrets.js'

/**
 * The one export of the sandbox's state, for the whole sandbox (GET /_sandbox/snapshot) or
 * for one partner (GET /_sandbox/partners/{id}/snapshot), so whatever is done to an export
 * (redaction of secrets, for one; leaving out the ephemeral collections, which a snapshot
 * never holds) applies to both.
 */
export interface ExportFilter {
  /** Only this partner's rows: its own row and every row whose `partner_id` is it. */
  partnerId?: string
  /** Key material too (snapshot-secrets.ts); redacted unless asked. */
  includeSecrets?: boolean
}

export type PartnerSnapshotDoc = SnapshotDoc & { partner_id: string }

export interface ExportContext {
  state: State
  clocks: PartnerClocks
}

export function exportState(
  ctx: ExportContext,
  filter?: { includeSecrets?: boolean },
): Promise<SnapshotDoc>
export function exportState(
  ctx: ExportContext,
  filter: { partnerId: string; includeSecrets?: boolean },
): Promise<PartnerSnapshotDoc>
export async function exportState(
  ctx: ExportContext,
  filter: ExportFilter = {},
): Promise<SnapshotDoc | PartnerSnapshotDoc> {
  const doc = await ctx.state.export()
  const shown = (collections: CollectionsData) =>
    withoutEphemeral(filter.includeSecrets ? collections : redactSecrets(collections))
  if (filter.partnerId === undefined) return { ...doc, collections: shown(doc.collections) }
  return {
    ...doc,
    partner_id: filter.partnerId,
    saved_at: ctx.clocks.forPartner(filter.partnerId).iso(),
    collections: shown(rowsOfPartner(doc.collections, filter.partnerId)),
  }
}

/** The collections without the ephemeral ones: they are state, but never in a snapshot. */
function withoutEphemeral(collections: CollectionsData): CollectionsData {
  if (ephemeralCollections.length === 0) return collections
  const out: Partial<CollectionsData> = { ...collections }
  for (const name of ephemeralCollections) delete out[name]
  return out as CollectionsData
}

/** The rows of one partner; the sandbox-wide `meta` row belongs to nobody. */
export function rowsOfPartner(collections: CollectionsData, partnerId: string): CollectionsData {
  const out = emptyCollections()
  for (const name of collectionNames) {
    if (name === 'meta') continue
    const into = out[name] as Record<string, unknown>
    for (const [id, row] of Object.entries(collections[name] ?? {})) {
      const owner = name === 'partners' ? row.id : (row as { partner_id?: unknown }).partner_id
      if (owner === partnerId) into[id] = row
    }
  }
  return out
}
