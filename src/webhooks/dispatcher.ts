import type { Deps } from '../deps.js'
import { eventEnvelope } from '../domain/events.js'
import { packageVersion } from '../package-root.js'
import { ATTEMPTS, webhookPolicy } from '../scenarios/webhooks.js'
import type { DeliveryRow, EventRow, WebhookRow } from '../store/records.js'
import type { Writer } from '../store/store.js'
import { isSuccess, send } from './sender.js'
import { signatureHeaders } from './signer.js'

const MAX_IN_FLIGHT = 256
/** A slow or dead endpoint can hold at most this many sockets; the rest go to others. */
const MAX_IN_FLIGHT_PER_ENDPOINT = 32

/**
 * Delivers events to webhook endpoints: an event fans out to every enabled endpoint of its
 * partner that wants it (in the event's own store batch), each delivery is POSTed signed,
 * and failures are retried on the 4-attempt schedule of the partner's scenario.
 *
 * Due times are sandbox-clock times kept in the store, so a restart with a data file picks
 * up where it stopped. With the clock running, a timer wakes the dispatcher at the next due
 * time; advancing the clock (or a flush) runs everything that falls due, in order, and an
 * attempt's successor is scheduled from the attempt's due time, so one advance walks the
 * whole schedule.
 */
export class Dispatcher {
  /** Every delivery still to attempt, with its due time: the source of truth. */
  private readonly due = new Map<string, number>()
  /** Ids due now, in due order (may hold stale ids: checked against `due` when taken). */
  private ready: string[] = []
  /** Ids due later; moved to `ready` once the clock reaches them. */
  private readonly later = new Map<string, number>()
  private nextLater = Number.POSITIVE_INFINITY
  /** Ids waiting because their endpoint already has its share of sockets. */
  private readonly parked = new Map<string, string[]>()
  private readonly inFlight = new Set<string>()
  private readonly perEndpoint = new Map<string, number>()
  private readonly completions = new Set<() => void>()
  private timer?: NodeJS.Timeout
  private pumpQueued = false
  private readonly bodies = new Map<string, string>()
  private stopped = false

  constructor(private readonly deps: Deps) {
    this.loadFromStore()
    deps.events.setFanOut((writer, event) => this.fanOut(writer, event))
    deps.events.subscribe(() => this.pump())
    deps.clock.onAdvance(async () => {
      await this.runDue()
    })
    // Deliveries pending in a data file resume on their own after a restart: overdue ones
    // at once, the others on the timer pump() arms (unless the clock is frozen by then).
    this.timer = setTimeout(() => this.pump(), 0)
    this.timer.unref()
  }

  private loadFromStore(): void {
    const rows = this.deps.store.all('webhook_deliveries').filter((d) => d.next_attempt_at)
    rows.sort(
      (a, b) => Date.parse(a.next_attempt_at as string) - Date.parse(b.next_attempt_at as string),
    )
    for (const d of rows) this.enqueue(d.id, Date.parse(d.next_attempt_at as string))
  }

  private enqueue(id: string, at: number): void {
    this.due.set(id, at)
    if (at <= this.deps.clock.now()) {
      this.ready.push(id)
    } else {
      this.later.set(id, at)
      if (at < this.nextLater) this.nextLater = at
    }
  }

  private settle(id: string): void {
    this.due.delete(id)
    this.later.delete(id)
  }

  /** Moves deliveries whose time has come from `later` to `ready`, earliest first. */
  private promote(now: number): void {
    if (this.nextLater > now) return
    const dueNow: [string, number][] = []
    let next = Number.POSITIVE_INFINITY
    for (const [id, at] of this.later) {
      if (at <= now) dueNow.push([id, at])
      else if (at < next) next = at
    }
    dueNow.sort((a, b) => a[1] - b[1])
    for (const [id] of dueNow) {
      this.later.delete(id)
      this.ready.push(id)
    }
    this.nextLater = next
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
      this.createDelivery(writer, webhook, event)
    }
  }

  /** A new delivery of `event` to `webhook`, due at once (or after the scenario's first delay). */
  createDelivery(
    writer: Writer,
    webhook: WebhookRow,
    event: EventRow,
    redeliveryOf?: string,
  ): DeliveryRow {
    const partner = this.deps.store.get('partners', webhook.partner_id)
    const policy = webhookPolicy(
      partner ? this.deps.scenarios.ownScenarioOf(partner) : this.deps.scenarios.default,
    )
    const now = this.deps.clock.now()
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
      created_at: new Date(now).toISOString(),
      completed_at: null,
    }
    writer.put('webhook_deliveries', delivery)
    this.enqueue(delivery.id, dueAt)
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
    this.promote(this.deps.clock.now())
    let started = 0
    let taken = 0
    while (taken < this.ready.length && this.inFlight.size < MAX_IN_FLIGHT) {
      const id = this.ready[taken++] as string
      const dueAt = this.due.get(id)
      if (dueAt === undefined || this.inFlight.has(id) || this.later.has(id)) continue
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

  /** With the clock running, wakes up at the next due time. A frozen clock waits for advance. */
  private schedule(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (
      this.stopped ||
      this.nextLater === Number.POSITIVE_INFINITY ||
      this.deps.clock.state().frozen
    )
      return
    const wait = Math.max(0, Math.min(this.nextLater - this.deps.clock.now(), 2 ** 31 - 1))
    this.timer = setTimeout(() => this.pump(), wait)
    this.timer.unref()
  }

  private async attempt(row: DeliveryRow, dueAt: number): Promise<void> {
    this.inFlight.add(row.id)
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
      if (next !== undefined && this.due.has(row.id)) this.enqueue(row.id, next)
      this.perEndpoint.set(row.webhook_id, (this.perEndpoint.get(row.webhook_id) ?? 1) - 1)
      const waiting = this.parked.get(row.webhook_id)
      if (waiting?.length) this.ready.unshift(waiting.shift() as string)
      for (const done of this.completions) done()
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
      store.put('webhook_deliveries', {
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
      return
    }
    const partner = store.get('partners', row.partner_id)
    const policy = webhookPolicy(
      partner ? this.deps.scenarios.ownScenarioOf(partner) : this.deps.scenarios.default,
    )
    const number = row.attempts.length + 1
    const body = this.serialize(event)
    const headers = {
      ...signatureHeaders(
        webhook.secret,
        event.id,
        body,
        Math.floor(Date.now() / 1000),
        policy.signatureHeader,
      ),
      'user-agent': `partner-sandbox-webhooks/${packageVersion}`,
      'x-sandbox-delivery-id': row.id,
      'x-sandbox-attempt': String(number),
    }
    const result =
      number <= policy.failFirstAttempts
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
    if (isSuccess(result.status)) {
      this.settle(row.id)
      store.put('webhook_deliveries', {
        ...current,
        status: 'succeeded',
        attempts,
        next_attempt_at: null,
        completed_at: at,
      })
    } else if (number >= ATTEMPTS) {
      this.settle(row.id)
      store.put('webhook_deliveries', {
        ...current,
        status: 'permanently_failed',
        attempts,
        next_attempt_at: null,
        completed_at: at,
      })
    } else {
      const next = dueAt + (policy.delays[number] ?? 0)
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
   * Runs everything due at the current sandbox time, including retries that fall due on the
   * way, and resolves when nothing due is left. Used by clock advances and the flush route.
   */
  async runDue(): Promise<number> {
    let attempted = 0
    while (!this.stopped) {
      attempted += this.pump()
      if (this.inFlight.size === 0) {
        // Nothing running: done unless something fell due meanwhile (pump again at once).
        if (this.ready.length === 0 && this.nextLater > this.deps.clock.now()) return attempted
        continue
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

  /** Deliveries that finished (succeeded or gave up) since `since`, for usage. */
  stats(partnerId: string, since: number) {
    let succeeded = 0
    let permanentlyFailed = 0
    for (const d of this.deps.store.lookup(
      'webhook_deliveries',
      'deliveries_by_partner',
      partnerId,
    )) {
      if (!d.completed_at || Date.parse(d.completed_at) < since) continue
      if (d.status === 'succeeded') succeeded++
      else if (d.status === 'permanently_failed') permanentlyFailed++
    }
    return { succeeded, permanentlyFailed }
  }

  /** Forgets in-memory schedule state (after a reset or restore) and reloads it from the store. */
  reload(): void {
    this.due.clear()
    this.later.clear()
    this.parked.clear()
    this.ready = []
    this.nextLater = Number.POSITIVE_INFINITY
    this.loadFromStore()
    this.pump()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }
}
