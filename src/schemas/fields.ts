import { z } from 'zod'

/**
 * Field shapes that a stored row (src/store/records*.ts) and an API schema (src/schemas/*.ts)
 * both describe: written once, so a new status or transaction type reaches the data-file check
 * and the OpenAPI document together. Plain zod, because the store loads without the OpenAPI
 * extension. So an API schema documents a field here on a `.clone()`, never on the field itself:
 * zod gives a schema the prototype's methods when it is made, and which loads first decides
 * whether a field made here has `.openapi()`.
 *
 * Only what is the same on both sides lives here. Where a row and the API differ (cents against
 * dollars, a hash the API never shows, an id prefix the document does not state) each side keeps
 * its own and says why.
 */

export const partnerStatus = z.enum(['active', 'suspended', 'revoked'])
export type PartnerStatus = z.infer<typeof partnerStatus>

export const partnerScope = z.enum(['users', 'cards', 'transactions'])

/** A partner slug: lower-case words joined by single dashes. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

export const onboardingStatus = z.enum([
  'pending',
  'in_progress',
  'manual_review',
  'completed',
  'failed',
  'canceled',
])
export type OnboardingStatus = z.infer<typeof onboardingStatus>

export const consumerKycStatus = z.enum(['pending', 'approved', 'rejected'])

/** How a hosted flow or an onboarding completion ended. */
export const passOrFail = z.enum(['pass', 'fail'])

export const cardBrand = z.literal('visa')
export const cardStatus = z.enum(['active', 'frozen', 'closed'])
export const currency = z.literal('USD')

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

export const transactionDirection = z.enum(['credit', 'debit'])

export const merchant = z.object({
  name: z.string(),
  category: z.string(),
  city: z.string().nullable(),
  country: z.string(),
})
export type Merchant = z.infer<typeof merchant>

export const depositStatus = z.enum(['pending', 'succeeded', 'failed'])

export const disputeStatus = z.enum(['under_review', 'won', 'lost'])
export const disputeEvidence = z.object({ id: z.string(), text: z.string(), added_at: z.string() })

export const bankAccountType = z.enum(['checking', 'savings'])
export const bankAccountStatus = z.enum(['active', 'removed'])

export const deliveryStatus = z.enum(['pending', 'succeeded', 'failed', 'permanently_failed'])
export type DeliveryStatus = z.infer<typeof deliveryStatus>

/** What the webhook lab (webhooks/lab.ts) can do to an endpoint's next events. */
export const labCheck = z.enum(['duplicate', 'out_of_order', 'forged_signature', 'replay'])
export type LabCheck = z.infer<typeof labCheck>

/** A lab check's result: the receiver did the right thing, or not, or has not answered yet. */
export const labVerdict = z.enum(['pass', 'fail', 'pending'])

/** A webhook endpoint's settings, as stored and as shown. */
export const webhookFields = {
  url: z.string(),
  /** Event types wanted; empty means every event. */
  events: z.array(z.string()),
  enabled: z.boolean(),
  description: z.string().nullable(),
  /** The endpoint that mirrors the partner record's `webhook_url`. */
  primary: z.boolean(),
}

/**
 * A user as stored and as shown, but for the row's secrets (password hash, SSN digits), which
 * the row adds and the API never shows. Values are kept as they were normalized at input
 * (users.ts checks them there), so the stored form is a plain string.
 */
/**
 * A postal address, with the keys PATCH /partner/users/me takes (users.ts `Address` checks
 * each value's form). Strict, so a data file cannot hold an address the API would not show.
 */
const address = z.strictObject({
  line1: z.string().optional(),
  line2: z.string().optional(),
  city: z.string().optional(),
  state: z.string().optional(),
  zip: z.string().optional(),
  country_code: z.string().optional(),
})
export const userFields = {
  id: z.uuid(),
  partner_id: z.uuid(),
  email: z.string(),
  phone_number: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  date_of_birth: z.string(),
  address,
  secondary_address: address,
  provider_consumer_id: z.string().nullable(),
  kyc_status: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  is_active: z.boolean(),
  profile_picture_url: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
}
