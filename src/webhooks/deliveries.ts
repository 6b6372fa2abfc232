import type { EventBus } from '../domain/events.js'
import { ApiError } from '../errors.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { DeliveryRow, WebhookRow } from '../store/records.js'
import { createDelivery, type DeliveryCtx } from './new-delivery.js'

/**
 * Deliveries as a partner sees them, and the test event it can send to one endpoint
 * (redelivery is in redeliver.ts).
 */

/** What a partner sees of a delivery: its attempts, and how many were retries. */
export const publicDelivery = (d: DeliveryRow) => ({
  id: d.id,
  webhook_id: d.webhook_id,
  event_id: d.event_id,
  event_type: d.event_type,
  url: d.url,
  status: d.status,
  attempts: d.attempts,
  retries: Math.max(0, d.attempts.length - 1),
  // While an attempt is under way, the time it was due (the row's own falls due again later).
  next_attempt_at: d.attempt_due_at ?? d.next_attempt_at,
  redelivery_of: d.redelivery_of,
  lab: d.lab ?? null,
  created_at: d.created_at,
  completed_at: d.completed_at,
})

export async function requireDelivery(
  reader: StateReader,
  partnerId: string,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryRow> {
  const row = await reader.get('webhook_deliveries', deliveryId)
  if (!row || row.partner_id !== partnerId || row.webhook_id !== webhookId) {
    throw new ApiError('not_found', `No delivery ${deliveryId} for webhook endpoint ${webhookId}.`)
  }
  return row
}

/** A `webhook.test` event delivered to this endpoint only (not fanned out to the others). */
export async function sendTestEvent(
  ctx: DeliveryCtx & { events: EventBus },
  tx: StateTx,
  webhook: WebhookRow,
): Promise<DeliveryRow> {
  if (!webhook.enabled)
    throw new ApiError('conflict', 'This endpoint is disabled; enable it to send a test event.')
  const event = await ctx.events.record(
    tx,
    webhook.partner_id,
    'webhook.test',
    {
      object: 'webhook_test',
      webhook_id: webhook.id,
      message: 'A test event from partner-sandbox.',
    },
    { fanOut: false },
  )
  return createDelivery(ctx, tx, webhook, event)
}
