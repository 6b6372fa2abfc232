import { z } from 'zod'

/**
 * Money rows. Amounts are integer cents; the API shows decimal dollars. Every balance
 * change is a transaction row, so a card's balances are the sums of its transactions.
 */

export const transactionType = z.enum([
  'funding',
  'deposit',
  'purchase',
  'refund',
  'dispute_credit',
  'dispute_reversal',
])
export type TransactionType = z.infer<typeof transactionType>

export const transactionStatus = z.enum(['pending', 'posted', 'declined', 'reversed', 'failed'])
export type TransactionStatus = z.infer<typeof transactionStatus>

export const merchant = z.object({
  name: z.string(),
  category: z.string(),
  city: z.string().nullable(),
  country: z.string(),
})
export type Merchant = z.infer<typeof merchant>

export const transactionRow = z.object({
  id: z.string().startsWith('txn_'),
  partner_id: z.uuid(),
  user_id: z.uuid(),
  card_id: z.string().startsWith('card_'),
  type: transactionType,
  status: transactionStatus,
  direction: z.enum(['credit', 'debit']),
  amount_cents: z.number().int().positive(),
  currency: z.literal('USD'),
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
  status: z.enum(['pending', 'succeeded', 'failed']),
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
  status: z.enum(['under_review', 'won', 'lost']),
  evidence: z.array(z.object({ id: z.string(), text: z.string(), added_at: z.string() })),
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
  account_type: z.enum(['checking', 'savings']),
  account_mask: z.string().regex(/^\d{4}$/),
  routing_number: z.string().regex(/^\d{9}$/),
  status: z.enum(['active', 'removed']),
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
