import { bucketKey } from '../state/indexes.js'
import type { StateReader } from '../state/seam.js'

/** The first page of a walk; each next one is twice as long, up to MAX_PAGE. */
const FIRST_PAGE = 16
const MAX_PAGE = 1024

/**
 * The partner's deliveries that finished (succeeded, or gave up) at or after `since` (epoch
 * ms of its clock), for `/partner/usage`, counted from the rows: each outcome's finished
 * deliveries less those that finished before `since`, found walking them oldest first. History
 * is capped per partner (retention.ts), so the walk is bounded; with less than a day of it, the
 * first row read ends it.
 */
export async function finishedSince(
  reader: Pick<StateReader, 'count' | 'range'>,
  partnerId: string,
  since: number,
): Promise<{ succeeded: number; permanentlyFailed: number }> {
  const from = new Date(since).toISOString()
  const [succeeded, permanentlyFailed] = await Promise.all([
    countSince(reader, bucketKey(partnerId, 'succeeded'), from),
    countSince(reader, bucketKey(partnerId, 'permanently_failed'), from),
  ])
  return { succeeded, permanentlyFailed }
}

async function countSince(
  reader: Pick<StateReader, 'count' | 'range'>,
  key: string,
  from: string,
): Promise<number> {
  const total = await reader.count('deliveries_finished_by_partner', key)
  let before = 0
  let after: string | undefined
  for (let limit = FIRST_PAGE; ; limit = Math.min(limit * 2, MAX_PAGE)) {
    const page = await reader.range('deliveries_finished_by_partner', key, { after, limit })
    for (const row of page) {
      if ((row.completed_at ?? '') >= from) return Math.max(0, total - before)
      before++
    }
    if (page.length < limit) return Math.max(0, total - before)
    after = page[page.length - 1]?.id
  }
}
