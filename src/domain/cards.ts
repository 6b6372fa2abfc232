import type { StateReader, StateWriter } from '../state/seam.js'
import type { CardRow, OnboardingRow, UserRow } from '../store/records.js'
import type { MoneyKernel } from './money-kernel.js'
import { newestFirst } from './pagination.js'

/** Integer cents to the API's decimal dollars (exact for 2 decimals). */
export const toDollars = (cents: number) => Math.round(cents) / 100

/** Writes only: callable inside any area's transaction (onboarding issues the card). */
export function issueCard(
  ctx: Pick<MoneyKernel, 'clocks' | 'random'>,
  writer: StateWriter,
  user: UserRow,
  onboarding: OnboardingRow,
  productId: string | null,
): CardRow {
  const now = ctx.clocks.forPartner(user.partner_id).date()
  const card: CardRow = {
    id: ctx.random.id('card'),
    partner_id: user.partner_id,
    user_id: user.id,
    onboarding_id: onboarding.id,
    brand: 'visa',
    last4: String(ctx.random.int(0, 9999)).padStart(4, '0'),
    exp_month: now.getUTCMonth() + 1,
    exp_year: now.getUTCFullYear() + 3,
    cardholder_name:
      `${onboarding.applicant.first_name} ${onboarding.applicant.last_name}`.toUpperCase(),
    status: 'active',
    currency: 'USD',
    available_balance_cents: 0,
    ledger_balance_cents: 0,
    product_id: productId,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  }
  writer.put('cards', card)
  return card
}

export function publicCard(card: CardRow) {
  return {
    id: card.id,
    brand: card.brand,
    last4: card.last4,
    exp_month: card.exp_month,
    exp_year: card.exp_year,
    cardholder_name: card.cardholder_name,
    status: card.status,
    currency: card.currency,
    available_balance: toDollars(card.available_balance_cents),
    ledger_balance: toDollars(card.ledger_balance_cents),
    product_id: card.product_id,
    created_at: card.created_at,
    updated_at: card.updated_at,
  }
}

/** The user's card among `cards`: the newest that is not closed. */
const current = (cards: CardRow[]) => newestFirst(cards.filter((c) => c.status !== 'closed'))[0]

/** The user's card (the newest that is not closed), if any. */
export async function currentCard(reader: StateReader, userId: string) {
  return current(await reader.lookup('cards_by_user', userId))
}
