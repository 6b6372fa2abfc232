import { html } from 'hono/html'
import type { PartnerView } from './partner-view.js'
import { table } from './table.js'

/** The codes the sandbox "sent" by email (OTP, password reset): what a tester copies. */
export function inboxSection(view: PartnerView) {
  // The inbox is read from the state (a promise): the template waits for it.
  return html`<section data-testid="inbox-section">
    <h2>Inbox</h2>
    ${view.inbox.then((messages) =>
      table(
        'inbox',
        ['To', 'Kind', 'Code', 'Sent', 'Expires'],
        messages.map((m) => ({
          id: m.id,
          // A used or expired code is no longer kept: the page says which.
          cells: [
            m.to,
            m.kind,
            m.code ?? `(${m.code_ended ?? 'ended'})`,
            m.created_at,
            m.expires_at,
          ],
        })),
        'No messages.',
      ),
    )}
  </section>`
}
