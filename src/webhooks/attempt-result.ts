import type { StateTx } from '../state/seam.js'
import type { DeliveryRow } from '../store/records.js'
import { labAttempted } from './lab.js'
import type { DeliveryCtx } from './new-delivery.js'
import { isSuccess, type SendResult } from './sender.js'

/** One attempt as it ended: when it was due, what the endpoint answered, and the next try. */
export interface AttemptEnd {
  /** Its number (1 to 4): the delivery's attempts before it, plus one, when it was taken. */
  number: number
  /** Sandbox time the attempt was due (ISO). */
  at: string
  result: SendResult
  /** When the next attempt is due (epoch ms); none when the delivery succeeded or gave up. */
  retryAt: number | undefined
}

/**
 * Records an attempt on the delivery as it stands now: succeeded, retried at `retryAt`, or
 * given up, with what the webhook lab makes of it. Undefined when there is nothing to record
 * it on: the delivery is gone (a reset or restore while the attempt was under way), or this
 * attempt was recorded already, by another dispatcher that took the row again after this one
 * outlived its timeout (the first record of an attempt stands).
 */
export async function recordAttempt(
  ctx: DeliveryCtx,
  tx: StateTx,
  id: string,
  { number, at, result, retryAt }: AttemptEnd,
): Promise<DeliveryRow | undefined> {
  const found = await tx.get('webhook_deliveries', id)
  if (!found?.next_attempt_at || found.attempts.length !== number - 1) return undefined
  // No longer under way.
  const { attempt_due_at: _, ...current } = found
  const attempt = {
    number,
    at,
    status_code: result.status,
    duration_ms: result.durationMs,
    error: result.error,
  }
  const attempts = [...current.attempts, attempt]
  const finished = { attempts, next_attempt_at: null, completed_at: at }
  const next: DeliveryRow = isSuccess(result.status)
    ? { ...current, ...finished, status: 'succeeded' }
    : retryAt === undefined
      ? { ...current, ...finished, status: 'permanently_failed' }
      : {
          ...current,
          status: 'failed',
          attempts,
          next_attempt_at: new Date(retryAt).toISOString(),
        }
  tx.put('webhook_deliveries', next)
  await labAttempted(ctx, tx, next)
  return next
}
