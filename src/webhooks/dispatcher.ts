import type { Deps } from '../deps.js'
import { eventEnvelope } from '../domain/events.js'
import { packageVersion } from '../package-root.js'
import { ATTEMPTS, webhookPolicy } from '../scenarios/webhooks.js'
import type { DeliveryRow, EventRow, LabCheck, WebhookRow } from '../store/records.js'
import type { Writer } from '../store/store.js'
import { logAttempt } from './attempt-log.js'
import { CompletionLog } from './completion-log.js'
import { deliveryHeaders, isLabCopy, WebhookLab } from './lab.js'
import { isSuccess, send } from './sender.js'

const MAX_IN_FLIGHT = 256
/** A slow or dead endpoint can hold at most this many sockets; the rest go to others. */
const MAX_IN_FLIGHT_PER_ENDPOINT = 32

/**
 * Delivers events to webhook endpoints: an event fans out to every enabled endpoint of its
 * partner that wants it (in the event's own store batch), each delivery is POSTed signed,
 * and failures are retried on the 4-attempt schedule of the partner's scenario.
 *
 * Due times are times of the delivery's partner clock, kept in the store, so a restart with a
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
  /** Told of every finished attempt (the control plane's long-poll waits on deliveries). */
  private readonly attemptListeners = new Set<(delivery: DeliveryRow) => void>()
  private timer?: NodeJS.Timeout
  private pumpQueued = false
  private readonly bodies = new Map<string, string>()
  private stopped = false
  private readonly completed = new CompletionLog()
  /** The webhook lab (lab.ts): events of an endpoint it is armed on go through it. */
  readonly lab: WebhookLab

  constructor(private readonly deps: Deps) {
    this.lab = new WebhookLab(deps, this)
    this.loadFromStore()
    deps.events.setFanOut((writer, event) => this.fanOut(writer, event))
    deps.events.subscribe(() => this.pump())
    deps.clock.onAdvance(async () => {
      await this.runDue()
    })
    deps.clocks.onAdvance(async (partnerId) => {
      await this.runDue(partnerId)
    })
    // Deliveries pending in a data file resume on their own after a restart: overdue ones
    // at once, the others on the timer pump() arms (unless the clock is frozen by then).
    this.timer = setTimeout(() => this.pump(), 0)
    this.timer.unref()
  }

  private loadFromStore(partnerId?: string): void {
    const { store } = this.deps
    const all =
      partnerId === undefined
        ? store.all('webhook_deliveries')
        : store.lookup('webhook_deliveries', 'deliveries_by_partner', partnerId)
    this.completed.rebuild(all, partnerId)
    const rows = all.filter((d) => d.next_attempt_at)
    rows.sort(
      (a, b) => Date.parse(a.next_attempt_at as string) - Date.parse(b.next_attempt_at as string),
    )
    for (const d of rows) this.enqueue(d.id, d.partner_id, Date.parse(d.next_attempt_at as string))
  }

  private enqueue(id: string, partnerId: string, at: number): void {
    this.due.set(id, at)
    this.partnerOf.set(id, partnerId)
    if (at <= this.deps.clocks.nowOf(partnerId)) {
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
    if (partnerId !== undefined) this.later.get(partnerId)?.delete(id)
  }

  private isLater(id: string): boolean {
    const partnerId = this.partnerOf.get(id)
    return partnerId !== undefined && (this.later.get(partnerId)?.has(id) ?? false)
  }

  /** Whether some delivery of `partnerId` waits in `later` with its time come. */
  private laterIsDue(partnerId: string): boolean {
    const next = this.nextLater.get(partnerId)
    return next !== undefined && next <= this.deps.clocks.nowOf(partnerId)
  }

  /**
   * Moves deliveries whose time has come, on their partner's clock, from `later` to `ready`,
   * earliest first within each partner.
   */
  private promote(): void {
    for (const [partnerId, waiting] of this.later) {
      if (!this.laterIsDue(partnerId)) continue
      const now = this.deps.clocks.nowOf(partnerId)
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

  /** Creates the deliveries of a new event for every endpoint that wants it. */
  private fanOut(writer: Writer, event: EventRow): void {
    for (const webhook of this.deps.store.lookup(
      'webhooks',
      'webhooks_by_partner',
      event.partner_id,
    )) {
      if (!webhook.enabled) continue
      if (webhook.events.length > 0 && !webhook.events.includes(event.type)) continue
      this.lab.route(writer, webhook, event)
    }
  }

  /** A new delivery of `event` to `webhook`, due at once (or after the scenario's first delay). */
  createDelivery(
    writer: Writer,
    webhook: WebhookRow,
    event: EventRow,
    redeliveryOf?: string,
    lab?: LabCheck,
  ): DeliveryRow {
    const partner = this.deps.store.get('partners', webhook.partner_id)
    const policy = webhookPolicy(
      partner ? this.deps.scenarios.ownScenarioOf(partner) : this.deps.scenarios.default,
    )
    const now = this.deps.clocks.nowOf(webhook.partner_id)
    const dueAt = now + (policy.delays[0] ?? 0)
    const delivery: DeliveryRow = {
      id: this.deps.random.id('dlv'),
      partner_id: webhook.partner_id,
      webhook_id: webhook.id,
      event_id: event.id,
      event_type: event.type,
      url: webhook.url,
      status: 'pending',
      attempts: [],
      next_attempt_at: new Date(dueAt).toISOString(),
      redelivery_of: redeliveryOf ?? null,
      ...(lab ? { lab } : {}),
      created_at: new Date(now).toISOString(),
      completed_at: null,
    }
    writer.put('webhook_deliveries', delivery)
    this.enqueue(delivery.id, delivery.partner_id, dueAt)
    // Once the batch has committed (a failed batch leaves no row, and pump skips the id).
    if (!this.pumpQueued) {
      this.pumpQueued = true
      queueMicrotask(() => {
        this.pumpQueued = false
        this.pump()
      })
    }
    return delivery
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
      const row = this.deps.store.get('webhook_deliveries', id)
      if (!row?.next_attempt_at) {
        this.settle(id)
        continue
      }
      if ((this.perEndpoint.get(row.webhook_id) ?? 0) >= MAX_IN_FLIGHT_PER_ENDPOINT) {
        const queue = this.parked.get(row.webhook_id)
        if (queue) queue.push(id)
        else this.parked.set(row.webhook_id, [id])
        continue
      }
      started++
      void this.attempt(row, dueAt)
    }
    this.ready = taken === 0 ? this.ready : this.ready.slice(taken)
    this.schedule()
    return started
  }

  /**
   * Wakes up at the next due time of a partner whose clock runs. A frozen clock (the sandbox's
   * or a partner's) waits for an advance.
   */
  private schedule(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.stopped || this.nextLater.size === 0 || this.deps.clock.state().frozen) return
    let wait = Number.POSITIVE_INFINITY
    for (const [partnerId, next] of this.nextLater) {
      if (!this.deps.clocks.isRunning(partnerId)) continue
      wait = Math.min(wait, next - this.deps.clocks.nowOf(partnerId))
    }
    if (wait === Number.POSITIVE_INFINITY) return
    wait = Math.max(0, Math.min(wait, 2 ** 31 - 1))
    this.timer = setTimeout(() => this.pump(), wait)
    this.timer.unref()
  }

  private async attempt(row: DeliveryRow, dueAt: number): Promise<void> {
    this.inFlight.set(row.id, row.partner_id)
    this.perEndpoint.set(row.webhook_id, (this.perEndpoint.get(row.webhook_id) ?? 0) + 1)
    let next: number | undefined
    try {
      next = await this.perform(row, dueAt)
    } catch (error) {
      this.deps.logger.error(
        `webhook delivery ${row.id} failed unexpectedly: ${(error as Error).stack}`,
      )
    } finally {
      this.inFlight.delete(row.id)
      // Queued only now that it is no longer in flight, so pump can take it.
      if (next !== undefined && this.due.has(row.id)) this.enqueue(row.id, row.partner_id, next)
      this.perEndpoint.set(row.webhook_id, (this.perEndpoint.get(row.webhook_id) ?? 1) - 1)
      const waiting = this.parked.get(row.webhook_id)
      if (waiting?.length) this.ready.unshift(waiting.shift() as string)
      for (const done of this.completions) done()
      const settled = this.deps.store.get('webhook_deliveries', row.id)
      if (settled) for (const listener of this.attemptListeners) listener(settled)
      this.pump()
    }
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

  /** One attempt; answers the due time of the next one when a retry is scheduled. */
  private async perform(row: DeliveryRow, dueAt: number): Promise<number | undefined> {
    const { store } = this.deps
    const webhook = store.get('webhooks', row.webhook_id)
    const event = store.get('events', row.event_id)
    const at = new Date(dueAt).toISOString()
    if (!webhook || !event || !webhook.enabled) {
      this.settle(row.id)
      const why = !webhook
        ? 'the endpoint was deleted'
        : !event
          ? 'the event no longer exists'
          : 'the endpoint is disabled'
      this.finish({
        ...row,
        status: 'permanently_failed',
        attempts: [
          ...row.attempts,
          {
            number: row.attempts.length + 1,
            at,
            status_code: null,
            duration_ms: 0,
            error: `not sent: ${why}`,
          },
        ],
        next_attempt_at: null,
        completed_at: at,
      })
      logAttempt(
        this.deps.logger,
        row,
        row.attempts.length + 1,
        { status: null, durationMs: 0, error: `not sent: ${why}` },
        {},
      )
      return
    }
    const partner = store.get('partners', row.partner_id)
    const policy = webhookPolicy(
      partner ? this.deps.scenarios.ownScenarioOf(partner) : this.deps.scenarios.default,
    )
    const number = row.attempts.length + 1
    const body = this.serialize(event)
    const headers = {
      ...deliveryHeaders(row, webhook.secret, event.id, body, policy.signatureHeader),
      'user-agent': `partner-sandbox-webhooks/${packageVersion}`,
      'x-sandbox-delivery-id': row.id,
      'x-sandbox-attempt': String(number),
    }
    const result =
      number <= policy.failFirstAttempts && !isLabCopy(row)
        ? {
            status: null,
            durationMs: 0,
            error: 'not sent: failure simulated by the scenario (webhooks.fail_first_attempts)',
          }
        : await send(row.url, body, headers, policy.timeoutMs)
    const attempt = {
      number,
      at,
      status_code: result.status,
      duration_ms: result.durationMs,
      error: result.error,
    }
    const current = store.get('webhook_deliveries', row.id)
    if (!current) {
      // Wiped by a reset or restore while in flight: nothing to record.
      this.settle(row.id)
      return
    }
    const attempts = [...current.attempts, attempt]
    const retryAt =
      isSuccess(result.status) || number >= ATTEMPTS || isLabCopy(row)
        ? undefined
        : dueAt + (policy.delays[number] ?? 0)
    logAttempt(this.deps.logger, current, number, result, { retryAt, body })
    if (isSuccess(result.status)) {
      this.settle(row.id)
      this.finish({
        ...current,
        status: 'succeeded',
        attempts,
        next_attempt_at: null,
        completed_at: at,
      })
    } else if (retryAt === undefined) {
      this.settle(row.id)
      this.finish({
        ...current,
        status: 'permanently_failed',
        attempts,
        next_attempt_at: null,
        completed_at: at,
      })
    } else {
      const next = retryAt as number
      this.due.set(row.id, next)
      store.put('webhook_deliveries', {
        ...current,
        status: 'failed',
        attempts,
        next_attempt_at: new Date(next).toISOString(),
      })
      return next
    }
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

  /** Stores a delivery that succeeded or gave up, and counts it for usage. */
  private finish(row: DeliveryRow): void {
    this.deps.store.put('webhook_deliveries', row)
    this.completed.add(row)
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
   * Forgets in-memory schedule state (after a reset or restore) and reloads it from the store:
   * of one partner (its own reset, delete or restore), or of everyone.
   */
  reload(partnerId?: string): void {
    if (partnerId === undefined) {
      this.due.clear()
      this.partnerOf.clear()
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
    this.loadFromStore(partnerId)
    this.pump()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }
}
