import type { SandboxConfig } from '../config.js'
import { ApiError, validationError } from '../errors.js'
import type { Logger } from '../logger.js'
import type { Random } from '../random.js'
import { decideOnboarding } from '../scenarios/onboarding.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { OnboardingRow, PartnerRow, UserRow } from '../store/records.js'
import { assertAdult } from './age.js'
import { currentCard } from './cards.js'
import type { EventBus } from './events.js'
import { newestFirst } from './pagination.js'
import type { PartnerClocks } from './partner-clocks.js'
import { redirectUriProblem } from './redirect-uri.js'
import { hashWithKey, signingKey } from './signing-key.js'
import { publicUser } from './users.js'

/** Lifetime of the embed access token, in seconds (the spec's sample `expiresIn`). */
export const EMBED_TOKEN_TTL_S = 3600
/** How many replaced access tokens an onboarding remembers (as hashes), to name them. */
export const SUPERSEDED_TOKENS = 5

/** What the onboarding rules are computed from, besides the state they read and write. */
export interface OnboardingCtx {
  clocks: PartnerClocks
  random: Random
  scenarios: ScenarioRegistry
  events: EventBus
  /** The sandbox-wide completion defaults. */
  config: Pick<SandboxConfig, 'defaultInquiryId' | 'defaultProductId'>
  logger: Logger
  /** Where links (a user's picture URL in its events) point. */
  baseUrl(): string
}

export interface OnboardingInput {
  first_name: string
  last_name: string
  email: string
  phone_number: string
  country_code: string
  date_of_birth: string
  address_line1: string
  address_line2?: string
  address_city: string
  address_state: string
  address_zip: string
  ssn: string
  redirect_uri?: string
}

/** A started (or resumed) onboarding and its new access token, shown this once. */
export interface StartedOnboarding {
  onboarding: OnboardingRow
  accessToken: string
  resumed: boolean
}

const LIVE = new Set(['pending', 'in_progress'])

/** The user's onboardings, newest first. */
export async function onboardingHistory(
  reader: StateReader,
  userId: string,
): Promise<OnboardingRow[]> {
  return newestFirst(await reader.lookup('onboardings_by_user', userId))
}

/**
 * Starts an onboarding, or resumes the user's pending/in-progress one: same onboardingId, a
 * fresh access token (the previous one stops working), and its progress kept unless the
 * applicant details changed, in which case the steps start over with a new decision.
 */
export async function startOnboarding(
  ctx: OnboardingCtx,
  tx: StateTx,
  partner: PartnerRow,
  user: UserRow,
  input: OnboardingInput,
): Promise<StartedOnboarding> {
  // The age first, then the redirect: the order these 400s have always come in.
  assertAdult(ctx, partner.id, input.date_of_birth)
  const redirectProblem = input.redirect_uri
    ? redirectUriProblem(input.redirect_uri, partner.allowed_origins)
    : null
  if (redirectProblem) throw validationError('redirect_uri', redirectProblem)
  // Everything it reads, together (one round trip on a database).
  const [card, history, key, stored] = await Promise.all([
    currentCard(tx, user.id),
    onboardingHistory(tx, user.id),
    signingKey(ctx, tx),
    tx.get('users', user.id),
  ])
  if (card)
    throw new ApiError('conflict', `This user is already onboarded and holds card ${card.id}.`)
  if (history.some((o) => o.status === 'manual_review')) {
    throw new ApiError(
      'conflict',
      'This user has an onboarding in manual review; wait for its outcome.',
    )
  }
  const existing = history.find((o) => LIVE.has(o.status))
  const nowMs = ctx.clocks.forPartner(partner.id).now()
  const now = new Date(nowMs).toISOString()
  const applicant = {
    first_name: input.first_name,
    last_name: input.last_name,
    email: input.email,
    phone_number: input.phone_number,
    country_code: input.country_code,
    date_of_birth: input.date_of_birth,
    address_line1: input.address_line1,
    address_line2: input.address_line2 ?? '',
    address_city: input.address_city,
    address_state: input.address_state,
    address_zip: input.address_zip,
    ssn_last4: input.ssn.slice(-4),
  }
  const decision = decideOnboarding(ctx.scenarios.forPartner(partner), input)
  // Tells a resume with the same details from changed ones. It covers what the SSN decides
  // (the outcome) and its last four digits, never the full SSN: the key is in the data file,
  // so an HMAC of the full SSN could be brute-forced from it.
  const fingerprint = hashWithKey(
    key,
    `applicant:${user.id}`,
    JSON.stringify({ ...applicant, outcome: decision.outcome }),
  )
  const id = existing?.id ?? ctx.random.uuid()
  const token = ctx.random.token(40, 'obt_')
  const sameApplicant = existing?.applicant_fingerprint === fingerprint
  const row: OnboardingRow = {
    id,
    partner_id: partner.id,
    user_id: user.id,
    consumer_id: existing?.consumer_id ?? ctx.random.id('cons'),
    status: existing && sameApplicant ? existing.status : 'pending',
    consumer_kyc_status: 'pending',
    access_token_hash: hashWithKey(key, `embed:${id}`, token),
    access_token_expires_at: new Date(nowMs + EMBED_TOKEN_TTL_S * 1000).toISOString(),
    ...(existing
      ? {
          superseded_token_hashes: [
            existing.access_token_hash,
            ...(existing.superseded_token_hashes ?? []),
          ].slice(0, SUPERSEDED_TOKENS),
        }
      : {}),
    applicant,
    applicant_fingerprint: fingerprint,
    decision: existing && sameApplicant ? existing.decision : decision,
    steps:
      existing && sameApplicant
        ? existing.steps
        : { identity_verification: null, underwriting: null, agreement: null },
    underwriting_answers: existing && sameApplicant ? existing.underwriting_answers : null,
    redirect_uri: input.redirect_uri ?? existing?.redirect_uri ?? null,
    flow_result: existing && sameApplicant ? existing.flow_result : null,
    completion: null,
    failure_reason: null,
    review_resolves_at: null,
    card_id: null,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  }
  tx.put('onboardings', row)
  const fresh = stored ?? user
  if (fresh.kyc_status !== 'pending') {
    const next = { ...fresh, kyc_status: 'pending', updated_at: now }
    tx.put('users', next)
    await ctx.events.record(tx, partner.id, 'user.updated', publicUser(ctx, next))
  }
  if (!existing)
    await ctx.events.record(tx, partner.id, 'onboarding.started', onboardingEventObject(row))
  return { onboarding: row, accessToken: token, resumed: Boolean(existing) }
}

/** The onboarding as GET /partner/cards/onboarding/latest shows it, with step-progress flags. */
export function onboardingView(row: OnboardingRow) {
  return {
    onboardingId: row.id,
    consumerId: row.consumer_id,
    status: row.status,
    consumerKycStatus: row.consumer_kyc_status,
    steps: {
      identity_verification: row.steps.identity_verification !== null,
      underwriting: row.steps.underwriting !== null,
      agreement: row.steps.agreement !== null,
    },
    current_step: currentStep(row),
    flow_result: row.flow_result,
    failure_reason: row.failure_reason,
    review_resolves_at: row.review_resolves_at,
    card_id: row.card_id,
    accessTokenExpiresAt: row.access_token_expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

export function currentStep(
  row: OnboardingRow,
): 'identity_verification' | 'underwriting' | 'agreement' | 'result' | null {
  if (!LIVE.has(row.status)) return null
  if (row.flow_result) return 'result'
  if (!row.steps.identity_verification) return 'identity_verification'
  if (!row.steps.underwriting) return 'underwriting'
  if (!row.steps.agreement) return 'agreement'
  return 'result'
}

/** The onboarding as its events carry it. */
export function onboardingEventObject(row: OnboardingRow) {
  return {
    object: 'onboarding',
    id: row.id,
    user_id: row.user_id,
    consumer_id: row.consumer_id,
    status: row.status,
    consumer_kyc_status: row.consumer_kyc_status,
    failure_reason: row.failure_reason,
    card_id: row.card_id,
  }
}
