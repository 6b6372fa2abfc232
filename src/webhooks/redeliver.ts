import type { Deps } from '../deps.js'
import { ApiError } from '../errors.js'
import type { DeliveryRow } from '../store/records.js'

/**
 * A new delivery of the same event (same webhook-id) with a fresh 4-attempt schedule: what
 * the partner API's redeliver route and the dashboard's button both do.
 */
export function redeliver(deps: Deps, original: DeliveryRow): DeliveryRow {
  const webhook = deps.store.get('webhooks', original.webhook_id)
  if (!webhook) throw new ApiError('not_found', `The endpoint ${original.webhook_id} was deleted.`)
  if (!webhook.enabled)
    throw new ApiError('conflict', 'This endpoint is disabled; enable it to redeliver.')
  const event = deps.store.get('events', original.event_id)
  if (!event) throw new ApiError('not_found', `The event ${original.event_id} no longer exists.`)
  let delivery: DeliveryRow | undefined
  deps.store.batch((w) => {
    delivery = deps.dispatcher.createDelivery(w, webhook, event, original.id)
  })
  return delivery as DeliveryRow
}
