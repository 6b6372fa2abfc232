import { html } from 'hono/html'
import type { PartnerView } from './partner-view.js'
import { action, table, usd } from './table.js'

type Onboarding = PartnerView['people'][number]['onboardings'][number]

/** A hosted flow that ended waits for the partner's completion: the dashboard can give it. */
const completeAction = (o: Onboarding) =>
  o.flow_result && (o.status === 'pending' || o.status === 'in_progress')
    ? action(
        `Complete (${o.flow_result})`,
        `complete-${o.onboardingId}`,
        'POST',
        `/_sandbox/onboardings/${o.onboardingId}/complete`,
        {},
      )
    : ''

/**
 * The Result column: how the onboarding ended once it has (the partner's completion, or a
 * decline with its reason); before that, what its hosted flow recorded, if it ended.
 */
const resultOf = (o: Onboarding) =>
  o.status === 'completed'
    ? 'pass'
    : o.status === 'failed'
      ? `fail (${o.failure_reason ?? 'no reason given'})`
      : o.flow_result

/** Users with their KYC state, their onboardings, and their cards with balances. */
export function peopleSection(view: PartnerView) {
  const onboardings = view.people.flatMap((p) =>
    p.onboardings.map((o) => ({ email: p.user.email, o })),
  )
  const cards = view.people.flatMap((p) => p.cards.map((card) => ({ email: p.user.email, card })))
  return html`<section data-testid="people-section">
    <h2>Users <span class="muted">(${view.userCount})</span></h2>
    ${table(
      'users',
      ['Email', 'Name', 'KYC', 'Created'],
      view.people.map(({ user }) => ({
        id: user.id,
        cells: [
          user.email,
          `${user.first_name} ${user.last_name}`,
          user.kyc_status,
          user.created_at,
        ],
      })),
      'No users yet: register one with POST /api/v1/partner/auth/register.',
    )}
    <h3>Onboardings</h3>
    ${table(
      'onboardings',
      ['Id', 'User', 'Status', 'Step', 'Result', 'Card', 'Actions'],
      onboardings.map(({ email, o }) => ({
        id: o.onboardingId,
        cells: [
          o.onboardingId,
          email,
          o.status,
          o.current_step,
          resultOf(o),
          o.card_id,
          completeAction(o),
        ],
      })),
      'No onboardings.',
    )}
    <h3>Cards</h3>
    ${table(
      'cards',
      ['Id', 'User', 'Status', 'Last4', 'Available', 'Ledger'],
      cards.map(({ email, card }) => ({
        id: card.id,
        cells: [
          card.id,
          email,
          card.status,
          card.last4,
          usd(card.available_balance),
          usd(card.ledger_balance),
        ],
      })),
      'No cards.',
    )}
  </section>`
}
