import { z } from 'zod'
import { ruleRow } from '../rules/rule-schema.js'
import {
  cardBrand,
  cardStatus,
  consumerKycStatus,
  currency,
  deliveryStatus,
  labCheck,
  labVerdict,
  onboardingStatus,
  partnerScope,
  partnerStatus,
  passOrFail,
  SLUG_PATTERN,
  userFields,
  webhookFields,
} from '../schemas/fields.js'
import { requestCaptureRow, requestJournalRow } from './records-journal.js'
import {
  bankAccountRow,
  connectTokenRow,
  depositRow,
  disputeRow,
  transactionRow,
} from './records-money.js'
import { sinkRequestRow, sinkRow } from './records-sinks.js'

/**
 * Stored rows. These are the persisted shapes (with hashes, never plaintext secrets);
 * the API's response schemas in `src/schemas/` decide what a client sees of them. A field both
 * describe the same way is defined once in src/schemas/fields.ts.
 */

export {
  type DeliveryStatus,
  deliveryStatus,
  type LabCheck,
  labCheck,
  type OnboardingStatus,
  onboardingStatus,
  type PartnerStatus,
  partnerScope,
  partnerStatus,
} from '../schemas/fields.js'

export const partnerRow = z.object({
  id: z.uuid(),
  name: z.string().min(1),
  display_name: z.string().min(1),
  slug: z.string().regex(SLUG_PATTERN),
  api_key: z.string().startsWith('pk_test_'),
  /** `scrypt$…` one-way hash of the API secret. */
  api_secret_hash: z.string().startsWith('scrypt$'),
  allowed_origins: z.array(z.string()),
  webhook_url: z.string().nullable(),
  scopes: z.array(partnerScope),
  rate_limit: z.number().int().positive(),
  status: partnerStatus,
  contact_email: z.string(),
  contact_name: z.string(),
  config: z.record(z.string(), z.unknown()),
  /** Name of the scenario this partner runs under; null means the sandbox default. */
  scenario: z.string().nullable(),
  /**
   * Sandbox setting: the sandbox completes an onboarding itself when its hosted flow ends, as
   * the partner's POST …/complete would. Absent or false: the partner completes (the spec's flow).
   */
  auto_complete: z.boolean().optional(),
  /**
   * The partner's own clock over the sandbox clock (see domain/partner-clocks.ts): its time is
   * the sandbox time plus `offset_ms`, or `frozen_at` (epoch ms) while frozen. Absent: none.
   */
  clock: z
    .object({ offset_ms: z.number().int(), frozen_at: z.number().int().nullable() })
    .optional(),
  created_at: z.string(),
  updated_at: z.string(),
  /**
   * Sandbox setting: the production names this partner's traffic carries in place of the
   * spec's placeholders (domain/production-names.ts). Absent: the sandbox's. Last, as the
   * column a later migration added (0003).
   */
  names: z
    .object({ signature_header: z.string().optional(), provider: z.string().optional() })
    .optional(),
})
export type PartnerRow = z.infer<typeof partnerRow>

// The secrets go before the last three fields: the order of a row's keys is the order a
// restored snapshot's rows are written back in.
const { profile_picture_url, created_at, updated_at, ...userHead } = userFields
export const userRow = z.object({
  ...userHead,
  /** `scrypt$…` one-way hash of the password. */
  password_hash: z.string().startsWith('scrypt$'),
  /** Only the last four digits are kept; the full SSN is never stored. */
  ssn_last4: z.string().regex(/^\d{4}$/),
  profile_picture_url,
  created_at,
  updated_at,
})
export type UserRow = z.infer<typeof userRow>

/** A stored login session; the JWT names it by `sid`, so logout and expiry take effect at once. */
export const sessionRow = z.object({
  id: z.string().startsWith('ses_'),
  partner_id: z.uuid(),
  user_id: z.uuid(),
  created_at: z.string(),
  expires_at: z.string(),
  revoked_at: z.string().nullable(),
  revoked_reason: z.string().nullable(),
})
export type SessionRow = z.infer<typeof sessionRow>

export const codePurpose = z.enum(['login', 'password_reset', 'reset_token'])
export type CodePurpose = z.infer<typeof codePurpose>

/** A one-time code or reset token, kept only as an HMAC of its value. */
export const verificationCodeRow = z.object({
  id: z.string().startsWith('otp_'),
  partner_id: z.uuid(),
  user_id: z.uuid(),
  purpose: codePurpose,
  code_hash: z.string(),
  expires_at: z.string(),
  attempts: z.number().int().nonnegative(),
  /** When it was used, burnt by too many wrong tries, or replaced by a newer code. */
  ended_at: z.string().nullable(),
  ended_reason: z.enum(['used', 'too_many_attempts', 'replaced']).nullable(),
  created_at: z.string(),
})
export type VerificationCodeRow = z.infer<typeof verificationCodeRow>

/** An event as emitted; the webhook dispatcher delivers these. */
export const eventRow = z.object({
  id: z.string().startsWith('evt_'),
  partner_id: z.uuid(),
  type: z.string(),
  created_at: z.string(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
  /** Its object was chosen by a trigger (overrides, or an explicit object), not the domain's. */
  chosen: z.literal(true).optional(),
})
export type EventRow = z.infer<typeof eventRow>

/** An uploaded file (profile pictures); its bytes are its `file_contents` row. */
export const fileRow = z.object({
  id: z.string().startsWith('file_'),
  partner_id: z.uuid(),
  user_id: z.uuid(),
  purpose: z.literal('profile_picture'),
  content_type: z.enum(['image/png', 'image/jpeg', 'image/webp']),
  size: z.number().int().positive(),
  created_at: z.string(),
})
export type FileRow = z.infer<typeof fileRow>

/**
 * The bytes of an uploaded file, keyed as its `files` row and written in the same
 * transaction: state like every other row, so whichever engine or replica answers serves them,
 * and a snapshot carries them. Base64, as a JSON row holds them; at most the API's picture
 * limit (`--picture-limit`) before encoding. Apart from the `files` row, so what reads a
 * file's type or owner never reads its bytes.
 */
export const fileContentRow = z.object({
  id: z.string().startsWith('file_'),
  partner_id: z.uuid(),
  /** The bytes, base64 in the row (a bytea column on PostgreSQL). */
  content: z.base64(),
})
export type FileContentRow = z.infer<typeof fileContentRow>

/**
 * A webhook endpoint. Its signing secret must stay usable for HMAC, so unlike API secrets it
 * is kept as is; the partner API shows it only at creation and rotation.
 */
export const webhookRow = z.object({
  id: z.string().startsWith('wh_'),
  partner_id: z.uuid(),
  ...webhookFields,
  secret: z.string().startsWith('whsec_'),
  created_at: z.string(),
  updated_at: z.string(),
})
export type WebhookRow = z.infer<typeof webhookRow>

export const attemptRow = z.object({
  number: z.number().int().positive(),
  /** Sandbox time the attempt was scheduled for. */
  at: z.string(),
  status_code: z.number().int().nullable(),
  duration_ms: z.number().int().nonnegative(),
  error: z.string().nullable(),
})
export type AttemptRow = z.infer<typeof attemptRow>

export const deliveryRow = z.object({
  id: z.string().startsWith('dlv_'),
  partner_id: z.uuid(),
  webhook_id: z.string().startsWith('wh_'),
  event_id: z.string().startsWith('evt_'),
  event_type: z.string(),
  url: z.string(),
  status: deliveryStatus,
  attempts: z.array(attemptRow),
  /**
   * Sandbox time of the next attempt; null once succeeded or permanently failed. While an
   * attempt is under way, when the row falls due again should that attempt never be recorded
   * (its replica died): the attempt's timeout and a margin after it was taken.
   */
  next_attempt_at: z.string().nullable(),
  /**
   * Set while an attempt is under way (taken by a dispatcher, not yet recorded): the sandbox
   * time that attempt was due, which its record keeps and its retry counts from.
   */
  attempt_due_at: z.string().nullable().optional(),
  redelivery_of: z.string().nullable(),
  /** Set on the webhook lab's deliveries: the check it is. */
  lab: labCheck.optional(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
})
export type DeliveryRow = z.infer<typeof deliveryRow>

/** One check of a webhook lab, from armed to the receiver's verdict. */
export const labCheckRow = z.object({
  check: labCheck,
  /** The event it applies to, once one came. */
  event_id: z.string().nullable(),
  /** The delivery whose first attempt lets this check's delivery go. */
  after_delivery_id: z.string().nullable(),
  /** The lab's delivery, once made. */
  delivery_id: z.string().nullable(),
  receiver_status: z.number().int().nullable(),
  verdict: labVerdict,
  why: z.string(),
})
export type LabCheckRow = z.infer<typeof labCheckRow>

/** The webhook lab of one endpoint (its id is the endpoint's): the checks armed and the report. */
export const webhookLabRow = z.object({
  id: z.string().startsWith('wh_'),
  partner_id: z.uuid(),
  armed_at: z.string(),
  checks: z.array(labCheckRow).max(4),
})
export type WebhookLabRow = z.infer<typeof webhookLabRow>

export const onboardingOutcome = z.enum([
  'pass',
  'kyc_fail',
  'underwriting_decline',
  'manual_review',
])
export type OnboardingOutcome = z.infer<typeof onboardingOutcome>

/** A card onboarding session. The SSN is used for the decision at start and never stored. */
export const onboardingRow = z.object({
  id: z.uuid(),
  partner_id: z.uuid(),
  user_id: z.uuid(),
  consumer_id: z.string().startsWith('cons_'),
  status: onboardingStatus,
  consumer_kyc_status: consumerKycStatus,
  /** HMAC of the embed access token (the token itself is shown once, at start). */
  access_token_hash: z.string(),
  access_token_expires_at: z.string(),
  /**
   * HMACs of the tokens a resumed start replaced, newest first, at most SUPERSEDED_TOKENS: the
   * page tells "a newer link was issued" from a token the sandbox never issued.
   */
  superseded_token_hashes: z.array(z.string()).optional(),
  /**
   * As StartOnboardingBody (src/schemas/onboarding.ts) checked and normalized it: the input rules
   * live there, and a stored applicant is kept as the plain strings it became.
   */
  applicant: z.object({
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    phone_number: z.string(),
    country_code: z.string(),
    date_of_birth: z.string(),
    address_line1: z.string(),
    address_line2: z.string(),
    address_city: z.string(),
    address_state: z.string(),
    address_zip: z.string(),
    ssn_last4: z.string(),
  }),
  /** HMAC of the normalized applicant data with the SSN: tells a resumed start from new data. */
  applicant_fingerprint: z.string(),
  /** What the sandbox decided at start (scenario rules and magic values). */
  decision: z.object({
    outcome: onboardingOutcome,
    reason: z.string().nullable(),
    /** For manual review: how long until the review resolves, and to what. */
    review_ms: z.number().int().nonnegative().nullable(),
    review_outcome: z.enum(['pass', 'kyc_fail']).nullable(),
  }),
  steps: z.object({
    identity_verification: z.string().nullable(),
    underwriting: z.string().nullable(),
    agreement: z.string().nullable(),
  }),
  underwriting_answers: z.record(z.string(), z.string()).nullable(),
  redirect_uri: z.string().nullable(),
  /** The hosted flow's result, once its last step ran. */
  flow_result: passOrFail.nullable(),
  completion: z
    .object({
      result: passOrFail,
      data: z.string(),
      agreement_accepted: z.boolean(),
      inquiry_id: z.string().nullable(),
      product_id: z.string().nullable(),
      product_configuration: z.record(z.string(), z.unknown()).nullable(),
      completed_at: z.string(),
    })
    .nullable(),
  failure_reason: z.string().nullable(),
  review_resolves_at: z.string().nullable(),
  card_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
})
export type OnboardingRow = z.infer<typeof onboardingRow>

export const cardRow = z.object({
  id: z.string().startsWith('card_'),
  partner_id: z.uuid(),
  user_id: z.uuid(),
  onboarding_id: z.uuid(),
  brand: cardBrand,
  last4: z.string().regex(/^\d{4}$/),
  exp_month: z.number().int().min(1).max(12),
  exp_year: z.number().int(),
  cardholder_name: z.string(),
  status: cardStatus,
  currency,
  /** Integer cents; every change goes through the ledger. */
  available_balance_cents: z.number().int(),
  ledger_balance_cents: z.number().int(),
  product_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
})
export type CardRow = z.infer<typeof cardRow>

/** Sandbox-wide values (the session signing key), one row with id `sandbox`. */
export const metaRow = z.object({
  id: z.literal('sandbox'),
  session_signing_key: z.string().min(32),
})
export type MetaRow = z.infer<typeof metaRow>

/**
 * A scenario loaded through the control plane (POST /_sandbox/scenarios), kept with the data
 * so a partner that names it still finds it after a restart. Checked by the scenario schema
 * when it is loaded back.
 */
export const scenarioRow = z.object({
  id: z.string().min(1),
  document: z.record(z.string(), z.unknown()),
  loaded_at: z.string(),
})
export type ScenarioRow = z.infer<typeof scenarioRow>

/**
 * A message the sandbox "sent" (a login or password-reset code), for `GET /_sandbox/inbox`.
 * Ephemeral: the code is a secret, so only its HMAC (verification_codes) reaches the data file.
 * The code is kept only while it can be used: once used or expired it is taken out of the row
 * (`code` null, and out of `body`), which keeps the message (domain/inbox.ts).
 */
export const inboxMessageRow = z.object({
  id: z.string().startsWith('msg_'),
  partner_id: z.string(),
  user_id: z.string(),
  to: z.string(),
  channel: z.literal('email'),
  kind: z.enum(['login_code', 'password_reset_code']),
  subject: z.string(),
  body: z.string(),
  /** Null once the code was used or expired (`code_ended` says which). */
  code: z.string().nullable(),
  /** The verification code row it carries (absent from messages of earlier versions). */
  code_id: z.string().optional(),
  code_ended: z.enum(['used', 'expired']).optional(),
  created_at: z.string(),
  expires_at: z.string(),
})
export type InboxMessageRow = z.infer<typeof inboxMessageRow>

/**
 * The sandbox clock's setting (clock.ts ClockSetting), one row with id `sandbox`: ephemeral,
 * as the clock has always been (a restart starts it from the scenario or the machine's time).
 */
export const clockRow = z.object({
  id: z.literal('sandbox'),
  offset_ms: z.number().int(),
  frozen_at: z.number().int().nullable(),
})
export type ClockRow = z.infer<typeof clockRow>

/**
 * The sandbox-wide scenario (`--scenario`, PUT /_sandbox/scenario), one row with id `sandbox`
 * holding the chosen scenario's document: every process sharing the state decides by it.
 * Ephemeral and kept by a reset or restore, as the choice always was: tooling, not data.
 */
export const sandboxScenarioRow = z.object({
  id: z.literal('sandbox'),
  name: z.string().min(1),
  document: z.record(z.string(), z.unknown()),
})
export type SandboxScenarioRow = z.infer<typeof sandboxScenarioRow>

/** Every collection the store holds, by name. Later capabilities add theirs here. */
export const collectionSchemas = {
  meta: metaRow,
  partners: partnerRow,
  users: userRow,
  sessions: sessionRow,
  verification_codes: verificationCodeRow,
  events: eventRow,
  files: fileRow,
  file_contents: fileContentRow,
  webhooks: webhookRow,
  webhook_deliveries: deliveryRow,
  webhook_labs: webhookLabRow,
  onboardings: onboardingRow,
  cards: cardRow,
  transactions: transactionRow,
  deposits: depositRow,
  disputes: disputeRow,
  bank_accounts: bankAccountRow,
  connect_tokens: connectTokenRow,
  scenarios: scenarioRow,
  rules: ruleRow,
  inbox_messages: inboxMessageRow,
  // platform: the sandbox clock's setting and the sandbox-wide scenario (ephemeral).
  clocks: clockRow,
  sandbox_scenario: sandboxScenarioRow,
  sinks: sinkRow,
  sink_requests: sinkRequestRow,
  // The sandbox's traffic (journal area): ephemeral, and kept by a reset or restore.
  request_journal: requestJournalRow,
  request_captures: requestCaptureRow,
} as const

export type Collections = {
  [K in keyof typeof collectionSchemas]: z.infer<(typeof collectionSchemas)[K]>
}
export type CollectionName = keyof Collections
export const collectionNames = Object.keys(collectionSchemas) as CollectionName[]

/**
 * Collections that are state but not durable: held by the seam like every other (a second
 * engine shares them) but never journaled or snapshotted; a reset or restore empties them
 * (but those in keptOnReplace).
 */
export const ephemeralCollections: readonly CollectionName[] = [
  'inbox_messages',
  'clocks',
  'sandbox_scenario',
  'sinks',
  'sink_requests',
  'request_journal',
  'request_captures',
]

/**
 * Durable collections a reset or restore adds to rather than empties: the scenarios loaded at
 * run time are the sandbox's configuration, so the new rows (a restored snapshot's scenarios)
 * join those loaded, each taking the place of one of its name. One transaction does both.
 */
export const mergedOnReplace: readonly CollectionName[] = ['scenarios']

/**
 * Ephemeral collections a reset or restore leaves as they are: the requests the sandbox
 * answered and what its sinks received are its traffic, not its
 * data (as when they lived in process beside the state); the sandbox-wide scenario is its
 * tooling.
 */
export const keptOnReplace: readonly CollectionName[] = [
  'sandbox_scenario',
  'request_journal',
  'request_captures',
  'sinks',
  'sink_requests',
]

export type CollectionsData = { [K in CollectionName]: Record<string, Collections[K]> }

export const emptyCollections = (): CollectionsData =>
  Object.fromEntries(collectionNames.map((name) => [name, {}])) as CollectionsData
