import { ApiError } from '../errors.js'
import type { StateTx } from '../state/seam.js'
import type { DeliveryRow } from '../store/records.js'
import { createDelivery, type DeliveryCtx } from './new-delivery.js'

/**
 * A new delivery of the same event (same webhook-id) with a fresh 4-attempt schedule: what
 * the partner API's redeliver route and the dashboard's button both do.
 */
export async function redeliver(
  ctx: DeliveryCtx,
  tx: StateTx,
  original: DeliveryRow,
): Promise<DeliveryRow> {
  const webhook = await tx.get('webhooks', original.webhook_id)
  if (!webhook) throw new ApiError('not_found', `The endpoint ${original.webhook_id} was deleted.`)
  if (!webhook.enabled)
    throw new ApiError('conflict', 'This endpoint is disabled; enable it to redeliver.')
  const event = await tx.get('events', original.event_id)
  if (!event) throw new ApiError('not_found', `The event ${original.event_id} no longer exists.`)
  return createDelivery(ctx, tx, webhook, event, { redeliveryOf: original.id })
}
