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
  private readonly due = new Map<string, number>()
  private readonly inFlight = new Set<string>()
  private readonly perEndpoint = new Map<string, number>()
  private readonly completions = new Set<() => void>()
  private timer?: NodeJS.Timeout
  private stopped = false

  constructor(private readonly deps: Deps) {
    for (const d of deps.store.all('webhook_deliveries')) {
      if (d.next_attempt_at) this.due.set(d.id, Date.parse(d.next_attempt_at))
    }
    deps.events.setFanOut((writer, event) => this.fanOut(writer, event))
    deps.events.subscribe(() => this.pump())
    deps.clock.onAdvance(async () => {
      await this.runDue()
    })
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
      partner ? this.deps.scenarios.forPartner(partner) : this.deps.scenarios.default,
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
    this.due.set(delivery.id, dueAt)
    queueMicrotask(() => this.pump())
    return delivery
  }

  /** Starts every delivery that is due now, oldest due first, within the concurrency limits. */
  private pump(): number {
    if (this.stopped) return 0
    const now = this.deps.clock.now()
    const ready = [...this.due]
      .filter(([id, at]) => at <= now && !this.inFlight.has(id))
      .sort((a, b) => a[1] - b[1])
    let started = 0
    for (const [id, at] of ready) {
      if (this.inFlight.size >= MAX_IN_FLIGHT) break
      const row = this.deps.store.get('webhook_deliveries', id)
      if (!row?.next_attempt_at) {
        this.due.delete(id)
        continue
      }
      if ((this.perEndpoint.get(row.webhook_id) ?? 0) >= MAX_IN_FLIGHT_PER_ENDPOINT) continue
      started++
      void this.attempt(row, at)
    }
    this.schedule()
    return started
  }

  /** With the clock running, wakes up at the next due time. A frozen clock waits for advance. */
  private schedule(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.stopped || this.deps.clock.state().frozen) return
    let next = Number.POSITIVE_INFINITY
    for (const [id, at] of this.due) if (!this.inFlight.has(id) && at < next) next = at
    if (next === Number.POSITIVE_INFINITY) return
    const wait = Math.max(0, Math.min(next - this.deps.clock.now(), 2 ** 31 - 1))
    this.timer = setTimeout(() => this.pump(), wait)
    this.timer.unref()
  }

  private async attempt(row: DeliveryRow, dueAt: number): Promise<void> {
    this.inFlight.add(row.id)
    this.perEndpoint.set(row.webhook_id, (this.perEndpoint.get(row.webhook_id) ?? 0) + 1)
    try {
      await this.perform(row, dueAt)
    } catch (error) {
      this.deps.logger.error(
        `webhook delivery ${row.id} failed unexpectedly: ${(error as Error).stack}`,
      )
    } finally {
      this.inFlight.delete(row.id)
      this.perEndpoint.set(row.webhook_id, (this.perEndpoint.get(row.webhook_id) ?? 1) - 1)
      for (const done of this.completions) done()
      this.pump()
    }
  }

  private async perform(row: DeliveryRow, dueAt: number): Promise<void> {
    const { store } = this.deps
    const webhook = store.get('webhooks', row.webhook_id)
    const event = store.get('events', row.event_id)
    const at = new Date(dueAt).toISOString()
    if (!webhook || !event || !webhook.enabled) {
      this.due.delete(row.id)
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
      partner ? this.deps.scenarios.forPartner(partner) : this.deps.scenarios.default,
    )
    const number = row.attempts.length + 1
    const body = JSON.stringify(eventEnvelope(event))
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
    const result = await send(row.url, body, headers, policy.timeoutMs)
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
      this.due.delete(row.id)
      return
    }
    const attempts = [...current.attempts, attempt]
    if (isSuccess(result.status)) {
      this.due.delete(row.id)
      store.put('webhook_deliveries', {
        ...current,
        status: 'succeeded',
        attempts,
        next_attempt_at: null,
        completed_at: at,
      })
    } else if (number >= ATTEMPTS) {
      this.due.delete(row.id)
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
        const now = this.deps.clock.now()
        const stillDue = [...this.due.values()].some((at) => at <= now)
        if (!stillDue) return attempted
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
    for (const d of this.deps.store.all('webhook_deliveries')) {
      if (d.next_attempt_at) this.due.set(d.id, Date.parse(d.next_attempt_at))
    }
    this.pump()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }
}
