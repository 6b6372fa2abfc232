import type { ErrorDetail } from '../errors.js'
import type { Random } from '../random.js'
import type { StateReader, StateTx } from '../state/seam.js'
import {
  type CollectionName,
  type CollectionsData,
  collectionNames,
  type DeliveryRow,
  emptyCollections,
  type PartnerRow,
} from '../store/records.js'
import { partnerById } from './partners.js'
import { invalidSnapshot, parseSnapshotRows, type UploadedSnapshot } from './snapshots.js'

/**
 * Reset, delete and restore of one partner: the per-worker counterparts of the global reset
 * and restore, so one test worker can start clean without touching another's data. Each is
 * one transaction (one journal entry): after a crash it happened wholly or not at all. Like
 * the global ones they take the partner's ephemeral rows too (state no snapshot holds).
 */

type Rows = CollectionsData

/** The partner's data rows: everything it owns except its own row, ephemeral rows included. */
async function dataOf(reader: StateReader, partnerId: string): Promise<Rows> {
  const out = emptyCollections()
  for (const name of collectionNames) {
    if (name === 'meta' || name === 'partners') continue
    const into = out[name] as Record<string, unknown>
    for (const row of await reader.all(name))
      if ((row as { partner_id?: unknown }).partner_id === partnerId) into[row.id] = row
  }
  return out
}

/**
 * Replaces the partner's data rows with `next` (its own row becomes `partner`, or goes when
 * null).
 */
async function replacePartnerData(
  tx: StateTx,
  partnerId: string,
  next: Rows,
  partner: PartnerRow | null,
): Promise<void> {
  const current = await dataOf(tx, partnerId)
  for (const name of collectionNames) {
    for (const id of Object.keys(current[name])) {
      if (!(id in next[name])) tx.remove(name, id)
    }
    for (const row of Object.values(next[name])) tx.put(name, row as never)
  }
  if (partner) tx.put('partners', partner)
  else tx.remove('partners', partnerId)
}

/**
 * Removes the partner's users, sessions, codes, onboardings, cards, money, webhooks,
 * deliveries, events, pictures and inbox messages. Its credentials and settings stay, and
 * so do its clock and its primary webhook endpoint (the mirror of its `webhook_url` setting).
 */
export async function resetPartner(tx: StateTx, partnerId: string): Promise<void> {
  const partner = await partnerById(tx, partnerId)
  const kept = emptyCollections()
  for (const w of await tx.lookup('webhooks_by_partner', partnerId)) {
    if (w.primary) kept.webhooks[w.id] = w
  }
  return replacePartnerData(tx, partnerId, kept, partner)
}

/** Removes the partner and everything it owns; its credentials fail from the next request. */
export async function deletePartner(tx: StateTx, partnerId: string): Promise<void> {
  await partnerById(tx, partnerId)
  return replacePartnerData(tx, partnerId, emptyCollections(), null)
}

/**
 * Restores one partner's data from its own snapshot (GET /_sandbox/partners/{id}/snapshot).
 * Every row is checked first: its schema, that it belongs to this partner, that its id is
 * not another partner's, and that the user it names is in the document. On any problem
 * nothing changes. Credentials and settings stay as they are; the clock is the snapshot's.
 */
export async function restorePartner(
  ctx: { random: Random; scheduled?: (delivery: DeliveryRow) => void },
  tx: StateTx,
  partnerId: string,
  doc: UploadedSnapshot & { partner_id: string },
): Promise<void> {
  const partner = await partnerById(tx, partnerId)
  const { data, details } = await parseSnapshotRows(ctx.random, tx, doc)
  if (doc.partner_id !== partnerId) {
    details.unshift({
      field: 'partner_id',
      message: `must be ${partnerId}: a partner snapshot restores only into its own partner`,
      location: 'body',
    })
  }
  details.push(...(await ownershipProblems(tx, partnerId, data)))
  if (details.length > 0) throw invalidSnapshot(details)
  const own = data.partners[partnerId]
  data.partners = {}
  // Its pending deliveries are the dispatcher's to send: told of them once they are rows.
  const { scheduled } = ctx
  const deliveries = Object.values(data.webhook_deliveries) as DeliveryRow[]
  if (scheduled) tx.afterCommit(() => deliveries.forEach(scheduled))
  return replacePartnerData(tx, partnerId, data, {
    ...partner,
    clock: own ? own.clock : partner.clock,
  })
}

async function ownershipProblems(
  reader: StateReader,
  partnerId: string,
  data: Rows,
): Promise<ErrorDetail[]> {
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
      const existing = (await reader.get(name as CollectionName, id)) as
        | { partner_id?: string }
        | undefined
      if (existing && existing.partner_id !== partnerId)
        problem(name, id, 'id', 'is the id of another partner’s row')
      if (owned.user_id !== undefined && !data.users[owned.user_id])
        problem(name, id, 'user_id', 'names a user that is not in this snapshot')
    }
  }
  return details
}
