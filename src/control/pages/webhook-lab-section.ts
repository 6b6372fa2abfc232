import { html } from 'hono/html'
import type { StateReader } from '../../state/seam.js'
import type { WebhookLabRow } from '../../store/records.js'
import { labCheck } from '../../store/records.js'
import type { PartnerView } from './partner-view.js'
import { action, table } from './table.js'

/**
 * The webhook lab of each endpoint (webhooks/lab.ts): a button arming every check on its next
 * events, and the receiver report, a row per check with its verdict and why.
 */
export async function webhookLabSection(state: StateReader, view: PartnerView) {
  const labs = new Map<string, WebhookLabRow | undefined>()
  for (const w of view.webhooks) labs.set(w.id, await state.get('webhook_labs', w.id))
  return html`<section data-testid="webhook-lab-section">
    <h2>Webhook lab</h2>
    ${
      view.webhooks.length === 0
        ? html`<p class="empty" data-testid="webhook-lab-empty">
            No endpoints to test: add one with POST /api/v1/partner/webhooks.
          </p>`
        : view.webhooks.map((w) => {
            const lab = labs.get(w.id)
            return html`<h3>${w.id} <small>${w.url}</small></h3>
              ${action(
                'Arm every check',
                `lab-arm-${w.id}`,
                'POST',
                `/_sandbox/webhooks/${w.id}/lab`,
                {
                  checks: labCheck.options,
                },
              )}
              ${table(
                'lab-checks',
                ['Check', 'Event', 'Delivery', 'Receiver status', 'Verdict', 'Why'],
                (lab?.checks ?? []).map((c) => ({
                  id: `${w.id}-${c.check}`,
                  cells: [c.check, c.event_id, c.delivery_id, c.receiver_status, c.verdict, c.why],
                })),
                'Not armed: the lab sends duplicates, late events, forged and replayed copies of the next events.',
              )}`
          })
    }
  </section>`
}
