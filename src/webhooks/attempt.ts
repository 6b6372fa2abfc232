import { eventEnvelope } from '../domain/events.js'
import type { Logger } from '../logger.js'
import { packageVersion } from '../package-root.js'
import { ATTEMPTS, type WebhookPolicy } from '../scenarios/webhooks.js'
import type { State } from '../state/seam.js'
import type { DeliveryRow, EventRow } from '../store/records.js'
import { logAttempt } from './attempt-log.js'
import { recordAttempt } from './attempt-result.js'
import { deliveryHeaders, isLabCopy } from './lab.js'
import type { DeliveryCtx } from './new-delivery.js'
import type { SelfTarget } from './self-target.js'
import { isSuccess, type SendResult, send } from './sender.js'

export interface AttemptsOptions extends DeliveryCtx {
  state: State
  logger: Logger
  /** The sandbox's own address: a delivery never goes there but to its sink. */
  self: Pick<SelfTarget, 'reason' | 'lookupGuard'>
}

/**
 * One delivery attempt, once the dispatcher took it: the POST, signed, outside any
 * transaction, then its result recorded in a transaction of its own and logged.
 */
export class Attempts {
  private readonly bodies = new Map<string, string>()

  constructor(private readonly o: AttemptsOptions) {}

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

  /** Sends the attempt taken on `row`, then records what came of it (the row as recorded). */
  async make(
    row: DeliveryRow,
    dueAt: number,
    policy: WebhookPolicy,
  ): Promise<DeliveryRow | undefined> {
    const { state } = this.o
    const [webhook, event] = await Promise.all([
      state.get('webhooks', row.webhook_id),
      state.get('events', row.event_id),
    ])
    const at = new Date(dueAt).toISOString()
    const number = row.attempts.length + 1
    if (!webhook || !event || !webhook.enabled) {
      const why = !webhook
        ? 'the endpoint was deleted'
        : !event
          ? 'the event no longer exists'
          : 'the endpoint is disabled'
      const result = { status: null, durationMs: 0, error: `not sent: ${why}` }
      const recorded = await this.record(row.id, number, at, result, undefined)
      logAttempt(this.o.logger, row, number, result, {})
      return recorded
    }
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
    const recorded = await this.record(row.id, number, at, result, retryAt)
    // Not recorded: the delivery was wiped (a reset or restore while in flight), or another
    // process recorded this attempt first.
    if (recorded) logAttempt(this.o.logger, recorded, number, result, { retryAt, body })
    return recorded
  }

  /** Writes an attempt's result in a transaction of its own. */
  private record(
    id: string,
    number: number,
    at: string,
    result: SendResult,
    retryAt: number | undefined,
  ) {
    return this.o.state.transaction((tx) =>
      recordAttempt(this.o, tx, id, { number, at, result, retryAt }),
    )
  }
}
