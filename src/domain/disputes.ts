import { ApiError, validationError } from '../errors.js'
import { decideDispute } from '../scenarios/money.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { CardRow, PartnerRow, UserRow } from '../store/records.js'
import type { DisputeRow } from '../store/records-money.js'
import { toDollars } from './cards.js'
import {
  cardOfTransaction,
  recordTransaction,
  requireTransaction,
  toCents,
  transactionEvent,
} from './ledger.js'
import type { MoneyKernel } from './money-kernel.js'
import { isDue, type SweepScope, waitingRowsOf } from './sweeper.js'

/**
 * Disputes on posted purchases: a provisional credit at once, then a resolution by the
 * sandbox clock (scenario outcome) or the control plane: won keeps the credit, lost
 * reverses it.
 */

export const disputeReasons = [
  'fraudulent',
  'duplicate',
  'product_not_received',
  'product_unacceptable',
  'credit_not_processed',
  'subscription_canceled',
  'incorrect_amount',
  'other',
] as const

export function publicDispute(d: DisputeRow) {
  return {
    id: d.id,
    transaction_id: d.transaction_id,
    card_id: d.card_id,
    reason: d.reason,
    description: d.description,
    amount: toDollars(d.amount_cents),
    currency: 'USD' as const,
    status: d.status,
    evidence: d.evidence,
    provisional_credit_transaction_id: d.provisional_credit_transaction_id,
    reversal_transaction_id: d.reversal_transaction_id,
    resolves_at: d.resolved_at ? null : d.resolves_at,
    resolved_at: d.resolved_at,
    created_at: d.created_at,
    updated_at: d.updated_at,
  }
}

const announce = (
  ctx: Pick<MoneyKernel, 'events'>,
  tx: StateTx,
  d: DisputeRow,
  kind: 'created' | 'updated',
) =>
  ctx.events.record(tx, d.partner_id, `dispute.${kind}`, {
    object: 'dispute',
    user_id: d.user_id,
    ...publicDispute(d),
  })

export interface DisputeInput {
  transaction_id: string
  reason: (typeof disputeReasons)[number]
  amount?: number
  description?: string
}

export async function openDispute(
  ctx: MoneyKernel,
  tx: StateTx,
  partner: PartnerRow,
  user: UserRow,
  input: DisputeInput,
) {
  const txn = await requireTransaction(tx, user.id, input.transaction_id)
  if (txn.type !== 'purchase' || txn.status !== 'posted') {
    throw new ApiError(
      'conflict',
      `Only a posted purchase can be disputed; ${txn.id} is a ${txn.status} ${txn.type}.`,
    )
  }
  const open = (await tx.lookup('disputes_by_user', user.id)).find(
    (d) => d.transaction_id === txn.id,
  )
  if (open)
    throw new ApiError('conflict', `Transaction ${txn.id} is already disputed (${open.id}).`)
  const left = txn.amount_cents - txn.refunded_cents
  // A wholly refunded purchase has nothing left to dispute (a 0 credit is no transaction).
  if (left <= 0)
    throw new ApiError('conflict', `Transaction ${txn.id} was wholly refunded: nothing to dispute.`)
  const cents = input.amount === undefined ? left : toCents(input.amount)
  if (cents > left)
    throw validationError(
      'amount',
      `must be at most ${toDollars(left)}, the disputable part of the transaction`,
    )
  const decision = decideDispute(ctx.scenarios.forPartner(partner), input.reason)
  const card = await cardOfTransaction(tx, txn)
  const now = ctx.clocks.forPartner(partner.id).now()
  const id = ctx.random.id('dsp')
  const credit = recordTransaction(ctx, tx, card, {
    type: 'dispute_credit',
    direction: 'credit',
    amountCents: cents,
    status: 'posted',
    description: `Provisional credit for dispute ${id}`,
    disputeId: id,
    originalTransactionId: txn.id,
  }).txn
  const dispute: DisputeRow = {
    id,
    partner_id: partner.id,
    user_id: user.id,
    card_id: card.id,
    transaction_id: txn.id,
    reason: input.reason,
    description: input.description ?? null,
    amount_cents: cents,
    status: 'under_review',
    evidence: [],
    provisional_credit_transaction_id: credit.id,
    reversal_transaction_id: null,
    decided_outcome: decision.outcome,
    resolves_at: new Date(now + decision.delay).toISOString(),
    resolved_at: null,
    created_at: new Date(now).toISOString(),
    updated_at: new Date(now).toISOString(),
  }
  tx.put('disputes', dispute)
  await transactionEvent(ctx, tx, credit, 'created')
  await announce(ctx, tx, dispute, 'created')
  return dispute
}

/** A dispute of this user, or 404 (also for another user's or partner's id). */
export async function requireDispute(
  reader: StateReader,
  user: UserRow,
  id: string,
): Promise<DisputeRow> {
  const d = await reader.get('disputes', id)
  if (!d || d.user_id !== user.id)
    throw new ApiError('not_found', `No dispute ${id} for this user.`)
  return d
}

export async function addEvidence(
  ctx: Pick<MoneyKernel, 'clocks' | 'random' | 'events'>,
  tx: StateTx,
  user: UserRow,
  id: string,
  text: string,
) {
  const dispute = await requireDispute(tx, user, id)
  if (dispute.status !== 'under_review')
    throw new ApiError(
      'conflict',
      `Dispute ${dispute.id} is ${dispute.status}; evidence is closed.`,
    )
  const now = ctx.clocks.forPartner(dispute.partner_id).iso()
  const next: DisputeRow = {
    ...dispute,
    evidence: [...dispute.evidence, { id: ctx.random.id('evd'), text, added_at: now }],
    updated_at: now,
  }
  tx.put('disputes', next)
  await announce(ctx, tx, next, 'updated')
  return next
}

/**
 * Ends dispute `id` (of any user: the control plane's and the sweep's call): won keeps the
 * provisional credit, lost reverses it with a posted debit. A 404 when there is none.
 */
export async function resolveDispute(
  ctx: MoneyKernel,
  tx: StateTx,
  id: string,
  outcome: 'won' | 'lost',
) {
  const dispute = await tx.get('disputes', id)
  if (!dispute) throw new ApiError('not_found', `No dispute ${id}.`)
  if (dispute.status !== 'under_review')
    throw new ApiError('conflict', `Dispute ${dispute.id} is already ${dispute.status}.`)
  const now = ctx.clocks.forPartner(dispute.partner_id).iso()
  let next: DisputeRow = { ...dispute, status: outcome, resolved_at: now, updated_at: now }
  if (outcome === 'lost') {
    const card = (await tx.get('cards', dispute.card_id)) as CardRow
    const reversal = recordTransaction(ctx, tx, card, {
      type: 'dispute_reversal',
      direction: 'debit',
      amountCents: dispute.amount_cents,
      status: 'posted',
      description: `Provisional credit reversed: dispute ${dispute.id} lost`,
      disputeId: dispute.id,
      originalTransactionId: dispute.transaction_id,
    }).txn
    next = { ...next, reversal_transaction_id: reversal.id }
    await transactionEvent(ctx, tx, reversal, 'created')
  }
  tx.put('disputes', next)
  await announce(ctx, tx, next, 'updated')
  return next
}

/** The disputes under review of the sweep whose review time has come. */
export async function dueDisputes(reader: StateReader, scope: SweepScope) {
  return (await waitingRowsOf(reader, 'disputes_under_review', scope)).filter((d) =>
    isDue(scope, d.partner_id, d.resolves_at),
  )
}
