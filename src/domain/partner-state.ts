import type { Deps } from '../deps.js'
import type { ErrorDetail } from '../errors.js'
import {
  type CollectionName,
  type CollectionsData,
  collectionNames,
  emptyCollections,
  type PartnerRow,
} from '../store/records.js'
import { rowsOfPartner } from './export.js'
import { requirePartner } from './partners.js'
import { invalidSnapshot, parseSnapshotRows, type UploadedSnapshot } from './snapshots.js'

/**
 * Reset, delete and restore of one partner: the per-worker counterparts of the global reset
 * and restore, so one test worker can start clean without touching another's data. Each is
 * one store batch (one journal entry): after a crash it happened wholly or not at all.
 */

type Rows = CollectionsData

/** The partner's data rows: everything it owns except its own row. */
function dataOf(deps: Deps, partnerId: string): Rows {
  const rows = rowsOfPartner(deps.store.export().collections, partnerId)
  rows.partners = {}
  return rows
}

/**
 * Replaces the partner's data rows with `next` (its own row becomes `partner`, or goes when
 * null), then brings the in-memory state derived from them in line.
 */
function replacePartnerData(
  deps: Deps,
  partnerId: string,
  next: Rows,
  partner: PartnerRow | null,
): void {
  const current = dataOf(deps, partnerId)
  deps.store.batch((w) => {
    for (const name of collectionNames) {
      for (const id of Object.keys(current[name])) {
        if (!(id in next[name])) w.remove(name, id)
      }
      for (const row of Object.values(next[name])) w.put(name, row as never)
    }
    if (partner) w.put('partners', partner)
    else w.remove('partners', partnerId)
  })
  for (const id of Object.keys(current.files)) if (!(id in next.files)) deps.files.remove(id)
  deps.inbox.removePartner(partnerId)
  deps.dispatcher.reload(partnerId)
}

/**
 * Removes the partner's users, sessions, codes, onboardings, cards, money, webhooks,
 * deliveries, events, pictures and inbox messages. Its credentials and settings stay, and
 * so do its clock and its primary webhook endpoint (the mirror of its `webhook_url` setting).
 */
export function resetPartner(deps: Deps, partnerId: string): void {
  const partner = requirePartner(deps, partnerId)
  const kept = emptyCollections()
  for (const w of deps.store.lookup('webhooks', 'webhooks_by_partner', partnerId)) {
    if (w.primary) kept.webhooks[w.id] = w
  }
  replacePartnerData(deps, partnerId, kept, partner)
}

/** Removes the partner and everything it owns; its credentials fail from the next request. */
export function deletePartner(deps: Deps, partnerId: string): void {
  requirePartner(deps, partnerId)
  replacePartnerData(deps, partnerId, emptyCollections(), null)
  deps.credentials.forget(partnerId)
}

/**
 * Restores one partner's data from its own snapshot (GET /_sandbox/partners/{id}/snapshot).
 * Every row is checked first: its schema, that it belongs to this partner, that its id is
 * not another partner's, and that the user it names is in the document. On any problem
 * nothing changes. Credentials and settings stay as they are; the clock is the snapshot's.
 */
export function restorePartner(
  deps: Deps,
  partnerId: string,
  doc: UploadedSnapshot & { partner_id: string },
): void {
  const partner = requirePartner(deps, partnerId)
  const { data, details } = parseSnapshotRows(deps, doc)
  if (doc.partner_id !== partnerId) {
    details.unshift({
      field: 'partner_id',
      message: `must be ${partnerId}: a partner snapshot restores only into its own partner`,
      location: 'body',
    })
  }
  details.push(...ownershipProblems(deps, partnerId, data))
  if (details.length > 0) throw invalidSnapshot(details)
  const own = data.partners[partnerId]
  data.partners = {}
  replacePartnerData(deps, partnerId, data, { ...partner, clock: own ? own.clock : partner.clock })
}

function ownershipProblems(deps: Deps, partnerId: string, data: Rows): ErrorDetail[] {
  const details: ErrorDetail[] = []
  const problem = (name: string, id: string, field: string, message: string) =>
    details.push({ field: `collections.${name}.${id}.${field}`, message, location: 'body' })
  for (const name of collectionNames) {
    for (const [id, row] of Object.entries(data[name])) {
      if (name === 'meta') {
        problem(name, id, 'id', 'the sandbox-wide meta row is not part of a partner snapshot')
        continue
      }
      if (name === 'partners') {
        if (id !== partnerId) problem(name, id, 'id', `only the row of partner ${partnerId} fits`)
        continue
      }
      const owned = row as { partner_id: string; user_id?: string }
      if (owned.partner_id !== partnerId) problem(name, id, 'partner_id', `must be ${partnerId}`)
      const existing = deps.store.get(name as CollectionName, id) as { partner_id?: string }
      if (existing && existing.partner_id !== partnerId)
        problem(name, id, 'id', 'is the id of another partner’s row')
      if (owned.user_id !== undefined && !data.users[owned.user_id])
        problem(name, id, 'user_id', 'names a user that is not in this snapshot')
    }
  }
  return details
}
