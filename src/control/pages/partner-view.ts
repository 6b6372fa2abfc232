import { publicCard } from '../../domain/cards.js'
import { publicDispute } from '../../domain/disputes.js'
import { publicDeposit } from '../../domain/funding.js'
import type { Inbox } from '../../domain/inbox.js'
import { publicTransaction } from '../../domain/ledger.js'
import { onboardingView } from '../../domain/onboarding.js'
import { newestFirst } from '../../domain/pagination.js'
import type { PartnerClocks } from '../../domain/partner-clocks.js'
import { publicPartner } from '../../domain/partners.js'
import type { ScenarioRegistry } from '../../scenarios/registry.js'
import type { StateReader } from '../../state/seam.js'
import type { PartnerRow } from '../../store/records.js'
import { publicDelivery } from '../../webhooks/deliveries.js'
import { publicWebhook } from '../../webhooks/subscriptions.js'

/** How many rows of each list the dashboard shows (newest first); the API pages the rest. */
export const ROWS = 25

/** What the dashboard reads a partner from. */
export interface PartnerViewParts {
  state: StateReader
  clocks: PartnerClocks
  scenarios: ScenarioRegistry
  inbox: Inbox
}

/** The newest ROWS of several lists, newest first. */
const newestOf = <T extends { created_at: string }>(lists: T[][]) =>
  lists
    .flat()
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, ROWS)

/**
 * One partner as the dashboard shows it, read through the same public views the API answers
 * with (publicCard, publicTransaction, onboardingView…), so the page and the API never differ.
 */
export async function partnerView(parts: PartnerViewParts, partner: PartnerRow) {
  const { state } = parts
  const users = newestFirst(await state.lookup('users_by_partner', partner.id))
  const people = await Promise.all(
    users.slice(0, ROWS).map(async (user) => {
      const onboardings = newestFirst(await state.lookup('onboardings_by_user', user.id)).map(
        onboardingView,
      )
      const cards = newestFirst(await state.lookup('cards_by_user', user.id)).map(publicCard)
      return { user, onboardings, cards }
    }),
  )
  const perUser = <T>(read: (user: (typeof users)[number]) => Promise<T[]>) =>
    Promise.all(users.map(read))
  const transactions = newestOf(
    await perUser(async (u) =>
      (await state.range('transactions_by_user', u.id, { reverse: true })).map((t) => ({
        email: u.email,
        ...publicTransaction(t),
      })),
    ),
  )
  const deposits = newestOf(
    await perUser(async (u) => (await state.lookup('deposits_by_user', u.id)).map(publicDeposit)),
  )
  const disputes = newestOf(
    await perUser(async (u) => (await state.lookup('disputes_by_user', u.id)).map(publicDispute)),
  )
  const webhooks = (await state.lookup('webhooks_by_partner', partner.id)).map(publicWebhook)
  const deliveries = newestFirst(await state.lookup('deliveries_by_partner', partner.id))
    .slice(0, ROWS)
    .map(publicDelivery)
  return {
    partner: publicPartner(partner),
    scenario: parts.scenarios.ownScenarioOf(partner).name,
    clock: parts.clocks.state(partner),
    people,
    userCount: users.length,
    transactions,
    deposits,
    disputes,
    inbox: parts.inbox.list({ partner_id: partner.id, limit: ROWS }),
    webhooks,
    deliveries,
  }
}

export type PartnerView = Awaited<ReturnType<typeof partnerView>>
