import { z } from '@hono/zod-openapi'
import { disputeReasons } from '../domain/disputes.js'
import * as ex from './examples.js'
import {
  bankAccountStatus,
  bankAccountType,
  currency,
  depositStatus,
  disputeEvidence,
  disputeStatus,
  merchant,
  transactionDirection,
  transactionStatus,
  transactionType,
} from './fields.js'
import { multiLine, singleLine } from './text.js'

/** A decimal amount in USD; the 2-decimal rule and the maximum are checked in the domain. */
export const Amount = z
  .number()
  .openapi({ example: 25.5, description: 'USD, positive, at most 2 decimals.' })

/*
 * The responses below show money rows (store/records-money.ts) with their shared fields
 * (fields.ts) but keep their own amounts: dollars here, integer cents in the rows. They also leave
 * out the owner ids and what is decided ahead (a deposit's or dispute's outcome), and do not
 * state the rows' id patterns, which the document never promised.
 */
export const Transaction = z
  .object({
    id: z.string(),
    card_id: z.string(),
    type: transactionType,
    status: transactionStatus,
    direction: transactionDirection,
    amount: z.number(),
    currency,
    description: z.string(),
    merchant: merchant.nullable(),
    deposit_id: z.string().nullable(),
    dispute_id: z.string().nullable(),
    original_transaction_id: z.string().nullable(),
    decline_reason: z.string().nullable(),
    refunded_amount: z.number(),
    available_balance_after: z.number(),
    ledger_balance_after: z.number(),
    created_at: z.string(),
    updated_at: z.string(),
    posted_at: z.string().nullable(),
  })
  .openapi('Transaction', { example: ex.purchase })

export const TransactionPage = z
  .object({ data: z.array(Transaction), has_more: z.boolean().openapi({ example: false }) })
  .openapi('TransactionPage')

export const FundBody = z.object({ amount: Amount }).strict().openapi('SimulateFund')

export const FundResult = z
  .object({
    success: z.literal(true),
    message: z.string(),
    availableBalance: z.number(),
    data: z.object({ transaction: Transaction }),
  })
  .openapi('SimulateFundResult', {
    example: {
      success: true,
      message: 'Card funded',
      availableBalance: 100,
      data: { transaction: ex.funding },
    },
  })

export const Deposit = z
  .object({
    id: z.string(),
    card_id: z.string(),
    external_bank_account_id: z.string(),
    amount: z.number(),
    currency,
    status: depositStatus,
    failure_reason: z.string().nullable(),
    transaction_id: z.string(),
    settles_at: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Deposit', { example: ex.deposit })

export const DepositBody = z
  .object({
    amount: Amount,
    external_bank_account_id: z.string().startsWith('bank_', 'must be a bank account id (bank_…)'),
  })
  .strict()
  .openapi('CreateDeposit', { example: { amount: 250, external_bank_account_id: ex.ids.bank } })

export const MerchantBody = z
  .object({
    name: singleLine(z.string().trim().min(1).max(100)),
    category: singleLine(z.string().trim().min(1).max(60)).optional(),
    city: singleLine(z.string().trim().max(100)).nullable().optional(),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'a 2-letter country code')
      .optional(),
  })
  .strict()

export const PurchaseBody = z
  .object({ amount: Amount, merchant: MerchantBody })
  .strict()
  .openapi('SimulatePurchase', {
    example: {
      amount: 4.25,
      merchant: {
        name: 'Blue Bottle Coffee',
        category: 'restaurants',
        city: 'Oakland',
        country: 'US',
      },
    },
  })
export const RefundBody = z
  .object({ amount: Amount.optional() })
  .strict()
  .openapi('SimulateRefund', { example: { amount: 2 } })

export const TransactionQuery = z.object({
  type: transactionType.optional(),
  status: transactionStatus.optional(),
})

export const Dispute = z
  .object({
    id: z.string(),
    transaction_id: z.string(),
    card_id: z.string(),
    reason: z.string(),
    description: z.string().nullable(),
    amount: z.number(),
    currency,
    status: disputeStatus,
    evidence: z.array(disputeEvidence),
    provisional_credit_transaction_id: z.string().nullable(),
    reversal_transaction_id: z.string().nullable(),
    resolves_at: z.string().nullable(),
    resolved_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Dispute', { example: ex.dispute })

export const DisputeBody = z
  .object({
    transaction_id: z.string().startsWith('txn_', 'must be a transaction id (txn_…)'),
    reason: z.enum(disputeReasons),
    amount: Amount.optional().openapi({ description: 'Defaults to the whole disputable amount.' }),
    description: multiLine(z.string().trim().max(2000)).optional(),
  })
  .strict()
  .openapi('OpenDispute', {
    example: {
      transaction_id: ex.ids.purchase,
      reason: 'fraudulent',
      description: 'I did not make this purchase.',
    },
  })

export const EvidenceBody = z
  .object({ text: multiLine(z.string().trim().min(1).max(5000)) })
  .strict()
  .openapi('DisputeEvidence', { example: { text: 'I was at work in Chicago at the time.' } })

/** The row less its owner ids and routing number, which a partner never sees. */
export const BankAccount = z
  .object({
    id: z.string(),
    institution_id: z.string(),
    institution_name: z.string(),
    account_name: z.string(),
    account_type: bankAccountType,
    account_mask: z.string(),
    status: bankAccountStatus,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('ExternalBankAccount', { example: ex.bankAccount })

export const EnrollBody = z
  .object({
    token: z.string().min(1),
    institution_id: z.string().min(1),
    account_id: z.string().min(1),
  })
  .strict()
  .openapi('BankEnrollment', {
    example: {
      token: 'bct_5kq2m9x4r8t1.bctok_Vd3pQ7sLx2Nw9Zr4Tb6Ym1Kc8Hf5Jg0Ae',
      institution_id: 'ins_sandbox_first',
      account_id: 'acct_sandbox_first_0',
    },
  })
