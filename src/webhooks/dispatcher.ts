import type { Clock } from '../clock.js'
import { eventEnvelope } from '../domain/events.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import type { Logger } from '../logger.js'
import { packageVersion } from '../package-root.js'
import { ATTEMPTS } from '../scenarios/webhooks.js'
import type { Change, State } from '../state/seam.js'
import type { DeliveryRow, EventRow } from '../store/records.js'
import { logAttempt } from './attempt-log.js'
import { recordAttempt } from './attempt-result.js'
import { CompletionLog } from './completion-log.js'
import { deliveryHeaders, isLabCopy } from './lab.js'
import { type DeliveryCtx, policyOf } from './new-delivery.js'
import type { SelfTarget } from './self-target.js'
import { isSuccess, type SendResult, send } from './sender.js'

const MAX_IN_FLIGHT = 256
/** A delivery's lease outlasts its attempt's timeout by this much (the record that follows). */
const LEASE_MARGIN_MS = 15_000

/** What an attempt left: the row it wrote, and when the next attempt is due (a retry). */
interface Outcome {
  recorded?: DeliveryRow
  next?: number
  /** The attempt failed before its result was recorded: queued again whatever `due` says. */
  again?: boolean
}
/** A slow or dead endpoint can hold at most this many sockets; the rest go to others. */
const MAX_IN_FLIGHT_PER_ENDPOINT = 32

export interface DispatcherOptions extends DeliveryCtx {
  state: State
  /** The sandbox clock: while it is frozen, nothing waits on a timer. */
  clock: Pick<Clock, 'state'>
  clocks: Pick<PartnerClocks, 'nowOf' | 'isRunning'>
  logger: Logger
  /** How much a lease outlasts its attempt's timeout (LEASE_MARGIN_MS): tests wait less. */
  leaseMarginMs?: number
  /** The sandbox's own address: a delivery never goes there but to its sink. */
  self: Pick<SelfTarget, 'reason' | 'lookupGuard'>
}

/**
 * Delivers events to webhook endpoints: an event fans out to every enabled endpoint of its
 * partner that wants it (fan-out.ts, in the event's own transaction), each delivery is POSTed
 * signed, and failures are retried on the 4-attempt schedule of the partner's scenario.
 *
 * It learns of deliveries from the seam's commit notices (a rolled-back transaction leaves it
 * nothing to do) and reads and writes them through the seam: the POST happens outside any
 * transaction, and each attempt's result is written in a transaction of its own.
 *
 * Due times are times of the delivery's partner clock, kept in the rows, so a restart with a
 * data file picks up where it stopped. With the clock running, a timer wakes the dispatcher at
 * the next due time; advancing the clock (or a flush) runs everything that falls due, in
 * order, and an attempt's successor is scheduled from the attempt's due time, so one advance
 * walks the whole schedule. Advancing one partner's clock runs and waits for only that
 * partner's deliveries.
 */
export class Dispatcher {
  /** Every delivery still to attempt, with its due time: the source of truth. */
  private readonly due = new Map<string, number>()
  /** The partner of every id in `due` (its clock decides when the id falls due). */
  private readonly partnerOf = new Map<string, string>()
  /** The endpoint of every id in `due` (each endpoint gets its share of sockets). */
  private readonly webhookOf = new Map<string, string>()
  /** Ids due now, in due order (may hold stale ids: checked against `due` when taken). */
  private ready: string[] = []
  /** Ids due later, by partner; moved to `ready` once that partner's clock reaches them. */
  private readonly later = new Map<string, Map<string, number>>()
  /** Each partner's earliest time in `later`. */
  private readonly nextLater = new Map<string, number>()
  /** Ids waiting because their endpoint already has its share of sockets. */
  private readonly parked = new Map<string, string[]>()
  /** Ids being attempted, with their partner. */
  private readonly inFlight = new Map<string, string>()
  private readonly perEndpoint = new Map<string, number>()
  private readonly completions = new Set<() => void>()
  /** Told of every recorded attempt (the composition root gives retention's per-partner cap). */
  private readonly attemptListeners = new Set<(delivery: DeliveryRow) => void>()
  private timer?: NodeJS.Timeout
  private pumpQueued = false
  private readonly bodies = new Map<string, string>()
  private stopped = false
  private readonly completed = new CompletionLog()

  constructor(private readonly o: DispatcherOptions) {
    o.state.onCommit((changes) => this.heard(changes))
    o.state.onReplace(() => this.reload())
    // Deliveries pending in a data file resume on their own after a restart: overdue ones
    // at once, the others on the timer pump() arms (unless the clock is frozen by then).
    void this.reload(undefined, false).then(() => {
      if (this.stopped) return
      this.timer = setTimeout(() => this.pump(), 0)
      this.timer.unref()
    })
  }

  private async load(partnerId?: string): Promise<void> {
    const all =
      partnerId === undefined
        ? await this.o.state.all('webhook_deliveries')
        : await this.o.state.lookup('deliveries_by_partner', partnerId)
    this.completed.rebuild(all, partnerId)
    const rows = all.filter((d) => d.next_attempt_at)
    rows.sort(
      (a, b) => Date.parse(a.next_attempt_at as string) - Date.parse(b.next_attempt_at as string),
    )
    for (const d of rows) this.schedule(d)
  }

  /**
   * A committed delivery: queued while it has an attempt to come, forgotten once it has not,
   * and counted for usage when it finished (the completion log follows the commits).
   */
  private heard(changes: readonly Change[]): void {
    let queued = false
    for (const { collection, id, row } of changes) {
      if (collection !== 'webhook_deliveries') continue
      if (row?.completed_at) this.completed.add(row as DeliveryRow)
      // An attempt under way settles or requeues its own delivery when it ends.
      if (this.inFlight.has(id)) continue
      if (this.schedule(row as DeliveryRow | undefined, id)) queued = true
    }
    if (queued) this.pumpSoon()
  }

  /** Queues `row` at its due time unless it is queued for that time already. */
  private schedule(row: DeliveryRow | undefined, id = row?.id as string): boolean {
    if (!row?.next_attempt_at) {
      this.settle(id)
      return false
    }
    const at = Date.parse(row.next_attempt_at)
    if (this.due.get(id) === at) return false
    this.settle(id)
    this.enqueue(id, row.partner_id, row.webhook_id, at)
    return true
  }

  /** One pump once the commit under way has been heard by everyone. */
  private pumpSoon(): void {
    if (this.pumpQueued) return
    this.pumpQueued = true
    queueMicrotask(() => {
      this.pumpQueued = false
      this.pump()
    })
  }

  private enqueue(id: string, partnerId: string, webhookId: string, at: number): void {
    this.due.set(id, at)
    this.partnerOf.set(id, partnerId)
    this.webhookOf.set(id, webhookId)
    if (at <= this.o.clocks.nowOf(partnerId)) {
      this.ready.push(id)
      return
    }
    let waiting = this.later.get(partnerId)
    if (!waiting) {
      waiting = new Map()
      this.later.set(partnerId, waiting)
    }
    waiting.set(id, at)
    if (at < (this.nextLater.get(partnerId) ?? Number.POSITIVE_INFINITY))
      this.nextLater.set(partnerId, at)
  }

  private settle(id: string): void {
    const partnerId = this.partnerOf.get(id)
    this.due.delete(id)
    this.partnerOf.delete(id)
    this.webhookOf.delete(id)
    if (partnerId !== undefined) this.later.get(partnerId)?.delete(id)
  }

  private isLater(id: string): boolean {
    const partnerId = this.partnerOf.get(id)
    return partnerId !== undefined && (this.later.get(partnerId)?.has(id) ?? false)
  }

  /** Whether some delivery of `partnerId` waits in `later` with its time come. */
  private laterIsDue(partnerId: string): boolean {
    const next = this.nextLater.get(partnerId)
    return next !== undefined && next <= this.o.clocks.nowOf(partnerId)
  }

  /**
   * Moves deliveries whose time has come, on their partner's clock, from `later` to `ready`,
   * earliest first within each partner.
   */
  private promote(): void {
    for (const [partnerId, waiting] of this.later) {
      if (!this.laterIsDue(partnerId)) continue
      const now = this.o.clocks.nowOf(partnerId)
      const dueNow: [string, number][] = []
      let next = Number.POSITIVE_INFINITY
      for (const [id, at] of waiting) {
        if (at <= now) dueNow.push([id, at])
        else if (at < next) next = at
      }
      dueNow.sort((a, b) => a[1] - b[1])
      for (const [id] of dueNow) {
        waiting.delete(id)
        this.ready.push(id)
      }
      if (waiting.size === 0) {
        this.later.delete(partnerId)
        this.nextLater.delete(partnerId)
      } else this.nextLater.set(partnerId, next)
    }
  }

  /** Starts deliveries that are due now, in due order, within the concurrency limits. */
  private pump(): number {
    if (this.stopped) return 0
    this.promote()
    let started = 0
    let taken = 0
    while (taken < this.ready.length && this.inFlight.size < MAX_IN_FLIGHT) {
      const id = this.ready[taken++] as string
      const dueAt = this.due.get(id)
      if (dueAt === undefined || this.inFlight.has(id) || this.isLater(id)) continue
      const webhookId = this.webhookOf.get(id) as string
      if ((this.perEndpoint.get(webhookId) ?? 0) >= MAX_IN_FLIGHT_PER_ENDPOINT) {
        const queue = this.parked.get(webhookId)
        if (queue) queue.push(id)
        else this.parked.set(webhookId, [id])
        continue
      }
      started++
      void this.attempt(id, webhookId, dueAt)
    }
    this.ready = taken === 0 ? this.ready : this.ready.slice(taken)
    this.arm()
    return started
  }

  /**
   * Wakes up at the next due time of a partner whose clock runs. A frozen clock (the sandbox's
   * or a partner's) waits for an advance.
   */
  private arm(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.stopped || this.nextLater.size === 0 || this.o.clock.state().frozen) return
    let wait = Number.POSITIVE_INFINITY
    for (const [partnerId, next] of this.nextLater) {
      if (!this.o.clocks.isRunning(partnerId)) continue
      wait = Math.min(wait, next - this.o.clocks.nowOf(partnerId))
    }
    if (wait === Number.POSITIVE_INFINITY) return
    wait = Math.max(0, Math.min(wait, 2 ** 31 - 1))
    this.timer = setTimeout(() => this.pump(), wait)
    this.timer.unref()
  }

  private async attempt(id: string, webhookId: string, dueAt: number): Promise<void> {
    const partnerId = this.partnerOf.get(id) as string
    this.inFlight.set(id, partnerId)
    this.perEndpoint.set(webhookId, (this.perEndpoint.get(webhookId) ?? 0) + 1)
    let outcome: Outcome = {}
    try {
      outcome = await this.perform(id, dueAt)
    } catch (error) {
      // Its result is unknown (the transaction recording it failed, say): forgetting it would
      // leave the delivery pending and never tried again. It comes again like a retry, once
      // any lease on it has run out, and that attempt goes by the row as it then stands.
      const wait = this.leaseMs(partnerId)
      outcome = { next: this.o.clocks.nowOf(partnerId) + wait, again: true }
      this.o.logger.error(
        `webhook delivery ${id} failed unexpectedly, tried again in ${wait / 1000} s: ${(error as Error).stack}`,
      )
    } finally {
      this.inFlight.delete(id)
      // Queued only now that it is no longer in flight, so pump can take it.
      if (outcome.next !== undefined && (outcome.again || this.due.has(id)))
        this.enqueue(id, partnerId, webhookId, outcome.next)
      this.perEndpoint.set(webhookId, (this.perEndpoint.get(webhookId) ?? 1) - 1)
      const waiting = this.parked.get(webhookId)
      if (waiting?.length) this.ready.unshift(waiting.shift() as string)
      for (const done of this.completions) done()
      if (outcome.recorded) for (const listener of this.attemptListeners) listener(outcome.recorded)
      this.pump()
    }
  }

  /** How long a lease on a delivery of `partnerId` lasts: its attempt's timeout and a margin. */
  private leaseMs(partnerId: string): number {
    return policyOf(this.o, partnerId).timeoutMs + (this.o.leaseMarginMs ?? LEASE_MARGIN_MS)
  }

  /** The JSON of an event, made once for all the endpoints (and retries) it goes to. */
  private serialize(event: EventRow): string {
    let body = this.bodies.get(event.id)
    if (body === undefined) {
      body = JSON.stringify(eventEnvelope(event))
      if (this.bodies.size >= 1024) this.bodies.delete(this.bodies.keys().next().value as string)
      this.bodies.set(event.id, body)
    }
    return body
  }

  /**
   * One attempt, made once among every replica sharing the state: under a lease on the
   * delivery (state seam claim), on the row as it stands once leased. Another replica holding
   * the lease makes the attempt, and its record reaches this one as a commit notice; should
   * that replica die, its lease runs out and this one looks again (recheck).
   */
  private async perform(id: string, dueAt: number): Promise<Outcome> {
    const ttl = this.leaseMs(this.partnerOf.get(id) as string)
    const lease = await this.o.state.claim(`delivery:${id}`, ttl)
    if (!lease) {
      this.recheck(id, ttl)
      return {}
    }
    try {
      return await this.performLeased(id, dueAt)
    } finally {
      await lease.release()
    }
  }

  /** Looks at a delivery again once another holder's lease on it has run out. */
  private recheck(id: string, after: number): void {
    const timer = setTimeout(async () => {
      if (this.stopped || this.inFlight.has(id)) return
      let row: DeliveryRow | undefined
      try {
        row = await this.o.state.get('webhook_deliveries', id)
      } catch (error) {
        // A failed read (the database out of reach for a moment) says nothing of the row:
        // taken as gone, the delivery was forgotten and stayed pending, never tried by this
        // replica again until a restart. It stays queued and is looked at again after the
        // same wait, until the dispatcher stops.
        if (this.stopped) return
        this.o.logger.warn(
          `webhook delivery ${id}: reading it after another holder's lease failed (${(error as Error).message}), looked at again in ${after / 1000} s`,
        )
        this.recheck(id, after)
        return
      }
      // Forgotten first, so the row's due time queues it even when it did not change.
      this.settle(id)
      if (this.schedule(row, id)) this.pumpSoon()
    }, after)
    timer.unref()
  }

  /** One attempt: the row as it recorded it, and the due time of the next one when a retry is scheduled. */
  private async performLeased(id: string, dueAt: number): Promise<Outcome> {
    const { state } = this.o
    const row = await state.get('webhook_deliveries', id)
    if (!row?.next_attempt_at) {
      this.settle(id)
      return {}
    }
    // Attempted meanwhile by another replica: its next attempt is due later.
    const rowDue = Date.parse(row.next_attempt_at)
    if (rowDue > dueAt) return { next: rowDue }
    const [webhook, event] = await Promise.all([
      state.get('webhooks', row.webhook_id),
      state.get('events', row.event_id),
    ])
    const at = new Date(dueAt).toISOString()
    if (!webhook || !event || !webhook.enabled) {
      this.settle(id)
      const why = !webhook
        ? 'the endpoint was deleted'
        : !event
          ? 'the event no longer exists'
          : 'the endpoint is disabled'
      const result = { status: null, durationMs: 0, error: `not sent: ${why}` }
      const recorded = await this.record(id, at, result, undefined)
      logAttempt(this.o.logger, row, row.attempts.length + 1, result, {})
      return { recorded }
    }
    const policy = policyOf(this.o, row.partner_id)
    const number = row.attempts.length + 1
    const body = this.serialize(event)
    const headers = {
      ...deliveryHeaders(row, webhook.secret, event.id, body, policy.signatureHeader),
      'user-agent': `partner-sandbox-webhooks/${packageVersion}`,
      'x-sandbox-delivery-id': row.id,
      'x-sandbox-attempt': String(number),
    }
    // Checked again at each attempt, whatever the endpoint passed when it was made: the port
    // may have been unknown then (in process), and rows also come from snapshots and files.
    const self = this.o.self.reason(row.url)
    const result = self
      ? { status: null, durationMs: 0, error: `not sent: ${self}` }
      : number <= policy.failFirstAttempts && !isLabCopy(row)
        ? {
            status: null,
            durationMs: 0,
            error: 'not sent: failure simulated by the scenario (webhooks.fail_first_attempts)',
          }
        : await send(row.url, body, headers, policy.timeoutMs, this.o.self.lookupGuard(row.url))
    const retryAt =
      isSuccess(result.status) || number >= ATTEMPTS || isLabCopy(row)
        ? undefined
        : dueAt + (policy.delays[number] ?? 0)
    const recorded = await this.record(id, at, result, retryAt)
    if (!recorded) {
      // Wiped by a reset or restore while in flight: nothing to record.
      this.settle(id)
      return {}
    }
    logAttempt(this.o.logger, recorded, number, result, { retryAt, body })
    if (retryAt !== undefined) return { recorded, next: retryAt }
    this.settle(id)
    return { recorded }
  }

  /** Writes an attempt's result in a transaction of its own; nothing when the delivery is gone. */
  private record(id: string, at: string, result: SendResult, retryAt: number | undefined) {
    return this.o.state.transaction((tx) => recordAttempt(this.o, tx, id, { at, result, retryAt }))
  }

  /**
   * Runs everything due now, including retries that fall due on the way, and resolves when
   * nothing due is left: of `partnerId` only when given (its clock moved), else of everyone.
   * Used by clock advances and the flush route.
   */
  async runDue(partnerId?: string): Promise<number> {
    let attempted = 0
    while (!this.stopped) {
      const started = this.pump()
      attempted += started
      if (!this.busy(partnerId)) {
        // Nothing of ours running: done unless something fell due meanwhile (pump again at
        // once), or it waits for sockets other partners' deliveries hold (wait for one).
        if (!this.hasDue(partnerId)) return attempted
        if (started > 0 || this.inFlight.size === 0) continue
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          this.completions.delete(done)
          resolve()
        }
        this.completions.add(done)
      })
    }
    return attempted
  }

  private busy(partnerId?: string): boolean {
    if (partnerId === undefined) return this.inFlight.size > 0
    for (const p of this.inFlight.values()) if (p === partnerId) return true
    return false
  }

  /** Whether a delivery (of `partnerId`, or of anyone) is due and not yet started. */
  private hasDue(partnerId?: string): boolean {
    for (const id of this.ready) {
      if (!this.due.has(id) || this.inFlight.has(id)) continue
      if (partnerId === undefined || this.partnerOf.get(id) === partnerId) return true
    }
    if (partnerId !== undefined) return this.laterIsDue(partnerId)
    for (const p of this.nextLater.keys()) if (this.laterIsDue(p)) return true
    return false
  }

  /** Calls `listener` after every attempt with the delivery as recorded; returns unsubscribe. */
  onAttempt(listener: (delivery: DeliveryRow) => void): () => void {
    this.attemptListeners.add(listener)
    return () => this.attemptListeners.delete(listener)
  }

  /** Deliveries that finished (succeeded or gave up) since `since`, for usage. */
  stats(partnerId: string, since: number) {
    return this.completed.count(partnerId, since)
  }

  /**
   * Forgets in-memory schedule state (after a reset or restore) and reloads it from the rows:
   * of one partner (its own reset, delete or restore), or of everyone.
   */
  async reload(partnerId?: string, pumpNow = true): Promise<void> {
    if (partnerId === undefined) {
      this.due.clear()
      this.partnerOf.clear()
      this.webhookOf.clear()
      this.later.clear()
      this.nextLater.clear()
      this.parked.clear()
      this.ready = []
    } else {
      for (const [id, p] of this.partnerOf) if (p === partnerId) this.settle(id)
      this.later.delete(partnerId)
      this.nextLater.delete(partnerId)
      this.ready = this.ready.filter((id) => this.due.has(id))
      for (const [webhookId, ids] of this.parked) {
        const kept = ids.filter((id) => this.due.has(id))
        if (kept.length > 0) this.parked.set(webhookId, kept)
        else this.parked.delete(webhookId)
      }
    }
    await this.load(partnerId)
    if (pumpNow) this.pump()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }
}
