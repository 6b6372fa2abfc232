import type { DeliveryRow } from '../store/records.js'

/**
 * When each partner's deliveries finished, kept sorted, so `/partner/usage` counts the last
 * 24 hours with two binary searches instead of reading every delivery the partner ever had
 * (that scan grew with history and was what slowed a long soak down). A derivation of the
 * stored rows: the dispatcher adds each delivery committed finished, and rebuilds it from the
 * rows at start-up and after a reset or restore (so after a restart it counts the
 * deliveries still kept: the per-partner cap may have removed some of the last day's). Bounded
 * as it is written, not only as it is read: each partner keeps two days of completion times
 * before its newest (and at most TRIM_SLACK older ones, dropped in one go).
 */

const DAY_MS = 86_400_000
/** Entries older than this are dropped: no window reaches that far back. */
export const KEEP_MS = 2 * DAY_MS
/** Stale entries are dropped once there are this many, in one splice. */
export const TRIM_SLACK = 256

interface PartnerLog {
  succeeded: number[]
  failed: number[]
}

export class CompletionLog {
  private readonly byPartner = new Map<string, PartnerLog>()

  /** Records a delivery that just succeeded or permanently failed. */
  add(row: Pick<DeliveryRow, 'partner_id' | 'status' | 'completed_at'>): void {
    if (!row.completed_at) return
    let log = this.byPartner.get(row.partner_id)
    if (!log) {
      log = { succeeded: [], failed: [] }
      this.byPartner.set(row.partner_id, log)
    }
    const at = Date.parse(row.completed_at)
    const values =
      row.status === 'succeeded'
        ? log.succeeded
        : row.status === 'permanently_failed'
          ? log.failed
          : undefined
    if (!values) return
    insertSorted(values, at)
    trim(values, (values[values.length - 1] as number) - KEEP_MS)
  }

  /** Completion times held, of every partner. */
  get size(): number {
    let size = 0
    for (const log of this.byPartner.values()) size += log.succeeded.length + log.failed.length
    return size
  }

  /** Deliveries of `partnerId` that finished at or after `since`. */
  count(partnerId: string, since: number): { succeeded: number; permanentlyFailed: number } {
    const log = this.byPartner.get(partnerId)
    if (!log) return { succeeded: 0, permanentlyFailed: 0 }
    trim(log.succeeded, since - KEEP_MS)
    trim(log.failed, since - KEEP_MS)
    return {
      succeeded: log.succeeded.length - lowerBound(log.succeeded, since),
      permanentlyFailed: log.failed.length - lowerBound(log.failed, since),
    }
  }

  /** Starts over from the stored rows: of every partner, or of one (after its reset or restore). */
  rebuild(rows: Iterable<DeliveryRow>, partnerId?: string): void {
    if (partnerId === undefined) this.byPartner.clear()
    else this.byPartner.delete(partnerId)
    for (const row of rows) this.add(row)
  }
}

/** Index of the first value >= `value`. */
function lowerBound(values: number[], value: number): number {
  let lo = 0
  let hi = values.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((values[mid] as number) < value) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Appends, or inserts in place when a completion arrives out of order (advances run many). */
function insertSorted(values: number[], value: number): void {
  if (values.length === 0 || (values[values.length - 1] as number) <= value) values.push(value)
  else values.splice(lowerBound(values, value + 1), 0, value)
}

/** Drops entries before `before`, in one splice once there are enough to be worth it. */
function trim(values: number[], before: number): void {
  const stale = lowerBound(values, before)
  if (stale > TRIM_SLACK || stale === values.length) values.splice(0, stale)
}
