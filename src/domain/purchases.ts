import { ApiError, validationError } from '../errors.js'
import { purchaseDecline } from '../scenarios/money.js'
import { emailMatches } from '../scenarios/otp.js'
import type { StateTx } from '../state/seam.js'
import type { CardRow, PartnerRow, UserRow } from '../store/records.js'
import type { TransactionRow } from '../store/records-money.js'
import { currentCard } from './cards.js'
import {
  cardOfTransaction,
  noCardYet,
  recordTransaction,
  requireTransaction,
  toCents,
  transactionEvent,
  transition,
} from './ledger.js'
import type { MoneyKernel } from './money-kernel.js'

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

/** The writes of an authorization on `card`, read in the same transaction. */
async function writePurchase(
  ctx: MoneyKernel,
  tx: StateTx,
  partner: PartnerRow,
  card: CardRow | undefined,
  cents: number,
  merchant: MerchantInput,
): Promise<TransactionRow> {
  if (!card) throw noCardYet()
  if (card.status === 'closed') throw new ApiError('conflict', `The card ${card.id} is closed.`)
  const scenarioReason = purchaseDecline(
    ctx.scenarios.forPartner(partner),
    merchant.name,
    cents,
    emailMatches,
  )
  const declineReason =
    card.status === 'frozen'
      ? 'card_frozen'
      : (scenarioReason ?? (cents > card.available_balance_cents ? 'insufficient_funds' : null))
  const { txn } = recordTransaction(ctx, tx, card, {
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
  })
  await transactionEvent(ctx, tx, txn, 'created')
  return txn
}

/** An authorization: a hold when the balance covers it, else declined (never negative). */
export async function authorizePurchase(
  ctx: MoneyKernel,
  tx: StateTx,
  partner: PartnerRow,
  user: UserRow,
  amount: number,
  merchant: MerchantInput,
) {
  const cents = toCents(amount)
  return writePurchase(ctx, tx, partner, await currentCard(tx, user.id), cents, merchant)
}

async function requirePurchase(
  tx: StateTx,
  user: UserRow,
  id: string,
  status: TransactionRow['status'],
  action: string,
) {
  const txn = await requireTransaction(tx, user.id, id)
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
export async function clearPurchase(ctx: MoneyKernel, tx: StateTx, user: UserRow, id: string) {
  const txn = await requirePurchase(tx, user, id, 'pending', 'cleared')
  return moveAndAnnounce(ctx, tx, txn, 'posted')
}

/** Reversal releases a pending authorization's hold. */
export async function reversePurchase(ctx: MoneyKernel, tx: StateTx, user: UserRow, id: string) {
  const txn = await requirePurchase(tx, user, id, 'pending', 'reversed')
  return moveAndAnnounce(ctx, tx, txn, 'reversed')
}

async function moveAndAnnounce(
  ctx: MoneyKernel,
  tx: StateTx,
  txn: TransactionRow,
  status: 'posted' | 'reversed',
) {
  const next = (await transition(ctx, tx, txn, status)).txn
  await transactionEvent(ctx, tx, next, 'updated')
  return next
}

/** A refund of a posted purchase (all of what is left of it, or part): a posted credit. */
export async function refundPurchase(
  ctx: MoneyKernel,
  tx: StateTx,
  user: UserRow,
  id: string,
  amount?: number,
) {
  const txn = await requirePurchase(tx, user, id, 'posted', 'refunded')
  // A dispute that is open or won has already given the money back (its provisional
  // credit); refunding that part too would pay the cardholder twice.
  const disputed = (await tx.lookup('disputes_by_user', user.id))
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
  const card = await cardOfTransaction(tx, txn)
  const refund = recordTransaction(ctx, tx, card, {
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
    updated_at: ctx.clocks.forPartner(txn.partner_id).iso(),
  }
  tx.put('transactions', purchase)
  await transactionEvent(ctx, tx, refund, 'created')
  await transactionEvent(ctx, tx, purchase, 'updated')
  return refund
}

/** Freezes or unfreezes the user's card: a frozen card's purchases are declined. */
export async function setCardFrozen(
  ctx: Pick<MoneyKernel, 'clocks'>,
  tx: StateTx,
  user: UserRow,
  frozen: boolean,
): Promise<CardRow> {
  const card = await currentCard(tx, user.id)
  if (!card) throw noCardYet()
  const next = {
    ...card,
    status: frozen ? ('frozen' as const) : ('active' as const),
    updated_at: ctx.clocks.forPartner(card.partner_id).iso(),
  }
  tx.put('cards', next)
  return next
}
