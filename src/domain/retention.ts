import type { Logger } from '../logger.js'
import { dayOf, hourOf, type IndexName, type IndexRow, indexDefs } from '../state/indexes.js'
import type { State, StateReader, StateTx } from '../state/seam.js'
import type { CollectionName } from '../store/records.js'
import type { SweepScope } from './sweeper.js'

/**
 * Retention of history on each partner's clock (docs/retention.md), run by the sweeper once
 * a second and on every clock advance. Each run removes at most BATCH rows per rule in one
 * transaction, so a large backlog (after advancing the clock by a month) drains over a few
 * seconds instead of stalling the event loop; rows are found through indexes by partner and hour
 * (or day), so a run reads only what it removes.
 *
 * What is never removed: users, cards, onboardings, transactions, deposits, disputes (the
 * ledger is money, not history); a delivery still to attempt and the event it carries.
 *
 * The per-partner caps hold at all times, not only once a second: a partner's new event (and
 * each delivery attempt) removes its oldest rows over the cap right after the write that
 * added them. A finished delivery may go under the cap even within 24 hours; /partner/usage
 * counts the rows kept (webhooks/finished-count.ts).
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

/** One settled promise: awaiting it defers a check by a microtask, allocating nothing. */
const settled = Promise.resolve()

/** The bucket indexes (partner and hour or day) a pass prunes. */
const BUCKETS = [
  'codes_by_end_hour',
  'sessions_by_end_hour',
  'deliveries_by_day',
  'events_by_day',
] as const satisfies readonly IndexName[]

/** A bucket index, and through it the collection it is over. */
type BucketIndex = (typeof BUCKETS)[number]

/** Each bucket index's keys, read before a pass's transaction. */
type BucketKeys = ReadonlyMap<BucketIndex, readonly string[]>

export interface RetentionParts {
  state: State
  logger: Pick<Logger, 'error'>
}

export class Retention {
  /**
   * Partners that emitted events since the last run (only they can be over their caps), each
   * with how many times: one that emits again while the sweep counts it stays.
   */
  private readonly touched = new Map<string, number>()
  /** Every partner may be over its caps (at start, after a reset or restore). */
  private everyone = true
  /** The cap check running for each partner, and whether another was asked for meanwhile. */
  private readonly checks = new Map<
    string,
    { started: boolean; again: boolean; done: Promise<void> }
  >()

  constructor(private readonly parts: RetentionParts) {
    parts.state.onReplace(() => {
      this.everyone = true
    })
  }

  /** One bounded pass over every rule (of one partner when its clock moved); rows removed. */
  async run(scope: SweepScope): Promise<number> {
    // The buckets' keys are read before the transaction, not in it: a read of every key would
    // tie the transaction to every row of the table (PostgreSQL's SERIALIZABLE then fails the
    // requests writing any of them), and the rows of a due bucket are read again in it anyway.
    // Read while it ran, they would wait for a second connection with the first held (a pool
    // of one would wait on itself until the connection wait ran out).
    const [keys, over] = await Promise.all([
      Promise.all(
        BUCKETS.map(async (index) => [index, await this.parts.state.keys(index)] as const),
      ).then((pairs) => new Map(pairs)),
      this.overCaps(scope),
    ])
    return this.parts.state.transaction((tx) => this.runIn(tx, scope, keys, over))
  }

  /**
   * The touched partners (every partner after a start, reset or restore) that are over their
   * caps, counted before the transaction for the same reason as the keys: counted in it, the
   * first sweep after a start would tie one transaction to every partner's history. Those
   * below their caps (nearly all) are done with; those over are counted again in the
   * transaction that removes their oldest rows.
   */
  private async overCaps(scope: SweepScope): Promise<string[]> {
    const { state } = this.parts
    if (this.everyone) {
      this.everyone = false
      for (const partner of await state.all('partners')) this.touch(partner.id)
    }
    const ids = [...this.touched.keys()].filter(
      (id) => scope.partnerId === undefined || id === scope.partnerId,
    )
    // Read before the counts: a partner touched while counted stays for the next run.
    const touches = new Map(ids.map((id) => [id, this.touched.get(id)]))
    // A few at a time (idsPassing): after a start, one burst of every partner's counts would
    // queue the requests' reads behind it.
    const over = await idsPassing(ids, ids.length, async (id) => isOver(await countsOf(state, id)))
    const isOverNow = new Set(over)
    for (const id of ids) if (!isOverNow.has(id)) this.forgetUnlessTouched(id, touches.get(id))
    return over
  }

  /** A partner that emitted an event: it may be over its caps. */
  private touch(partnerId: string): void {
    this.touched.set(partnerId, (this.touched.get(partnerId) ?? 0) + 1)
  }

  /** Done with a partner, unless it emitted an event since `touches` was read. */
  private forgetUnlessTouched(partnerId: string, touches: number | undefined): void {
    if (this.touched.get(partnerId) === touches) this.touched.delete(partnerId)
  }

  private async runIn(
    tx: StateTx,
    scope: SweepScope,
    keys: BucketKeys,
    over: readonly string[],
  ): Promise<number> {
    const times = new Map<string, number>()
    const nowOf = (partnerId: string) => {
      let now = times.get(partnerId)
      if (now === undefined) {
        now = scope.nowOf(partnerId)
        times.set(partnerId, now)
      }
      return now
    }
    const ended = (partner: string) => hourOf(iso(nowOf(partner) - ENDED_RETENTION_MS))
    const oldDay = (partner: string) => dayOf(iso(nowOf(partner) - HISTORY_RETENTION_MS))
    let removed = 0
    const prune = <I extends BucketIndex>(
      index: I,
      cutoff: (partnerId: string) => string,
      mayGo?: (row: IndexRow<I>) => boolean | Promise<boolean>,
    ) => this.pruneBuckets(tx, index, keys.get(index) ?? [], scope, cutoff, mayGo)
    removed += await prune('codes_by_end_hour', ended)
    removed += await prune('sessions_by_end_hour', ended)
    removed += await prune('deliveries_by_day', oldDay, async (d) =>
      this.deliveryMayGo(d, nowOf(d.partner_id)),
    )
    removed += await prune('events_by_day', oldDay, (e) => this.eventMayGo(tx, e.id))
    removed += await this.pruneCaps(tx, over)
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
  private async eventMayGo(reader: StateReader, eventId: string): Promise<boolean> {
    return (await reader.count('deliveries_pending_by_event', eventId)) === 0
  }

  /**
   * Removes the rows of every partner's buckets that lie wholly before that partner's
   * `cutoff` bucket (so every row there is due; a row goes within the hour, or day, after
   * its window closes), except those `mayGo` holds back. Buckets are few: one per partner per
   * hour or day of retained history.
   */
  private async pruneBuckets<I extends BucketIndex>(
    tx: StateTx,
    index: I,
    keys: readonly string[],
    scope: SweepScope,
    cutoff: (partnerId: string) => string,
    mayGo: (row: IndexRow<I>) => boolean | Promise<boolean> = () => true,
  ): Promise<number> {
    const ids: string[] = []
    for (const key of keys) {
      if (ids.length >= BATCH) break
      const bar = key.indexOf('|')
      const partnerId = key.slice(0, bar)
      if (scope.partnerId !== undefined && partnerId !== scope.partnerId) continue
      if (key.slice(bar + 1) >= cutoff(partnerId)) continue
      ids.push(...(await idsPassing(await tx.lookup(index, key), BATCH - ids.length, mayGo)))
    }
    this.remove(tx, indexDefs[index].collection, ids)
    return ids.length
  }

  /**
   * Holds one partner to its caps now (after its event or delivery attempt was written): at
   * the cap, that is the one or few oldest rows a new one pushed over; under a burst of
   * events, those pushed over while the check before ran (it asks about them AT_ONCE at a
   * time, not one after another: see idsPassing). A backlog beyond one batch (a snapshot
   * restored over the cap) is left to the sweep, a batch a second. Never rejects: it runs
   * after the write that called for it, with nobody to answer.
   *
   * One check per partner at a time: calls made while one runs are answered by a single check
   * after it, which starts once their writes have committed and so sees every row they added.
   * Under load (every event and every attempt calls this) that is two counts per check, not
   * per call, which matters where a count reads an index (PostgreSQL), not a number. A check
   * starts a microtask after the call that asked for it, so the several events of one commit
   * (heard one after another) share it rather than asking for a second one.
   */
  capPartner(partnerId: string): Promise<void> {
    this.touch(partnerId)
    const running = this.checks.get(partnerId)
    if (running) {
      // Not started yet: it will count this call's rows anyway.
      if (running.started) running.again = true
      return running.done
    }
    const check = { started: false, again: false, done: settled }
    this.checks.set(partnerId, check)
    check.done = this.checkUntilCurrent(partnerId, check)
    return check.done
  }

  /** Runs the checks one partner was asked for: once, and again while calls came meanwhile. */
  private async checkUntilCurrent(
    partnerId: string,
    check: { started: boolean; again: boolean },
  ): Promise<void> {
    try {
      await settled
      check.started = true
      do {
        check.again = false
        await this.checkCaps(partnerId)
      } while (check.again)
    } finally {
      this.checks.delete(partnerId)
    }
  }

  /**
   * Resolves once every write-time cap check under way has finished. They run after the
   * commit that called for them: on PostgreSQL that is after the request was answered, so a
   * closing sandbox waits for them before its connections go (and so may a test).
   */
  async settled(): Promise<void> {
    while (this.checks.size > 0) await Promise.all([...this.checks.values()].map((c) => c.done))
  }

  private async checkCaps(partnerId: string): Promise<void> {
    const { state } = this.parts
    try {
      // Counted, and the oldest rows over the caps found, outside a transaction: below the caps
      // (nearly always) nothing waits, and the transaction reads only the rows it removes.
      // Counting in it would tie it, on PostgreSQL's SERIALIZABLE, to the partner's whole
      // history, and fail each transaction writing an event or an attempt meanwhile (at the
      // cap, every one of them).
      const counts = await countsOf(state, partnerId)
      if (!isOver(counts)) return
      const over = await this.oldestOverCaps(state, partnerId, counts, true)
      await state.transaction(async (tx) => {
        // Each only if it is still there and may still go: another check may have removed it.
        const [deliveries, events] = await Promise.all([
          idsPassing(over.deliveries, BATCH, async (id) => {
            const delivery = await tx.get('webhook_deliveries', id)
            return delivery !== undefined && finished(delivery)
          }),
          idsPassing(over.events, BATCH, async (id) =>
            (await tx.get('events', id)) !== undefined ? this.eventMayGo(tx, id) : false,
          ),
        ])
        this.remove(tx, 'webhook_deliveries', deliveries)
        this.remove(tx, 'events', events)
      })
    } catch (error) {
      this.parts.logger.error(`retention of partner ${partnerId} failed: ${(error as Error).stack}`)
    }
  }

  /** Partners over HISTORY_CAP_PER_PARTNER events or deliveries lose their oldest. */
  private async pruneCaps(tx: StateTx, over: readonly string[]): Promise<number> {
    let removed = 0
    for (const partnerId of over) {
      if (removed >= BATCH) break
      removed += await this.pruneCapsOf(tx, partnerId)
    }
    return removed
  }

  /** The sweep's: one batch of a partner's oldest rows over its caps; rows removed. */
  private async pruneCapsOf(tx: StateTx, partnerId: string): Promise<number> {
    const touches = this.touched.get(partnerId)
    const { deliveries, events } = await this.oldestOverCaps(
      tx,
      partnerId,
      await countsOf(tx, partnerId),
    )
    this.remove(tx, 'webhook_deliveries', deliveries)
    this.remove(tx, 'events', events)
    // Done with this partner once nothing more could go (what stays is kept on purpose).
    // (A write-time call that left a backlog leaves the partner to the sweep.) Forgotten only
    // once the removal is durable: a rolled-back run leaves it for the next.
    if (deliveries.length < BATCH && events.length < BATCH)
      tx.afterCommit(() => this.forgetUnlessTouched(partnerId, touches))
    return deliveries.length + events.length
  }

  /**
   * Ids of one batch of a partner's oldest rows over its caps, read through `reader`.
   * `smallOnly` leaves a kind alone when more than a batch is over (a backlog is the sweep's).
   */
  private async oldestOverCaps(
    reader: StateReader,
    partnerId: string,
    counts: CapCounts,
    smallOnly = false,
  ) {
    // Finished deliveries only, from their own index: those still retrying are never read.
    // Bounded reading too: rows that must stay (pending, counted in usage) are skipped, and
    // a run gives up after READ_BUDGET of them rather than read a whole partner's history.
    const deliveries = await this.oldestOver(
      (after, limit) => reader.range('deliveries_done_by_partner', partnerId, { after, limit }),
      counts.deliveries,
      (d) => finished(d),
      smallOnly,
    )
    const events = await this.oldestOver(
      (after, limit) => reader.range('events_by_partner', partnerId, { after, limit }),
      counts.events,
      (e) => this.eventMayGo(reader, e.id),
      smallOnly,
    )
    return { deliveries, events }
  }

  /**
   * Ids of the oldest rows beyond the cap that may go, at most BATCH. The rows are read only
   * when some are over (a partner under its caps, nearly always, costs two counts), and a
   * page at a time from the oldest: at the cap, one new row costs a read of a few, not of
   * READ_BUDGET; rows that must stay are skipped until READ_BUDGET of them were read.
   */
  private async oldestOver<T extends { id: string }>(
    page: (after: string | undefined, limit: number) => Promise<readonly T[]>,
    count: number,
    mayGo: (row: T) => boolean | Promise<boolean>,
    smallOnly = false,
  ): Promise<string[]> {
    const over = count - HISTORY_CAP_PER_PARTNER
    const excess = Math.min(over, BATCH)
    const ids: string[] = []
    if (smallOnly && over > BATCH) return ids
    let read = 0
    let after: string | undefined
    while (ids.length < excess && read < READ_BUDGET) {
      const rows = await page(after, Math.min(excess - ids.length + 16, READ_BUDGET - read))
      if (rows.length === 0) break
      read += rows.length
      after = (rows.at(-1) as T).id
      ids.push(...(await idsPassing(rows, excess - ids.length, mayGo)))
    }
    return ids
  }

  private remove(tx: StateTx, collection: CollectionName, ids: string[]): void {
    for (const id of ids) tx.remove(collection, id)
  }
}

/**
 * The ids of `rows` (rows or ids) that `test` passes, in their order, at most `limit`. The
 * rows are asked about a slice at a time (as many as are still wanted, at most AT_ONCE), the
 * rows of a slice at once. On PostgreSQL a transaction's reads are pipelined on its
 * connection and reads outside one are batched, so a slice costs about a round trip rather
 * than one a row: asked one after another, the rows a burst of events pushed over a cap took
 * seconds to check, while the partner's new events pushed more over.
 */
async function idsPassing<T extends { id: string } | string>(
  rows: readonly T[],
  limit: number,
  test: (row: T) => boolean | Promise<boolean>,
): Promise<string[]> {
  const ids: string[] = []
  for (let at = 0; at < rows.length && ids.length < limit; ) {
    const slice = rows.slice(at, at + Math.min(limit - ids.length, AT_ONCE))
    at += slice.length
    const passed = await Promise.all(slice.map(test))
    for (const [i, row] of slice.entries())
      if (passed[i]) ids.push(typeof row === 'string' ? row : row.id)
  }
  return ids
}

/** A partner's events and deliveries: what the per-partner caps hold. */
interface CapCounts {
  events: number
  deliveries: number
}

/** A partner's events and deliveries, the two counts its caps hold. */
async function countsOf(reader: StateReader, partnerId: string): Promise<CapCounts> {
  const [events, deliveries] = await Promise.all([
    reader.count('events_by_partner', partnerId),
    reader.count('deliveries_by_partner', partnerId),
  ])
  return { events, deliveries }
}

const isOver = (counts: CapCounts) =>
  counts.events > HISTORY_CAP_PER_PARTNER || counts.deliveries > HISTORY_CAP_PER_PARTNER

/** A delivery whose attempts are over: the only kind a cap may remove. */
const finished = (d: { completed_at: string | null }) => d.completed_at !== null

/**
 * Partners a sweep counts, or rows a pass asks about, at once (idsPassing): outside a
 * transaction, batched six a statement, they take a few of the pool's connections, not every
 * one the requests are waiting for.
 */
const AT_ONCE = 50

/** Rows a cap pass reads at most per kind, pending or counted ones included. */
const READ_BUDGET = 2 * BATCH
