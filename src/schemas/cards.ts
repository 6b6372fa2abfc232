import { z } from '@hono/zod-openapi'
import * as ex from './examples.js'
import { cardBrand, cardStatus, currency, onboardingStatus, passOrFail } from './fields.js'

/**
 * A card row as shown: balances in dollars where the row keeps cents, no owner ids (the caller's
 * own card), and the row's id and last4 patterns left out of the document.
 */
export const Card = z
  .object({
    id: z.string().openapi({ example: 'card_9dKq2mZx…' }),
    brand: cardBrand,
    last4: z.string().openapi({ example: '4242' }),
    exp_month: z.number().int(),
    exp_year: z.number().int(),
    cardholder_name: z.string(),
    status: cardStatus,
    currency,
    available_balance: z.number().openapi({ description: 'USD, at most 2 decimals.' }),
    ledger_balance: z.number(),
    product_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Card', { example: ex.card })

export const Completion = z
  .object({
    onboardingId: z.uuid(),
    status: onboardingStatus,
    result: passOrFail.nullable(),
    consumer: z.object({
      id: z.string(),
      user_id: z.uuid(),
      kyc_status: z.string(),
      provider_consumer_id: z.string().nullable(),
    }),
    card: Card.nullable(),
    failure_reason: z.string().nullable(),
    review_resolves_at: z.string().nullable(),
    inquiry_id: z.string().nullable(),
    product_id: z.string().nullable(),
  })
  .openapi('OnboardingCompletion', { example: ex.completion })

export const CardStatus = z
  .object({
    user_id: z.uuid(),
    kyc_status: z.string(),
    provider_consumer_id: z.string().nullable(),
    onboarding: z
      .object({
        onboardingId: z.uuid(),
        status: z.string(),
        consumerKycStatus: z.string(),
        failure_reason: z.string().nullable(),
        review_resolves_at: z.string().nullable(),
      })
      .nullable(),
    card: Card.nullable(),
    balances: z.object({
      available: z.number(),
      ledger: z.number(),
      currency,
    }),
  })
  .openapi('CardStatus', { example: ex.cardStatus })

export const envelope = <T extends z.ZodType>(data: T, name: string) =>
  z.object({ success: z.literal(true), data }).openapi(name)
