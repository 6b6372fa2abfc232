import type { Deps } from '../deps.js'
import { dayOf, hourOf } from '../store/indexes.js'
import type { CollectionName, Collections } from '../store/records.js'
import type { SweepScope } from './sweeper.js'

/**
 * Retention of history on each partner's clock (docs/retention.md), run by the sweeper once
 * a second and on every clock advance. Each run removes at most BATCH rows per rule in one
 * store batch, so a large backlog (after advancing the clock by a month) drains over a few
 * seconds instead of stalling the event loop; rows are found through indexes by partner and hour
 * (or day), so a run reads only what it removes.
 *
 * What is never removed: users, cards, onboardings, transactions, deposits, disputes (the
 * ledger is money, not history); a delivery still to attempt and the event it carries.
 *
 * The per-partner caps hold at all times, not only once a second: a partner's new event (and
 * each delivery attempt) removes its oldest rows over the cap right after the write that
 * added them. A finished delivery may go under the cap even within 24 hours: /partner/usage
 * counts from the completion log (webhooks/completion-log.ts), not from the rows.
 */

export const DAY_MS = 86_400_000
/** Spent or expired codes and ended sessions stay this long after they ended. */
export const ENDED_RETENTION_MS = DAY_MS
/** Events and deliveries stay 30 days, Stripe's window for events. */
export const HISTORY_RETENTION_MS = 30 * DAY_MS
/** And at most this many of each per partner (the oldest go first). */
export const HISTORY_CAP_PER_PARTNER = 10_000
/** Rows removed per rule per run. */
export const BATCH = 500

const iso = (ms: number) => new Date(ms).toISOString()

export class Retention {
  /** Partners that emitted events since the last run: only they can be over their caps. */
  private readonly touched = new Set<string>()

  constructor(private readonly deps: Deps) {
    deps.events.subscribe((event) => this.capPartner(event.partner_id))
    this.touchAll()
    deps.store.onReplace(() => this.touchAll())
  }

  private touchAll(): void {
    for (const partner of this.deps.store.all('partners')) this.touched.add(partner.id)
  }

  /** One bounded pass over every rule (of one partner when its clock moved); rows removed. */
  run(scope: SweepScope): number {
    const times = new Map<string, number>()
    const nowOf = (partnerId: string) => {
      let now = times.get(partnerId)
      if (now === undefined) {
        now = scope.nowOf(partnerId)
        times.set(partnerId, now)
      }
      return now
    }
    let removed = 0
    removed += this.pruneBuckets('verification_codes', 'codes_by_end_hour', scope, (partner) =>
      hourOf(iso(nowOf(partner) - ENDED_RETENTION_MS)),
    )
    removed += this.pruneBuckets('sessions', 'sessions_by_end_hour', scope, (partner) =>
      hourOf(iso(nowOf(partner) - ENDED_RETENTION_MS)),
    )
    const oldDay = (partner: string) => dayOf(iso(nowOf(partner) - HISTORY_RETENTION_MS))
    removed += this.pruneBuckets('webhook_deliveries', 'deliveries_by_day', scope, oldDay, (d) =>
      this.deliveryMayGo(d, nowOf(d.partner_id)),
    )
    removed += this.pruneBuckets('events', 'events_by_day', scope, oldDay, (e) =>
      this.eventMayGo(e.id),
    )
    removed += this.pruneCaps(scope)
    return removed
  }

  /** A delivery still to attempt stays; so does one that counts in the last 24 hours' usage. */
  private deliveryMayGo(
    d: { next_attempt_at: string | null; completed_at: string | null },
    now: number,
  ) {
    if (d.next_attempt_at || !d.completed_at) return false
    return Date.parse(d.completed_at) < now - DAY_MS
  }

  /** An event stays while a delivery of it is still to be attempted. */
  private eventMayGo(eventId: string): boolean {
    return this.deps.store.count('webhook_deliveries', 'deliveries_pending_by_event', eventId) === 0
  }

  /**
   * Removes the rows of every partner's buckets that lie wholly before that partner's
   * `cutoff` bucket (so every row there is due; a row goes within the hour, or day, after
   * its window closes), except those `mayGo` holds back. Buckets are few: one per partner per
   * hour or day of retained history.
   */
  private pruneBuckets<K extends CollectionName>(
    collection: K,
    index: string,
    scope: SweepScope,
    cutoff: (partnerId: string) => string,
    mayGo: (row: Collections[K]) => boolean = () => true,
  ): number {
    const { store } = this.deps
    const ids: string[] = []
    for (const key of store.indexKeys(collection, index)) {
      if (ids.length >= BATCH) break
      const bar = key.indexOf('|')
      const partnerId = key.slice(0, bar)
      if (scope.partnerId !== undefined && partnerId !== scope.partnerId) continue
      if (key.slice(bar + 1) >= cutoff(partnerId)) continue
      for (const row of store.scan(collection, index, key)) {
        if (!mayGo(row)) continue
        ids.push(row.id)
        if (ids.length >= BATCH) break
      }
    }
    this.remove(collection, ids)
    return ids.length
  }

  /**
   * Holds one partner to its caps now (after its event or delivery attempt was written): at
   * the cap, that is the one or few oldest rows a new one pushed over. A backlog beyond one
   * batch (a snapshot restored over the cap) is left to the sweep, a batch a second.
   */
  capPartner(partnerId: string): void {
    this.touched.add(partnerId)
    const { store } = this.deps
    if (
      store.count('webhook_deliveries', 'deliveries_by_partner', partnerId) <=
        HISTORY_CAP_PER_PARTNER &&
      store.count('events', 'events_by_partner', partnerId) <= HISTORY_CAP_PER_PARTNER
    )
      return
    this.pruneCapsOf(partnerId, true)
  }

  /** Partners over HISTORY_CAP_PER_PARTNER events or deliveries lose their oldest. */
  private pruneCaps(scope: SweepScope): number {
    let removed = 0
    for (const partnerId of this.touched) {
      if (removed >= BATCH) break
      if (scope.partnerId !== undefined && partnerId !== scope.partnerId) continue
      removed += this.pruneCapsOf(partnerId)
    }
    return removed
  }

  /**
   * One batch of a partner's oldest rows over its caps; rows removed. `smallOnly` leaves a
   * kind alone when more than a batch is over (a backlog is the sweep's).
   */
  private pruneCapsOf(partnerId: string, smallOnly = false): number {
    const { store } = this.deps
    // Finished deliveries only, from their own index: those still retrying are never read.
    const deliveries = this.oldestOver(
      store.scan('webhook_deliveries', 'deliveries_done_by_partner', partnerId),
      store.count('webhook_deliveries', 'deliveries_by_partner', partnerId),
      (d) => d.completed_at !== null,
      smallOnly,
    )
    const events = this.oldestOver(
      store.scan('events', 'events_by_partner', partnerId),
      store.count('events', 'events_by_partner', partnerId),
      (e) => this.eventMayGo(e.id),
      smallOnly,
    )
    this.remove('webhook_deliveries', deliveries)
    this.remove('events', events)
    // Done with this partner once nothing more could go (what stays is kept on purpose).
    // (A write-time call that left a backlog leaves the partner to the sweep.)
    if (!smallOnly && deliveries.length < BATCH && events.length < BATCH)
      this.touched.delete(partnerId)
    return deliveries.length + events.length
  }

  /** Ids of the oldest rows beyond the cap that may go, at most BATCH. */
  private oldestOver<T extends { id: string }>(
    oldestFirst: Iterable<T>,
    count: number,
    mayGo: (row: T) => boolean,
    smallOnly = false,
  ): string[] {
    const over = count - HISTORY_CAP_PER_PARTNER
    let excess = Math.min(over, BATCH)
    const ids: string[] = []
    if (excess <= 0 || (smallOnly && over > BATCH)) return ids
    // Bounded reading too: rows that must stay (pending, counted in usage) are skipped, and
    // a run gives up after 2 x BATCH of them rather than read a whole partner's history.
    let budget = 2 * BATCH
    for (const row of oldestFirst) {
      if (--budget < 0) break
      if (mayGo(row)) {
        ids.push(row.id)
        if (--excess === 0) break
      }
    }
    return ids
  }

  private remove(collection: CollectionName, ids: string[]): void {
    if (ids.length === 0) return
    this.deps.store.batch((w) => {
      for (const id of ids) w.remove(collection, id)
    })
  }
}
