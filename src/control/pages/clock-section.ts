import { html } from 'hono/html'
import type { Clock } from '../../clock.js'
import type { PartnerView } from './partner-view.js'
import { action } from './table.js'

const steps = ['1m', '1h', '1d', '7d']

/**
 * The sandbox clock and the selected partner's clock, each with advance buttons: advancing
 * runs what falls due (code expiry, deposit settlement, reviews, webhook retries).
 */
export function clockSection(clock: Clock, view: PartnerView) {
  const sandbox = clock.state()
  const id = view.partner.id
  return html`<section data-testid="clock-section">
    <h2>Clocks</h2>
    <div class="clock">
      <strong>Sandbox</strong>
      <time data-testid="sandbox-clock">${sandbox.now}</time>
      ${sandbox.frozen ? html`<span class="badge">frozen</span>` : ''}
      ${steps.map((by) => action(`+${by}`, `advance-sandbox-${by}`, 'POST', '/_sandbox/clock/advance', { by }))}
      ${action('Reset sandbox', 'reset-sandbox', 'POST', '/_sandbox/reset')}
    </div>
    <div class="clock">
      <strong>${view.partner.display_name}</strong>
      <time data-testid="partner-clock">${view.clock.now}</time>
      ${view.clock.frozen ? html`<span class="badge">frozen</span>` : ''}
      <span class="muted" data-testid="partner-clock-offset">offset ${view.clock.offset_ms} ms</span>
      ${steps.map((by) =>
        action(
          `+${by}`,
          `advance-partner-${by}`,
          'POST',
          `/_sandbox/partners/${id}/clock/advance`,
          {
            by,
          },
        ),
      )}
    </div>
  </section>`
}
