import type { StateWriter } from '../state/seam.js'
import type { EventRow } from '../store/records.js'
import { routeThroughLab } from './lab.js'
import type { DeliveryCtx } from './new-delivery.js'

/**
 * The event bus's fan-out (given to it at construction): in the transaction recording an
 * event, a delivery for every enabled endpoint of its partner that wants it, so after a crash
 * the event and its deliveries both exist or neither does.
 */
export function fanOut(ctx: DeliveryCtx, writer: StateWriter, event: EventRow): void {
  for (const webhook of ctx.directory.endpointsOf(event.partner_id)) {
    if (!webhook.enabled) continue
    if (webhook.events.length > 0 && !webhook.events.includes(event.type)) continue
    routeThroughLab(ctx, writer, webhook, event)
  }
}
