import { ApiError } from '../errors.js'
import { decideDeposit, fundingLimits } from '../scenarios/money.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { CardRow, PartnerRow, UserRow } from '../store/records.js'
import type { DepositRow } from '../store/records-money.js'
import { toDollars } from './cards.js'
import {
  recordTransaction,
  requireActiveCard,
  toCents,
  transactionEvent,
  transition,
} from './ledger.js'
import type { MoneyKernel } from './money-kernel.js'
import { isDue, type SweepScope, waitingRowsOf } from './sweeper.js'

/** A funding's amount in cents: positive, at most 2 decimals, up to the scenario's maximum. */
const fundingCents = (ctx: Pick<MoneyKernel, 'scenarios'>, partner: PartnerRow, amount: number) =>
  toCents(amount, 'amount', fundingLimits(ctx.scenarios.forPartner(partner)).maxCents)

/** The writes of a simulate-fund: a posted credit on `card`, read in the same transaction. */
async function writeFunding(
  ctx: MoneyKernel,
  tx: StateTx,
  partner: PartnerRow,
  user: UserRow,
  card: CardRow,
  cents: number,
) {
  const result = recordTransaction(ctx, tx, card, {
    type: 'funding',
    direction: 'credit',
    amountCents: cents,
    status: 'posted',
    description: 'Sandbox funding (simulate-fund)',
  })
  await transactionEvent(ctx, tx, result.txn, 'created')
  await ctx.events.record(tx, partner.id, 'card.funded', {
    object: 'card_funding',
    card_id: card.id,
    user_id: user.id,
    amount: toDollars(cents),
    transaction_id: result.txn.id,
    available_balance: toDollars(result.card.available_balance_cents),
  })
  return result
}

/** POST /partner/cards/simulate-fund: the sandbox shortcut, a posted credit at once. */
export async function fundCard(
  ctx: MoneyKernel,
  tx: StateTx,
  partner: PartnerRow,
  user: UserRow,
  amount: number,
) {
  const cents = fundingCents(ctx, partner, amount)
  return writeFunding(ctx, tx, partner, user, await requireActiveCard(tx, user.id), cents)
}

export function publicDeposit(d: DepositRow) {
  return {
    id: d.id,
    card_id: d.card_id,
    external_bank_account_id: d.external_bank_account_id,
    amount: toDollars(d.amount_cents),
    currency: 'USD' as const,
    status: d.status,
    failure_reason: d.failure_reason,
    transaction_id: d.transaction_id,
    settles_at: d.settles_at,
    created_at: d.created_at,
    updated_at: d.updated_at,
  }
}

/** A deposit from a connected bank account: pending until the clock reaches settles_at. */
export async function createDeposit(
  ctx: MoneyKernel,
  tx: StateTx,
  partner: PartnerRow,
  user: UserRow,
  amount: number,
  bankAccountId: string,
) {
  const scenario = ctx.scenarios.forPartner(partner)
  const cents = fundingCents(ctx, partner, amount)
  const bank = await tx.get('bank_accounts', bankAccountId)
  if (!bank || bank.user_id !== user.id || bank.status !== 'active') {
    throw new ApiError(
      'validation_error',
      `external_bank_account_id: ${bankAccountId} is not a connected bank account of this user.`,
      {
        details: [
          {
            field: 'external_bank_account_id',
            message: 'is not a connected bank account of this user',
            location: 'body',
          },
        ],
      },
    )
  }
  const card = await requireActiveCard(tx, user.id)
  const decision = decideDeposit(scenario, cents)
  const now = ctx.clocks.forPartner(partner.id).now()
  const id = ctx.random.id('dep')
  const { txn } = recordTransaction(ctx, tx, card, {
    type: 'deposit',
    direction: 'credit',
    amountCents: cents,
    status: 'pending',
    description: `Deposit from ${bank.institution_name} ••${bank.account_mask}`,
    depositId: id,
  })
  const deposit: DepositRow = {
    id,
    partner_id: partner.id,
    user_id: user.id,
    card_id: card.id,
    external_bank_account_id: bank.id,
    amount_cents: cents,
    status: 'pending',
    failure_reason: null,
    decided_outcome: decision.outcome,
    decided_reason: decision.reason,
    transaction_id: txn.id,
    settles_at: new Date(now + decision.delay).toISOString(),
    created_at: new Date(now).toISOString(),
    updated_at: new Date(now).toISOString(),
  }
  tx.put('deposits', deposit)
  await transactionEvent(ctx, tx, txn, 'created')
  await ctx.events.record(tx, partner.id, 'deposit.created', {
    object: 'deposit',
    user_id: user.id,
    ...publicDeposit(deposit),
  })
  return deposit
}

/** A deposit of this user, or 404 (also for another user's or partner's id). */
export async function requireDeposit(reader: StateReader, userId: string, id: string) {
  const row = await reader.get('deposits', id)
  if (!row || row.user_id !== userId)
    throw new ApiError('not_found', `No deposit ${id} for this user.`)
  return row
}

/** The pending deposits of the sweep whose settlement time has come, soonest first. */
export async function dueDeposits(reader: StateReader, scope: SweepScope) {
  return (await waitingRowsOf(reader, 'deposits_pending', scope))
    .filter((d) => isDue(scope, d.partner_id, d.settles_at))
    .sort((a, b) => a.settles_at.localeCompare(b.settles_at))
}

/** Settles a due deposit: it succeeds or fails as decided; read again, so it settles once. */
export async function settleDeposit(ctx: MoneyKernel, tx: StateTx, id: string) {
  const deposit = await tx.get('deposits', id)
  if (deposit?.status !== 'pending') return
  const txn = await tx.get('transactions', deposit.transaction_id)
  if (!txn) return
  const ok = deposit.decided_outcome === 'succeeded'
  const moved = await transition(ctx, tx, txn, ok ? 'posted' : 'failed')
  const settled: DepositRow = {
    ...deposit,
    status: ok ? 'succeeded' : 'failed',
    failure_reason: ok ? null : deposit.decided_reason,
    updated_at: ctx.clocks.forPartner(deposit.partner_id).iso(),
  }
  tx.put('deposits', settled)
  await transactionEvent(ctx, tx, moved.txn, 'updated')
  await ctx.events.record(tx, deposit.partner_id, ok ? 'deposit.succeeded' : 'deposit.failed', {
    object: 'deposit',
    user_id: deposit.user_id,
    ...publicDeposit(settled),
    available_balance: toDollars(moved.card.available_balance_cents),
  })
}
