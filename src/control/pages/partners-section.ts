import { html } from 'hono/html'
import type { Deps } from '../../deps.js'
import { action, table } from './table.js'

/** Every partner with status, scenario and its own clock; the selected one is highlighted. */
export function partnersSection(deps: Deps, selected: string, token: string | undefined) {
  const partners = deps.store.all('partners')
  const link = (id: string) =>
    `/_sandbox?partner=${id}${token ? `&token=${encodeURIComponent(token)}` : ''}`
  return html`<section data-testid="partners-section">
    <h2>Partners</h2>
    ${table(
      'partners',
      ['Name', 'Status', 'Scenario', 'Clock', 'Users', 'Actions'],
      partners.map((p) => {
        const clock = deps.clocks.state(p.id)
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
            html`${action('Reset', `partner-reset-${p.slug}`, 'POST', `/_sandbox/partners/${p.id}/reset`)}`,
          ],
        }
      }),
      'No partners. Create one with POST /_sandbox/partners.',
    )}
  </section>`
}
