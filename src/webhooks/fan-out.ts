import type { StateTx } from '../state/seam.js'
import type { EventRow } from '../store/records.js'
import { routeThroughLab } from './lab.js'
import { type DeliveryCtx, policyOf } from './new-delivery.js'

/**
 * The event bus's fan-out (given to it at construction): in the transaction recording an
 * event, a delivery for every enabled endpoint of its partner that wants it, so after a crash
 * the event and its deliveries both exist or neither does. The endpoints (and their labs) are
 * read in that transaction, in the order they were created: what it sees is what it commits
 * against, on any engine and replica.
 */
export async function fanOut(ctx: DeliveryCtx, tx: StateTx, event: EventRow): Promise<void> {
  const endpoints = await tx.lookup('webhooks_by_partner', event.partner_id)
  const wanting = endpoints.filter(
    (w) => w.enabled && (w.events.length === 0 || w.events.includes(event.type)),
  )
  if (wanting.length === 0) return
  const policy = await policyOf(ctx, tx, event.partner_id)
  for (const webhook of wanting) await routeThroughLab(ctx, tx, webhook, event, policy)
}
