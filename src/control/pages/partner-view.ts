import type { Deps } from '../../deps.js'
import { publicCard } from '../../domain/cards.js'
import { publicDispute } from '../../domain/disputes.js'
import { publicDeposit } from '../../domain/funding.js'
import { publicTransaction, transactionsOf } from '../../domain/ledger.js'
import { onboardingsOf, onboardingView } from '../../domain/onboarding.js'
import { newestFirst } from '../../domain/pagination.js'
import { publicPartner } from '../../domain/partners.js'
import type { PartnerRow } from '../../store/records.js'
import { publicDelivery } from '../../webhooks/deliveries.js'
import { publicWebhook } from '../../webhooks/subscriptions.js'

/** How many rows of each list the dashboard shows (newest first); the API pages the rest. */
export const ROWS = 25

/**
 * One partner as the dashboard shows it, read through the same public views the API answers
 * with (publicCard, publicTransaction, onboardingView…), so the page and the API never differ.
 */
export function partnerView(deps: Deps, partner: PartnerRow) {
  const { store } = deps
  const users = newestFirst(store.lookup('users', 'users_by_partner', partner.id))
  const people = users.map((user) => {
    const onboardings = onboardingsOf(deps, user.id).map(onboardingView)
    const cards = newestFirst(store.lookup('cards', 'cards_by_user', user.id)).map(publicCard)
    return { user, onboardings, cards }
  })
  const transactions = users
    .flatMap((u) =>
      transactionsOf(deps, u.id).map((t) => ({ email: u.email, ...publicTransaction(t) })),
    )
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, ROWS)
  const deposits = users
    .flatMap((u) => store.lookup('deposits', 'deposits_by_user', u.id).map(publicDeposit))
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, ROWS)
  const disputes = users
    .flatMap((u) => store.lookup('disputes', 'disputes_by_user', u.id).map(publicDispute))
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, ROWS)
  const webhooks = store.lookup('webhooks', 'webhooks_by_partner', partner.id).map(publicWebhook)
  const deliveries = newestFirst(
    store.lookup('webhook_deliveries', 'deliveries_by_partner', partner.id),
  )
    .slice(0, ROWS)
    .map(publicDelivery)
  return {
    partner: publicPartner(partner),
    scenario: deps.scenarios.ownScenarioOf(partner).name,
    clock: deps.clocks.state(partner.id),
    people: people.slice(0, ROWS),
    userCount: users.length,
    transactions,
    deposits,
    disputes,
    inbox: deps.inbox.list({ partner_id: partner.id, limit: ROWS }),
    webhooks,
    deliveries,
  }
}

export type PartnerView = ReturnType<typeof partnerView>
