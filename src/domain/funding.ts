import type { Deps } from '../deps.js'
import { ApiError } from '../errors.js'
import { decideDeposit, fundingLimits } from '../scenarios/money.js'
import type { PartnerRow, UserRow } from '../store/records.js'
import type { DepositRow } from '../store/records-money.js'
import { toDollars } from './cards.js'
import {
  publicTransaction,
  recordTransaction,
  requireActiveCard,
  toCents,
  transactionEvent,
  transition,
} from './ledger.js'
import { isDue, type SweepScope, waitingRows } from './sweeper.js'

/** POST /partner/cards/simulate-fund: the sandbox shortcut, a posted credit at once. */
export function simulateFund(deps: Deps, partner: PartnerRow, user: UserRow, amount: number) {
  const { maxCents } = fundingLimits(deps.scenarios.forPartner(partner))
  const cents = toCents(amount, 'amount', maxCents)
  const card = requireActiveCard(deps, user.id)
  let result!: ReturnType<typeof recordTransaction>
  deps.store.batch((w) => {
    result = recordTransaction(deps, w, card, {
      type: 'funding',
      direction: 'credit',
      amountCents: cents,
      status: 'posted',
      description: 'Sandbox funding (simulate-fund)',
    })
    transactionEvent(deps, w, result.txn, 'created')
    deps.events.record(w, partner.id, 'card.funded', {
      object: 'card_funding',
      card_id: card.id,
      user_id: user.id,
      amount: toDollars(cents),
      transaction_id: result.txn.id,
      available_balance: toDollars(result.card.available_balance_cents),
    })
  })
  return {
    message: `Card funded with ${toDollars(cents).toFixed(2)} USD.`,
    availableBalance: toDollars(result.card.available_balance_cents),
    transaction: publicTransaction(result.txn),
  }
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
export function createDeposit(
  deps: Deps,
  partner: PartnerRow,
  user: UserRow,
  amount: number,
  bankAccountId: string,
) {
  const scenario = deps.scenarios.forPartner(partner)
  const cents = toCents(amount, 'amount', fundingLimits(scenario).maxCents)
  const bank = deps.store.get('bank_accounts', bankAccountId)
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
  const card = requireActiveCard(deps, user.id)
  const decision = decideDeposit(scenario, cents)
  const now = deps.clocks.forPartner(partner.id).now()
  const id = deps.random.id('dep')
  let deposit!: DepositRow
  deps.store.batch((w) => {
    const { txn } = recordTransaction(deps, w, card, {
      type: 'deposit',
      direction: 'credit',
      amountCents: cents,
      status: 'pending',
      description: `Deposit from ${bank.institution_name} ••${bank.account_mask}`,
      depositId: id,
    })
    deposit = {
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
    w.put('deposits', deposit)
    transactionEvent(deps, w, txn, 'created')
    deps.events.record(w, partner.id, 'deposit.created', {
      object: 'deposit',
      user_id: user.id,
      ...publicDeposit(deposit),
    })
  })
  return deposit
}

/** Sweep task: pending deposits whose settlement time has come succeed or fail. */
export function settleDueDeposits(deps: Deps, scope: SweepScope): void {
  const due = waitingRows(deps, 'deposits', 'deposits_pending', scope)
    .filter((d) => isDue(scope, d.partner_id, d.settles_at))
    .sort((a, b) => a.settles_at.localeCompare(b.settles_at))
  for (const deposit of due) {
    const txn = deps.store.get('transactions', deposit.transaction_id)
    if (!txn) continue
    deps.store.batch((w) => {
      const ok = deposit.decided_outcome === 'succeeded'
      const moved = transition(deps, w, txn, ok ? 'posted' : 'failed')
      const settled: DepositRow = {
        ...deposit,
        status: ok ? 'succeeded' : 'failed',
        failure_reason: ok ? null : deposit.decided_reason,
        updated_at: deps.clocks.forPartner(deposit.partner_id).iso(),
      }
      w.put('deposits', settled)
      transactionEvent(deps, w, moved.txn, 'updated')
      deps.events.record(w, deposit.partner_id, ok ? 'deposit.succeeded' : 'deposit.failed', {
        object: 'deposit',
        user_id: deposit.user_id,
        ...publicDeposit(settled),
        available_balance: toDollars(moved.card.available_balance_cents),
      })
    })
  }
}
