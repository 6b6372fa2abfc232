import type { Deps } from '../deps.js'
import { ApiError, validationError } from '../errors.js'
import { purchaseDecline } from '../scenarios/money.js'
import { emailMatches } from '../scenarios/otp.js'
import type { CardRow, PartnerRow, UserRow } from '../store/records.js'
import type { TransactionRow } from '../store/records-money.js'
import { cardOf, publicCard } from './cards.js'
import {
  recordTransaction,
  requireTransaction,
  toCents,
  transactionEvent,
  transition,
} from './ledger.js'

/**
 * Card spending, sandbox only: an authorization at a merchant (approved as a hold, or
 * declined), then clearing, reversal and refund, each a card_transaction event.
 */

export interface MerchantInput {
  name: string
  category?: string
  city?: string | null
  country?: string
}

export function simulatePurchase(
  deps: Deps,
  partner: PartnerRow,
  user: UserRow,
  amount: number,
  merchant: MerchantInput,
) {
  const cents = toCents(amount)
  const card = cardOf(deps, user.id)
  if (!card)
    throw new ApiError('conflict', 'This user has no card yet: complete card onboarding first.')
  if (card.status === 'closed') throw new ApiError('conflict', `The card ${card.id} is closed.`)
  const scenarioReason = purchaseDecline(
    deps.scenarios.forPartner(partner),
    merchant.name,
    cents,
    emailMatches,
  )
  const declineReason =
    card.status === 'frozen'
      ? 'card_frozen'
      : (scenarioReason ?? (cents > card.available_balance_cents ? 'insufficient_funds' : null))
  let txn!: TransactionRow
  deps.store.batch((w) => {
    txn = recordTransaction(deps, w, card, {
      type: 'purchase',
      direction: 'debit',
      amountCents: cents,
      status: declineReason ? 'declined' : 'pending',
      description: `Purchase at ${merchant.name}`,
      merchant: {
        name: merchant.name,
        category: merchant.category ?? 'general_merchandise',
        city: merchant.city ?? null,
        country: merchant.country ?? 'US',
      },
      declineReason,
    }).txn
    transactionEvent(deps, w, txn, 'created')
  })
  return txn
}

function requirePurchase(
  deps: Deps,
  user: UserRow,
  id: string,
  status: TransactionRow['status'],
  action: string,
) {
  const txn = requireTransaction(deps, user.id, id)
  if (txn.type !== 'purchase')
    throw new ApiError('conflict', `Only a purchase can be ${action}; ${id} is a ${txn.type}.`)
  if (txn.status !== status) {
    throw new ApiError(
      'conflict',
      `A purchase can be ${action} only while ${status}; ${id} is ${txn.status}.`,
    )
  }
  return txn
}

/** Clearing posts a pending authorization (the hold becomes a ledger debit). */
export function clearPurchase(deps: Deps, user: UserRow, id: string) {
  const txn = requirePurchase(deps, user, id, 'pending', 'cleared')
  return moveAndAnnounce(deps, txn, 'posted')
}

/** Reversal releases a pending authorization's hold. */
export function reversePurchase(deps: Deps, user: UserRow, id: string) {
  const txn = requirePurchase(deps, user, id, 'pending', 'reversed')
  return moveAndAnnounce(deps, txn, 'reversed')
}

function moveAndAnnounce(deps: Deps, txn: TransactionRow, status: 'posted' | 'reversed') {
  let next!: TransactionRow
  deps.store.batch((w) => {
    next = transition(deps, w, txn, status).txn
    transactionEvent(deps, w, next, 'updated')
  })
  return next
}

/** A refund of a posted purchase (all of what is left of it, or part): a posted credit. */
export function refundPurchase(deps: Deps, user: UserRow, id: string, amount?: number) {
  const txn = requirePurchase(deps, user, id, 'posted', 'refunded')
  // A dispute that is open or won has already given the money back (its provisional
  // credit); refunding that part too would pay the cardholder twice.
  const disputed = deps.store
    .lookup('disputes', 'disputes_by_user', user.id)
    .filter((d) => d.transaction_id === txn.id && d.status !== 'lost')
    .reduce((sum, d) => sum + d.amount_cents, 0)
  const left = txn.amount_cents - txn.refunded_cents - disputed
  if (left <= 0)
    throw new ApiError(
      'conflict',
      `Nothing is left to refund on ${txn.id}: it was refunded or disputed.`,
    )
  const cents = amount === undefined ? left : toCents(amount)
  if (cents > left)
    throw validationError('amount', `must be at most ${left / 100}, what is left of the purchase`)
  const card = deps.store.get('cards', txn.card_id) as CardRow
  let refund!: TransactionRow
  deps.store.batch((w) => {
    refund = recordTransaction(deps, w, card, {
      type: 'refund',
      direction: 'credit',
      amountCents: cents,
      status: 'posted',
      description: `Refund from ${txn.merchant?.name ?? 'merchant'}`,
      merchant: txn.merchant,
      originalTransactionId: txn.id,
    }).txn
    const purchase = {
      ...txn,
      refunded_cents: txn.refunded_cents + cents,
      updated_at: deps.clocks.forPartner(txn.partner_id).iso(),
    }
    w.put('transactions', purchase)
    transactionEvent(deps, w, refund, 'created')
    transactionEvent(deps, w, purchase, 'updated')
  })
  return refund
}

export function setCardFrozen(deps: Deps, user: UserRow, frozen: boolean) {
  const card = cardOf(deps, user.id)
  if (!card)
    throw new ApiError('conflict', 'This user has no card yet: complete card onboarding first.')
  const next = {
    ...card,
    status: frozen ? ('frozen' as const) : ('active' as const),
    updated_at: deps.clocks.forPartner(card.partner_id).iso(),
  }
  deps.store.put('cards', next)
  return publicCard(next)
}
