import { redactBody } from '../log-redact.js'
import type { Logger } from '../logger.js'
import { ATTEMPTS } from '../scenarios/webhooks.js'
import type { DeliveryRow } from '../store/records.js'
import type { SendResult } from './sender.js'

/**
 * One line per delivery attempt: a partner watching the sandbox's output sees every webhook it
 * sent, what the endpoint answered, and when the next try comes. Success is info, a failure
 * warn (a broken endpoint should stand out); debug adds the payload, secrets redacted.
 */
export function logAttempt(
  logger: Logger,
  row: DeliveryRow,
  number: number,
  result: SendResult,
  next: { retryAt?: number; body?: string },
): void {
  const ok = result.status !== null && result.status >= 200 && result.status < 300
  if (!logger.enabled(ok ? 'info' : 'warn')) return
  const outcome = ok
    ? 'succeeded'
    : next.retryAt !== undefined
      ? `next retry ${new Date(next.retryAt).toISOString()}`
      : number >= ATTEMPTS
        ? 'gave up: permanently failed'
        : 'gave up'
  const answer = result.status === null ? (result.error ?? 'no answer') : String(result.status)
  const fields = {
    delivery: row.id,
    event_id: row.event_id,
    endpoint: row.webhook_id,
    partner: row.partner_id,
    ...(logger.format === 'json'
      ? {
          event: row.event_type,
          url: row.url,
          attempt: number,
          of: ATTEMPTS,
          status: result.status,
          error: result.error ?? undefined,
          duration_ms: result.durationMs,
          next_retry_at:
            next.retryAt === undefined ? undefined : new Date(next.retryAt).toISOString(),
        }
      : {}),
    ...(next.body !== undefined && logger.enabled('debug')
      ? { body: redactBody(next.body, 'application/json') }
      : {}),
  }
  const message = `webhook ${row.event_type} attempt ${number} of ${ATTEMPTS} to ${row.url}: ${answer} in ${result.durationMs}ms, ${outcome}`
  if (ok) logger.info(message, fields)
  else logger.warn(message, fields)
}
