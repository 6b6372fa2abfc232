import { html } from 'hono/html'
import type { PartnerClocks } from '../../domain/partner-clocks.js'
import { partnersPage } from '../../domain/partners.js'
import { ApiError } from '../../errors.js'
import type { ScenarioRegistry } from '../../scenarios/registry.js'
import type { StateReader } from '../../state/seam.js'
import type { PartnerRow } from '../../store/records.js'
import { action, table } from './table.js'

/** Partners the dashboard lists at a time, oldest first, however many the sandbox holds. */
export const PARTNERS_PER_PAGE = 50

const list = (items: string[], none: string) =>
  items.length
    ? html`<ul class="plain">
        ${items.map((i) => html`<li>${i}</li>`)}
      </ul>`
    : none

/** Where the dashboard's links go: a partner, the list's page (`partners_after`), the token. */
export interface DashboardPlace {
  partner?: string
  after?: string
  token?: string
}

const dashboardLink = ({ partner, after, token }: DashboardPlace) => {
  const query = new URLSearchParams()
  if (partner) query.set('partner', partner)
  if (after) query.set('partners_after', after)
  if (token) query.set('token', token)
  const text = query.toString()
  return text ? `/_sandbox?${text}` : '/_sandbox'
}

/**
 * A page of the partners with status, scenario, its own clock, the origins that may frame its
 * hosted pages and its webhook endpoints, the selected one highlighted (and listed first when
 * it is not on the page). A page starts after `place.after`, or at the first partner when that
 * one is gone.
 */
export async function partnersSection(
  parts: { state: StateReader; clocks: PartnerClocks; scenarios: ScenarioRegistry },
  selected: PartnerRow | undefined,
  place: DashboardPlace,
) {
  const { state } = parts
  const pageAfter = (starting_after: string | undefined) =>
    partnersPage(state, { limit: PARTNERS_PER_PAGE, starting_after })
  let after = place.after
  const page = await pageAfter(after).catch((error: unknown) => {
    // The page's first partner is gone (deleted since the link was made): the first page.
    if (after === undefined || !(error instanceof ApiError && error.code === 'validation_error'))
      throw error
    after = undefined
    return pageAfter(undefined)
  })
  const partners =
    selected && !page.data.some((p) => p.id === selected.id) ? [selected, ...page.data] : page.data
  const rows = await Promise.all(
    partners.map(async (p) => ({
      p,
      endpoints: await state.lookup('webhooks_by_partner', p.id),
      users: await state.count('users_by_partner', p.id),
    })),
  )
  const here = { after, token: place.token }
  const link = (id: string) => dashboardLink({ ...here, partner: id })
  const last = page.data.at(-1)
  const pages = [
    after
      ? html`<a href="${dashboardLink({ ...here, after: undefined, partner: selected?.id })}" data-testid="partners-first">First partners</a>`
      : '',
    page.has_more && last
      ? html`<a href="${dashboardLink({ ...here, after: last.id, partner: selected?.id })}" data-testid="partners-next">Next partners</a>`
      : '',
  ].filter((a) => a !== '')
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
            html`<a href="${link(p.id)}" class="${p.id === selected?.id ? 'selected' : ''}"
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
    ${pages.length ? html`<p class="pages">${pages.map((a, i) => html`${i ? ' · ' : ''}${a}`)}</p>` : ''}
  </section>`
}
