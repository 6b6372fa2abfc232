import { html } from 'hono/html'
import type { Deps } from '../../deps.js'
import { action, table } from './table.js'

const list = (items: string[], none: string) =>
  items.length
    ? html`<ul class="plain">
        ${items.map((i) => html`<li>${i}</li>`)}
      </ul>`
    : none

/**
 * Every partner with status, scenario, its own clock, the origins that may frame its hosted
 * pages and its webhook endpoints; the selected one is highlighted.
 */
export function partnersSection(deps: Deps, selected: string, token: string | undefined) {
  const partners = deps.store.all('partners')
  const link = (id: string) =>
    `/_sandbox?partner=${id}${token ? `&token=${encodeURIComponent(token)}` : ''}`
  return html`<section data-testid="partners-section">
    <h2>Partners</h2>
    ${table(
      'partners',
      [
        'Name',
        'Status',
        'Scenario',
        'Clock',
        'Users',
        'Allowed origins',
        'Webhook endpoints',
        'Auto-complete',
        'Actions',
      ],
      partners.map((p) => {
        const clock = deps.clocks.state(p.id)
        const endpoints = deps.store.lookup('webhooks', 'webhooks_by_partner', p.id)
        return {
          id: p.id,
          cells: [
            html`<a href="${link(p.id)}" class="${p.id === selected ? 'selected' : ''}"
              >${p.display_name}</a
            >`,
            p.status,
            deps.scenarios.ownScenarioOf(p).name,
            `${clock.now}${clock.frozen ? ' (frozen)' : ''}`,
            deps.store.lookup('users', 'users_by_partner', p.id).length,
            list(p.allowed_origins, 'none: hosted pages cannot be framed'),
            list(
              endpoints.map((w) => `${w.url}${w.enabled ? '' : ' (disabled)'}`),
              'none',
            ),
            p.auto_complete ?? false,
            html`${action('Reset', `partner-reset-${p.slug}`, 'POST', `/_sandbox/partners/${p.id}/reset`)}`,
          ],
        }
      }),
      'No partners. Create one with POST /_sandbox/partners.',
    )}
  </section>`
}
