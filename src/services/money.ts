import { currentCard } from '../domain/cards.js'
import {
  addEvidence,
  type DisputeInput,
  dueDisputes,
  openDispute,
  requireDispute,
  resolveDispute,
} from '../domain/disputes.js'
import type { EventBus } from '../domain/events.js'
import {
  createDeposit,
  dueDeposits,
  fundCard,
  requireDeposit,
  settleDeposit,
} from '../domain/funding.js'
import { requireTransaction, transactionPage } from '../domain/ledger.js'
import type { MoneyKernel } from '../domain/money-kernel.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import {
  authorizePurchase,
  clearPurchase,
  type MerchantInput,
  refundPurchase,
  reversePurchase,
  setCardFrozen,
} from '../domain/purchases.js'
import { statePage } from '../domain/state-page.js'
import type { SweepScope } from '../domain/sweeper.js'
import type { Random } from '../random.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { State, TenantScope } from '../state/seam.js'
import type { PartnerRow, UserRow } from '../store/records.js'
import type { TransactionRow } from '../store/records-money.js'

type ListQuery = { limit: number; starting_after?: string }

/**
 * The card's money: funding, deposits, purchases and their lifecycle, disputes, and the
 * time-driven settlement of deposits and disputes. Each method that writes is one
 * transaction of the seam (the seam runs one at a time, so balances are exact under any
 * concurrency); reads go to the state directly. Answers are rows: the routes present them.
 */
/** A user's request's scope: its partner's rows only (TenantScope). */
const own = (user: UserRow): TenantScope => ({ partner: user.partner_id })

export class Money {
  private readonly state: State
  private readonly kernel: MoneyKernel

  constructor(parts: {
    state: State
    clocks: PartnerClocks
    random: Random
    events: EventBus
    scenarios: ScenarioRegistry
  }) {
    const { state, ...kernel } = parts
    this.state = state
    this.kernel = kernel
  }

  simulateFund(partner: PartnerRow, user: UserRow, amount: number) {
    return this.state.transaction(
      (tx) => fundCard(this.kernel, tx, partner, user, amount),
      own(user),
    )
  }

  createDeposit(partner: PartnerRow, user: UserRow, amount: number, bankAccountId: string) {
    return this.state.transaction(
      (tx) => createDeposit(this.kernel, tx, partner, user, amount, bankAccountId),
      own(user),
    )
  }

  deposits(user: UserRow, query: ListQuery) {
    return statePage(this.state.tenant(user.partner_id), 'deposits_by_user', user.id, query)
  }

  deposit(user: UserRow, id: string) {
    return requireDeposit(this.state.tenant(user.partner_id), user.id, id)
  }

  /** The user's current card (the newest not closed), if any. */
  card(user: UserRow) {
    return currentCard(this.state.tenant(user.partner_id), user.id)
  }

  transactions(user: UserRow, query: ListQuery, keep?: (row: TransactionRow) => boolean) {
    return transactionPage(this.state.tenant(user.partner_id), user.id, query, keep)
  }

  transaction(user: UserRow, id: string) {
    return requireTransaction(this.state.tenant(user.partner_id), user.id, id)
  }

  simulatePurchase(partner: PartnerRow, user: UserRow, amount: number, merchant: MerchantInput) {
    return this.state.transaction(
      (tx) => authorizePurchase(this.kernel, tx, partner, user, amount, merchant),
      own(user),
    )
  }

  clearPurchase(user: UserRow, id: string) {
    return this.state.transaction((tx) => clearPurchase(this.kernel, tx, user, id), own(user))
  }

  reversePurchase(user: UserRow, id: string) {
    return this.state.transaction((tx) => reversePurchase(this.kernel, tx, user, id), own(user))
  }

  refundPurchase(user: UserRow, id: string, amount?: number) {
    return this.state.transaction(
      (tx) => refundPurchase(this.kernel, tx, user, id, amount),
      own(user),
    )
  }

  setCardFrozen(user: UserRow, frozen: boolean) {
    return this.state.transaction((tx) => setCardFrozen(this.kernel, tx, user, frozen), own(user))
  }

  openDispute(partner: PartnerRow, user: UserRow, input: DisputeInput) {
    return this.state.transaction(
      (tx) => openDispute(this.kernel, tx, partner, user, input),
      own(user),
    )
  }

  disputes(user: UserRow, query: ListQuery) {
    return statePage(this.state.tenant(user.partner_id), 'disputes_by_user', user.id, query)
  }

  dispute(user: UserRow, id: string) {
    return requireDispute(this.state.tenant(user.partner_id), user, id)
  }

  addEvidence(user: UserRow, id: string, text: string) {
    return this.state.transaction((tx) => addEvidence(this.kernel, tx, user, id, text), own(user))
  }

  /** The control plane's resolution of any dispute, now. */
  resolveDispute(id: string, outcome: 'won' | 'lost') {
    return this.state.transaction((tx) => resolveDispute(this.kernel, tx, id, outcome))
  }

  /** Sweep task: pending deposits whose settlement time has come succeed or fail. */
  async settleDueDeposits(scope: SweepScope): Promise<void> {
    // One transaction each, as each settles on its own; each reads its deposit again.
    for (const deposit of await dueDeposits(this.state, scope)) {
      await this.state.transaction((tx) => settleDeposit(this.kernel, tx, deposit.id))
    }
  }

  /** Sweep task: disputes whose review time has come end as the scenario decided. */
  async resolveDueDisputes(scope: SweepScope): Promise<void> {
    for (const due of await dueDisputes(this.state, scope)) {
      await this.state.transaction(async (tx) => {
        // Read again: the control plane may have resolved it meanwhile.
        const dispute = await tx.get('disputes', due.id)
        if (dispute?.status === 'under_review')
          await resolveDispute(this.kernel, tx, dispute.id, dispute.decided_outcome)
      })
    }
  }
}
