import { ApiError, validationError } from '../errors.js'
import type { StateReader, StateTx, StateWriter } from '../state/seam.js'
import type { CardRow } from '../store/records.js'
import type { Merchant, TransactionRow, TransactionType } from '../store/records-money.js'
import { currentCard, toDollars } from './cards.js'
import type { MoneyKernel } from './money-kernel.js'
import { statePage } from './state-page.js'

/**
 * The one ledger. A card's ledger balance is the sum of its posted credits minus its posted
 * debits; its available balance is that minus the holds of pending debits. Every change
 * writes the transaction and the card in the transaction that read the card's balance: the
 * seam runs one writer at a time, so parallel requests on one card are serialized whatever
 * they await in between: none is lost and none overdraws.
 */

type Ctx = Pick<MoneyKernel, 'clocks' | 'random'>

/** Decimal dollars (at most 2 places) to integer cents, or a 400 naming the field. */
export function toCents(amount: number, field = 'amount', maxCents?: number): number {
  if (!Number.isFinite(amount) || amount <= 0)
    throw validationError(field, 'must be a positive amount')
  if (!/^\d+(\.\d{1,2})?$/.test(String(amount)))
    throw validationError(field, 'must be a number with at most 2 decimals')
  const cents = Math.round(amount * 100)
  if (maxCents !== undefined && cents > maxCents) {
    throw validationError(field, `must be at most ${toDollars(maxCents)}`)
  }
  return cents
}

/** A 409 that says what to do when the user has no card. */
export const noCardYet = () =>
  new ApiError('conflict', 'This user has no card yet: complete card onboarding first.')

/** `card` when it is there and active, or a 409 that says what to do. */
export function assertActiveCard(card: CardRow | undefined): CardRow {
  if (!card) throw noCardYet()
  if (card.status !== 'active') {
    throw new ApiError('conflict', `The card ${card.id} is ${card.status}; it must be active.`)
  }
  return card
}

/** The user's active card, or a 409 that says what to do. */
export async function requireActiveCard(reader: StateReader, userId: string): Promise<CardRow> {
  return assertActiveCard(await currentCard(reader, userId))
}

export interface NewTransaction {
  type: TransactionType
  direction: 'credit' | 'debit'
  amountCents: number
  status: 'pending' | 'posted' | 'declined' | 'failed'
  description: string
  merchant?: Merchant | null
  depositId?: string | null
  disputeId?: string | null
  originalTransactionId?: string | null
  declineReason?: string | null
}

type Effect = { available: number; ledger: number }

/** What a transaction in a given status adds to the balances. */
function effect(
  direction: 'credit' | 'debit',
  status: TransactionRow['status'],
  cents: number,
): Effect {
  const sign = direction === 'credit' ? 1 : -1
  if (status === 'posted') return { available: sign * cents, ledger: sign * cents }
  // A pending debit is a hold; a pending credit (a deposit on its way) counts for nothing yet.
  if (status === 'pending' && direction === 'debit') return { available: -cents, ledger: 0 }
  return { available: 0, ledger: 0 }
}

function applyToCard(ctx: Ctx, w: StateWriter, card: CardRow, delta: Effect): CardRow {
  const next = {
    ...card,
    available_balance_cents: card.available_balance_cents + delta.available,
    ledger_balance_cents: card.ledger_balance_cents + delta.ledger,
    updated_at: ctx.clocks.forPartner(card.partner_id).iso(),
  }
  w.put('cards', next)
  return next
}

/** Writes a transaction of `card` and its balances; `card` must be read in the same transaction. */
export function recordTransaction(ctx: Ctx, w: StateWriter, card: CardRow, input: NewTransaction) {
  const now = ctx.clocks.forPartner(card.partner_id).iso()
  const nextCard = applyToCard(
    ctx,
    w,
    card,
    effect(input.direction, input.status, input.amountCents),
  )
  const txn: TransactionRow = {
    id: ctx.random.id('txn'),
    partner_id: card.partner_id,
    user_id: card.user_id,
    card_id: card.id,
    type: input.type,
    status: input.status,
    direction: input.direction,
    amount_cents: input.amountCents,
    currency: 'USD',
    description: input.description,
    merchant: input.merchant ?? null,
    deposit_id: input.depositId ?? null,
    dispute_id: input.disputeId ?? null,
    original_transaction_id: input.originalTransactionId ?? null,
    decline_reason: input.declineReason ?? null,
    available_balance_after_cents: nextCard.available_balance_cents,
    ledger_balance_after_cents: nextCard.ledger_balance_cents,
    refunded_cents: 0,
    created_at: now,
    updated_at: now,
    posted_at: input.status === 'posted' ? now : null,
  }
  w.put('transactions', txn)
  return { card: nextCard, txn }
}

/** The card a transaction is on, read in `tx` (every transaction has one). */
export async function cardOfTransaction(tx: StateReader, txn: TransactionRow): Promise<CardRow> {
  return (await tx.get('cards', txn.card_id)) as CardRow
}

/** Moves a pending transaction to posted, reversed or failed, adjusting the balances. */
export async function transition(
  ctx: Ctx,
  tx: StateTx,
  txn: TransactionRow,
  status: 'posted' | 'reversed' | 'failed',
) {
  const card = await cardOfTransaction(tx, txn)
  const before = effect(txn.direction, txn.status, txn.amount_cents)
  const after = effect(txn.direction, status, txn.amount_cents)
  const nextCard = applyToCard(ctx, tx, card, {
    available: after.available - before.available,
    ledger: after.ledger - before.ledger,
  })
  const now = ctx.clocks.forPartner(txn.partner_id).iso()
  const next: TransactionRow = {
    ...txn,
    status,
    available_balance_after_cents: nextCard.available_balance_cents,
    ledger_balance_after_cents: nextCard.ledger_balance_cents,
    updated_at: now,
    posted_at: status === 'posted' ? now : txn.posted_at,
  }
  tx.put('transactions', next)
  return { card: nextCard, txn: next }
}

export function publicTransaction(t: TransactionRow) {
  return {
    id: t.id,
    card_id: t.card_id,
    type: t.type,
    status: t.status,
    direction: t.direction,
    amount: toDollars(t.amount_cents),
    currency: t.currency,
    description: t.description,
    merchant: t.merchant,
    deposit_id: t.deposit_id,
    dispute_id: t.dispute_id,
    original_transaction_id: t.original_transaction_id,
    decline_reason: t.decline_reason,
    refunded_amount: toDollars(t.refunded_cents),
    available_balance_after: toDollars(t.available_balance_after_cents),
    ledger_balance_after: toDollars(t.ledger_balance_after_cents),
    created_at: t.created_at,
    updated_at: t.updated_at,
    posted_at: t.posted_at,
  }
}

/** A page of the user's transactions, newest first, reading only the page (see statePage). */
export function transactionPage(
  reader: StateReader,
  userId: string,
  query: { limit: number; starting_after?: string },
  keep?: (row: TransactionRow) => boolean,
) {
  return statePage(reader, 'transactions_by_user', userId, query, keep)
}

/** A transaction of this user, or 404 (also for another user's or partner's id). */
export async function requireTransaction(
  reader: StateReader,
  userId: string,
  id: string,
): Promise<TransactionRow> {
  const txn = await reader.get('transactions', id)
  if (!txn || txn.user_id !== userId)
    throw new ApiError('not_found', `No transaction ${id} for this user.`)
  return txn
}

export async function transactionEvent(
  ctx: Pick<MoneyKernel, 'events'>,
  tx: StateTx,
  txn: TransactionRow,
  kind: 'created' | 'updated',
): Promise<void> {
  await ctx.events.record(tx, txn.partner_id, `card_transaction.${kind}`, {
    object: 'card_transaction',
    user_id: txn.user_id,
    ...publicTransaction(txn),
  })
}
