import { z } from '@hono/zod-openapi'
import type { EventType } from '../domain/events.js'
import { Card } from '../schemas/cards.js'
import { consumerKycStatus, onboardingStatus } from '../schemas/fields.js'
import { BankAccount, Deposit, Dispute, Transaction } from '../schemas/money.js'
import { User } from '../schemas/users.js'

/**
 * The `data.object` of every event type, as the domain records it. Trigger overrides are
 * checked against these (strict: a field the object does not have is refused), and a test
 * checks that every real event of a flow parses with its type's schema, so they cannot drift
 * from what partners receive.
 */

const userId = { user_id: z.uuid() }

const onboarding = z
  .object({
    object: z.literal('onboarding'),
    id: z.uuid(),
    user_id: z.uuid(),
    consumer_id: z.string(),
    status: onboardingStatus,
    consumer_kyc_status: consumerKycStatus,
    failure_reason: z.string().nullable(),
    card_id: z.string().nullable(),
  })
  .strict()

const transaction = Transaction.extend({
  object: z.literal('card_transaction'),
  ...userId,
}).strict()
const deposit = Deposit.extend({ object: z.literal('deposit'), ...userId }).strict()
const settledDeposit = Deposit.extend({
  object: z.literal('deposit'),
  ...userId,
  available_balance: z.number(),
}).strict()
const dispute = Dispute.extend({ object: z.literal('dispute'), ...userId }).strict()

export const eventObjectSchemas: Record<EventType, z.ZodType> = {
  'user.created': User.strict(),
  'user.updated': User.strict(),
  'onboarding.started': onboarding,
  'onboarding.completed': onboarding,
  'onboarding.failed': onboarding,
  'card.created': Card.extend({ object: z.literal('card'), ...userId }).strict(),
  'card.funded': z
    .object({
      object: z.literal('card_funding'),
      card_id: z.string(),
      user_id: z.uuid(),
      amount: z.number(),
      transaction_id: z.string(),
      available_balance: z.number(),
    })
    .strict(),
  'deposit.created': deposit,
  'deposit.succeeded': settledDeposit,
  'deposit.failed': settledDeposit,
  'card_transaction.created': transaction,
  'card_transaction.updated': transaction,
  'dispute.created': dispute,
  'dispute.updated': dispute,
  'external_bank_account.created': BankAccount.extend({
    object: z.literal('external_bank_account'),
    ...userId,
  }).strict(),
  'api_key.rotated': z
    .object({
      object: z.literal('api_key'),
      partner_id: z.uuid(),
      api_key: z.string(),
      previous_api_key: z.string(),
      rotated_at: z.string(),
    })
    .strict(),
  'webhook.test': z
    .object({
      object: z.literal('webhook_test'),
      webhook_id: z.string(),
      message: z.string(),
    })
    .strict(),
}
