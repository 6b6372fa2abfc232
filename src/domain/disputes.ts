import type { Deps } from '../deps.js'
import { ApiError, validationError } from '../errors.js'
import { decideDispute } from '../scenarios/money.js'
import type { CardRow, PartnerRow, UserRow } from '../store/records.js'
import type { DisputeRow } from '../store/records-money.js'
import type { Writer } from '../store/store.js'
import { toDollars } from './cards.js'
import { recordTransaction, requireTransaction, toCents, transactionEvent } from './ledger.js'
import { isDue, type SweepScope, waitingRows } from './sweeper.js'

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

const announce = (deps: Deps, w: Writer, d: DisputeRow, kind: 'created' | 'updated') =>
  deps.events.record(w, d.partner_id, `dispute.${kind}`, {
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

export function openDispute(deps: Deps, partner: PartnerRow, user: UserRow, input: DisputeInput) {
  const txn = requireTransaction(deps, user.id, input.transaction_id)
  if (txn.type !== 'purchase' || txn.status !== 'posted') {
    throw new ApiError(
      'conflict',
      `Only a posted purchase can be disputed; ${txn.id} is a ${txn.status} ${txn.type}.`,
    )
  }
  const open = deps.store
    .lookup('disputes', 'disputes_by_user', user.id)
    .find((d) => d.transaction_id === txn.id)
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
  const decision = decideDispute(deps.scenarios.forPartner(partner), input.reason)
  const card = deps.store.get('cards', txn.card_id) as CardRow
  const now = deps.clocks.forPartner(partner.id).now()
  const id = deps.random.id('dsp')
  let dispute!: DisputeRow
  deps.store.batch((w) => {
    const credit = recordTransaction(deps, w, card, {
      type: 'dispute_credit',
      direction: 'credit',
      amountCents: cents,
      status: 'posted',
      description: `Provisional credit for dispute ${id}`,
      disputeId: id,
      originalTransactionId: txn.id,
    }).txn
    dispute = {
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
    w.put('disputes', dispute)
    transactionEvent(deps, w, credit, 'created')
    announce(deps, w, dispute, 'created')
  })
  return dispute
}

export function requireDispute(deps: Deps, user: UserRow, id: string): DisputeRow {
  const d = deps.store.get('disputes', id)
  if (!d || d.user_id !== user.id)
    throw new ApiError('not_found', `No dispute ${id} for this user.`)
  return d
}

export function addEvidence(deps: Deps, dispute: DisputeRow, text: string) {
  if (dispute.status !== 'under_review')
    throw new ApiError(
      'conflict',
      `Dispute ${dispute.id} is ${dispute.status}; evidence is closed.`,
    )
  const now = deps.clocks.forPartner(dispute.partner_id).iso()
  const next: DisputeRow = {
    ...dispute,
    evidence: [...dispute.evidence, { id: deps.random.id('evd'), text, added_at: now }],
    updated_at: now,
  }
  deps.store.batch((w) => {
    w.put('disputes', next)
    announce(deps, w, next, 'updated')
  })
  return next
}

/** Ends a dispute: won keeps the provisional credit, lost reverses it with a posted debit. */
export function resolveDispute(deps: Deps, dispute: DisputeRow, outcome: 'won' | 'lost') {
  if (dispute.status !== 'under_review')
    throw new ApiError('conflict', `Dispute ${dispute.id} is already ${dispute.status}.`)
  const now = deps.clocks.forPartner(dispute.partner_id).iso()
  let next: DisputeRow = { ...dispute, status: outcome, resolved_at: now, updated_at: now }
  deps.store.batch((w) => {
    if (outcome === 'lost') {
      const card = deps.store.get('cards', dispute.card_id) as CardRow
      const reversal = recordTransaction(deps, w, card, {
        type: 'dispute_reversal',
        direction: 'debit',
        amountCents: dispute.amount_cents,
        status: 'posted',
        description: `Provisional credit reversed: dispute ${dispute.id} lost`,
        disputeId: dispute.id,
        originalTransactionId: dispute.transaction_id,
      }).txn
      next = { ...next, reversal_transaction_id: reversal.id }
      transactionEvent(deps, w, reversal, 'created')
    }
    w.put('disputes', next)
    announce(deps, w, next, 'updated')
  })
  return next
}

/** Sweep task: disputes whose review time has come end as the scenario decided. */
export function resolveDueDisputes(deps: Deps, scope: SweepScope): void {
  for (const d of waitingRows(deps, 'disputes', 'disputes_under_review', scope)) {
    if (isDue(scope, d.partner_id, d.resolves_at)) resolveDispute(deps, d, d.decided_outcome)
  }
}
