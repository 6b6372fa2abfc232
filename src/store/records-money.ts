import { z } from 'zod'
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
} from '../schemas/fields.js'

/**
 * Money rows. Amounts are integer cents; the API shows decimal dollars. Every balance
 * change is a transaction row, so a card's balances are the sums of its transactions.
 * Statuses, types and the merchant are shared with the API (src/schemas/fields.ts).
 */

export {
  type Merchant,
  merchant,
  type TransactionStatus,
  type TransactionType,
  transactionStatus,
  transactionType,
} from '../schemas/fields.js'

export const transactionRow = z.object({
  id: z.string().startsWith('txn_'),
  partner_id: z.uuid(),
  user_id: z.uuid(),
  card_id: z.string().startsWith('card_'),
  type: transactionType,
  status: transactionStatus,
  direction: transactionDirection,
  amount_cents: z.number().int().positive(),
  currency,
  description: z.string(),
  merchant: merchant.nullable(),
  deposit_id: z.string().nullable(),
  dispute_id: z.string().nullable(),
  original_transaction_id: z.string().nullable(),
  decline_reason: z.string().nullable(),
  /** Balances right after this transaction's last change. */
  available_balance_after_cents: z.number().int(),
  ledger_balance_after_cents: z.number().int(),
  /** Cents of this purchase already refunded (purchases only). */
  refunded_cents: z.number().int().nonnegative(),
  created_at: z.string(),
  updated_at: z.string(),
  posted_at: z.string().nullable(),
})
export type TransactionRow = z.infer<typeof transactionRow>

export const depositRow = z.object({
  id: z.string().startsWith('dep_'),
  partner_id: z.uuid(),
  user_id: z.uuid(),
  card_id: z.string().startsWith('card_'),
  external_bank_account_id: z.string().startsWith('bank_'),
  amount_cents: z.number().int().positive(),
  status: depositStatus,
  failure_reason: z.string().nullable(),
  /** Decided at creation (scenario, magic amounts); applied when it settles. */
  decided_outcome: z.enum(['succeeded', 'failed']),
  decided_reason: z.string().nullable(),
  transaction_id: z.string().startsWith('txn_'),
  settles_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
})
export type DepositRow = z.infer<typeof depositRow>

export const disputeRow = z.object({
  id: z.string().startsWith('dsp_'),
  partner_id: z.uuid(),
  user_id: z.uuid(),
  card_id: z.string().startsWith('card_'),
  transaction_id: z.string().startsWith('txn_'),
  reason: z.string(),
  description: z.string().nullable(),
  amount_cents: z.number().int().positive(),
  status: disputeStatus,
  evidence: z.array(disputeEvidence),
  provisional_credit_transaction_id: z.string().nullable(),
  reversal_transaction_id: z.string().nullable(),
  decided_outcome: z.enum(['won', 'lost']),
  resolves_at: z.string(),
  resolved_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
})
export type DisputeRow = z.infer<typeof disputeRow>

export const bankAccountRow = z.object({
  id: z.string().startsWith('bank_'),
  partner_id: z.uuid(),
  user_id: z.uuid(),
  institution_id: z.string(),
  institution_name: z.string(),
  account_name: z.string(),
  account_type: bankAccountType,
  account_mask: z.string().regex(/^\d{4}$/),
  routing_number: z.string().regex(/^\d{9}$/),
  status: bankAccountStatus,
  created_at: z.string(),
  updated_at: z.string(),
})
export type BankAccountRow = z.infer<typeof bankAccountRow>

/** A bank-connect session: the token (HMAC only) the public page and enrollment use once. */
export const connectTokenRow = z.object({
  id: z.string().startsWith('bct_'),
  partner_id: z.uuid(),
  user_id: z.uuid(),
  token_hash: z.string(),
  expires_at: z.string(),
  used_at: z.string().nullable(),
  bank_account_id: z.string().nullable(),
  created_at: z.string(),
})
export type ConnectTokenRow = z.infer<typeof connectTokenRow>
