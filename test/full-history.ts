import { HISTORY_CAP_PER_PARTNER } from '../src/domain/retention.js'
import type { DeliveryRow, EventRow } from '../src/store/records.js'
import type { TestSandbox } from './helpers.js'

/**
 * Puts a partner at both of its history caps: HISTORY_CAP_PER_PARTNER events an hour old
 * (`evt_full00000`, the oldest, to `evt_full09999`), each with a delivery to the partner's
 * endpoint that finished now, within the last 24 hours (`dlv_full…`). One transaction.
 */
export async function fillHistory(
  sandbox: TestSandbox['sandbox'],
  partnerId: string,
): Promise<void> {
  const { state } = sandbox.services
  const [webhook] = await state.lookup('webhooks_by_partner', partnerId)
  if (!webhook) throw new Error('no webhook')
  const now = sandbox.clock.iso()
  const old = new Date(sandbox.clock.now() - 3_600_000).toISOString()
  await state.transaction(async (tx) => {
    for (let i = 0; i < HISTORY_CAP_PER_PARTNER; i++) {
      const id = String(i).padStart(5, '0')
      const event: EventRow = {
        id: `evt_full${id}`,
        partner_id: partnerId,
        type: 'webhook.test',
        created_at: old,
        data: { object: { n: i } },
      }
      const delivery: DeliveryRow = {
        id: `dlv_full${id}`,
        partner_id: partnerId,
        webhook_id: webhook.id,
        event_id: event.id,
        event_type: event.type,
        url: webhook.url,
        status: 'succeeded',
        attempts: [],
        next_attempt_at: null,
        redelivery_of: null,
        created_at: old,
        completed_at: now,
      }
      tx.put('events', event)
      tx.put('webhook_deliveries', delivery)
    }
  })
}
