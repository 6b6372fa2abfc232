import { html } from 'hono/html'
import type { PartnerClocks } from '../../domain/partner-clocks.js'
import type { ScenarioRegistry } from '../../scenarios/registry.js'
import type { StateReader } from '../../state/seam.js'
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
export async function partnersSection(
  parts: { state: StateReader; clocks: PartnerClocks; scenarios: ScenarioRegistry },
  selected: string,
  token: string | undefined,
) {
  const { state } = parts
  const partners = await state.all('partners')
  const rows = await Promise.all(
    partners.map(async (p) => ({
      p,
      endpoints: await state.lookup('webhooks_by_partner', p.id),
      users: await state.count('users_by_partner', p.id),
    })),
  )
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
      rows.map(({ p, endpoints, users }) => {
        const clock = parts.clocks.state(p)
        return {
          id: p.id,
          cells: [
            html`<a href="${link(p.id)}" class="${p.id === selected ? 'selected' : ''}"
              >${p.display_name}</a
            >`,
            p.status,
            parts.scenarios.ownScenarioOf(p).name,
            `${clock.now}${clock.frozen ? ' (frozen)' : ''}`,
            users,
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
