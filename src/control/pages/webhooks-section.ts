import { html } from 'hono/html'
import type { PartnerView } from './partner-view.js'
import { action, table } from './table.js'

type Attempt = PartnerView['deliveries'][number]['attempts'][number]

const attemptText = (a: Attempt) =>
  `#${a.number} ${a.status_code ?? a.error ?? 'no answer'} in ${a.duration_ms} ms at ${a.at}`

/** Endpoints, then deliveries with every attempt, the next retry and a redeliver button. */
export function webhooksSection(view: PartnerView) {
  return html`<section data-testid="webhooks-section">
    <h2>Webhook endpoints</h2>
    ${table(
      'webhooks',
      ['Id', 'URL', 'Events', 'Enabled'],
      view.webhooks.map((w) => ({
        id: w.id,
        cells: [w.id, w.url, w.events.length ? w.events.join(', ') : 'all', w.enabled],
      })),
      'No endpoints: add one with POST /api/v1/partner/webhooks or partner-sandbox listen.',
    )}
    <h3>Deliveries</h3>
    ${table(
      'deliveries',
      ['Id', 'Event', 'URL', 'Status', 'Attempts', 'Next retry', 'Redeliver'],
      view.deliveries.map((d) => ({
        id: d.id,
        cells: [
          d.id,
          d.event_type,
          d.url,
          d.status,
          html`<ol class="attempts">
            ${d.attempts.map(
              (a) => html`<li data-testid="attempt" data-status-code="${a.status_code ?? ''}">
                ${attemptText(a)}
              </li>`,
            )}
          </ol>`,
          d.next_attempt_at,
          action(
            'Redeliver',
            `redeliver-${d.id}`,
            'POST',
            `/_sandbox/deliveries/${d.id}/redeliver`,
          ),
        ],
      })),
      'No deliveries yet.',
    )}
  </section>`
}
