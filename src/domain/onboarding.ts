import type { Deps } from '../deps.js'
import { ApiError, validationError } from '../errors.js'
import { fundingLimits } from '../scenarios/money.js'
import { completionDefaults, decideOnboarding } from '../scenarios/onboarding.js'
import type { OnboardingRow, PartnerRow, UserRow } from '../store/records.js'
import type { Writer } from '../store/store.js'
import { assertAdult } from './age.js'
import { cardOf, issueCard, publicCard } from './cards.js'
import { recordTransaction } from './ledger.js'
import { newestFirst } from './pagination.js'
import { redirectUriProblem } from './redirect-uri.js'
import { codeHash } from './signing-key.js'
import { isDue, type SweepScope, waitingRows } from './sweeper.js'
import { publicUser } from './users.js'

/** Lifetime of the embed access token, in seconds (the spec's sample `expiresIn`). */
export const EMBED_TOKEN_TTL_S = 3600
/** How many replaced access tokens an onboarding remembers (as hashes), to name them. */
export const SUPERSEDED_TOKENS = 5

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

const LIVE = new Set(['pending', 'in_progress'])

export function onboardingsOf(deps: Deps, userId: string): OnboardingRow[] {
  return newestFirst(deps.store.lookup('onboardings', 'onboardings_by_user', userId))
}

export function embedUrl(deps: Deps, row: OnboardingRow, token: string): string {
  const url = new URL('/embed/onboarding', deps.baseUrl())
  url.searchParams.set('onboarding_id', row.id)
  url.searchParams.set('access_token', token)
  if (row.redirect_uri) url.searchParams.set('redirect_uri', row.redirect_uri)
  return url.toString()
}

/**
 * Starts an onboarding, or resumes the user's pending/in-progress one: same onboardingId, a
 * fresh access token (the previous one stops working), and its progress kept unless the
 * applicant details changed, in which case the steps start over with a new decision.
 */
export function startOnboarding(
  deps: Deps,
  partner: PartnerRow,
  user: UserRow,
  input: OnboardingInput,
) {
  // The age first, then the redirect: the order these 400s have always come in.
  assertAdult(deps, partner.id, input.date_of_birth)
  const redirectProblem = input.redirect_uri
    ? redirectUriProblem(input.redirect_uri, partner.allowed_origins)
    : null
  if (redirectProblem) throw validationError('redirect_uri', redirectProblem)
  const card = cardOf(deps, user.id)
  if (card)
    throw new ApiError('conflict', `This user is already onboarded and holds card ${card.id}.`)
  const history = onboardingsOf(deps, user.id)
  if (history.some((o) => o.status === 'manual_review')) {
    throw new ApiError(
      'conflict',
      'This user has an onboarding in manual review; wait for its outcome.',
    )
  }
  const existing = history.find((o) => LIVE.has(o.status))
  const nowMs = deps.clocks.forPartner(partner.id).now()
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
  const decision = decideOnboarding(deps.scenarios.forPartner(partner), input)
  // Tells a resume with the same details from changed ones. It covers what the SSN decides
  // (the outcome) and its last four digits, never the full SSN: the key is in the data file,
  // so an HMAC of the full SSN could be brute-forced from it.
  const fingerprint = codeHash(
    deps,
    `applicant:${user.id}`,
    JSON.stringify({ ...applicant, outcome: decision.outcome }),
  )
  const id = existing?.id ?? deps.random.uuid()
  const token = deps.random.token(40, 'obt_')
  const sameApplicant = existing?.applicant_fingerprint === fingerprint
  const row: OnboardingRow = {
    id,
    partner_id: partner.id,
    user_id: user.id,
    consumer_id: existing?.consumer_id ?? deps.random.id('cons'),
    status: existing && sameApplicant ? existing.status : 'pending',
    consumer_kyc_status: 'pending',
    access_token_hash: codeHash(deps, `embed:${id}`, token),
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
  deps.store.batch((w) => {
    w.put('onboardings', row)
    if (user.kyc_status !== 'pending') {
      const next = { ...user, kyc_status: 'pending', updated_at: now }
      w.put('users', next)
      deps.events.record(w, partner.id, 'user.updated', publicUser(deps, next))
    }
    if (!existing)
      deps.events.record(w, partner.id, 'onboarding.started', onboardingEventObject(row))
  })
  return {
    message: existing
      ? 'Onboarding resumed: open the new onboardingEmbedUrl (the previous access token no longer works).'
      : 'Onboarding started: render onboardingEmbedUrl in a WebView or iframe.',
    onboardingEmbedUrl: embedUrl(deps, row, token),
    accessToken: token,
    expiresIn: EMBED_TOKEN_TTL_S,
    onboardingId: row.id,
    consumerId: row.consumer_id,
    status: row.status,
    consumerKycStatus: row.consumer_kyc_status,
  }
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

function onboardingEventObject(row: OnboardingRow) {
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

export interface CompletionInput {
  result: 'pass' | 'fail'
  data: string | Record<string, unknown>
  agreement_accepted: boolean
  inquiry_id?: string
  product_id?: string
  product_configuration?: Record<string, unknown> | null
}

/**
 * POST /partner/cards/onboarding/:id/complete, to the letter of the spec. Completing twice
 * with the same `result` answers the first completion again (no second card, no second
 * events); a different `result` is a 409.
 */
export function completeOnboarding(
  deps: Deps,
  partner: PartnerRow,
  user: UserRow,
  id: string,
  input: CompletionInput,
) {
  const defaults = completionDefaults(
    deps.scenarios.forPartner(partner),
    partner.config,
    deps.config,
  )
  const inquiryId = input.inquiry_id ?? defaults.inquiry_id
  const productId = input.product_id ?? defaults.product_id
  if (!inquiryId && !productId)
    throw new ApiError('validation_error', 'Missing inquiry_id or product_id')
  const row = deps.store.get('onboardings', id)
  if (!row || row.user_id !== user.id || row.partner_id !== partner.id) {
    throw new ApiError('not_found', `No onboarding ${id} for this user.`)
  }
  if (row.completion) {
    if (row.completion.result !== input.result) {
      throw new ApiError(
        'conflict',
        `This onboarding was already completed with result "${row.completion.result}".`,
      )
    }
    return completionView(deps, row)
  }
  if (row.status === 'canceled')
    throw new ApiError('conflict', 'This onboarding was replaced by a newer one.')
  if (input.result === 'pass' && !input.agreement_accepted) {
    throw validationError(
      'agreement_accepted',
      'must be true for a pass: the user has to accept the card agreement',
    )
  }
  const now = deps.clocks.forPartner(partner.id).iso()
  const completion = {
    result: input.result,
    data: typeof input.data === 'string' ? input.data : JSON.stringify(input.data),
    agreement_accepted: input.agreement_accepted,
    inquiry_id: inquiryId ?? null,
    product_id: productId ?? null,
    product_configuration: input.product_configuration ?? null,
    completed_at: now,
  }
  // The hosted flow's own end wins over what the partner reports: a flow that ended in a
  // decline (KYC, underwriting, declined agreement) cannot be completed as a pass.
  const outcome =
    input.result === 'fail' || row.flow_result === 'fail' ? 'flow_fail' : row.decision.outcome
  let next: OnboardingRow = { ...row, completion, updated_at: now }
  deps.store.batch((w) => {
    if (outcome === 'pass') {
      next = approve(deps, w, next, user, productId ?? null)
    } else if (outcome === 'manual_review') {
      const resolves = new Date(
        deps.clocks.nowOf(row.partner_id) + (row.decision.review_ms ?? 0),
      ).toISOString()
      next = {
        ...next,
        status: 'manual_review',
        consumer_kyc_status: 'pending',
        review_resolves_at: resolves,
      }
      w.put('onboardings', next)
    } else {
      // A fail after the hosted flow itself failed keeps the flow's reason (KYC failure,
      // underwriting decline, or agreement_declined, which submitStep recorded there).
      const reason =
        outcome === 'flow_fail'
          ? input.agreement_accepted || row.flow_result === 'fail'
            ? (row.decision.reason ?? 'onboarding_flow_failed')
            : 'agreement_declined'
          : (row.decision.reason as string)
      // An underwriting decline comes after identity verification passed, whichever way the
      // partner reports it (result pass, or fail after the hosted flow declined).
      next = decline(deps, w, next, user, reason, kycPassedFor(reason))
    }
  })
  return completionView(deps, next)
}

function approve(
  deps: Deps,
  w: Writer,
  row: OnboardingRow,
  user: UserRow,
  productId: string | null,
): OnboardingRow {
  const now = deps.clocks.forPartner(row.partner_id).iso()
  const card = issueCard(deps, w, user, row, productId)
  const partner = deps.store.get('partners', row.partner_id)
  const { initialCents } = fundingLimits(
    partner ? deps.scenarios.forPartner(partner) : deps.scenarios.default,
  )
  if (initialCents > 0) {
    // The scenario's starting balance is a posted credit like any other, so the ledger adds up.
    recordTransaction(deps, w, card, {
      type: 'funding',
      direction: 'credit',
      amountCents: initialCents,
      status: 'posted',
      description: 'Initial balance (scenario)',
    })
  }
  const next: OnboardingRow = {
    ...row,
    status: 'completed',
    consumer_kyc_status: 'approved',
    card_id: card.id,
    review_resolves_at: null,
    updated_at: now,
  }
  const fresh = deps.store.get('users', user.id) ?? user
  const approvedUser = {
    ...fresh,
    kyc_status: 'approved',
    provider_consumer_id: row.consumer_id,
    updated_at: now,
  }
  w.put('onboardings', next)
  w.put('users', approvedUser)
  deps.events.record(w, row.partner_id, 'onboarding.completed', onboardingEventObject(next))
  deps.events.record(w, row.partner_id, 'card.created', {
    object: 'card',
    user_id: user.id,
    ...publicCard(card),
  })
  deps.events.record(w, row.partner_id, 'user.updated', publicUser(deps, approvedUser))
  return next
}

function decline(
  deps: Deps,
  w: Writer,
  row: OnboardingRow,
  user: UserRow,
  reason: string,
  kycPassed: boolean,
) {
  const now = deps.clocks.forPartner(row.partner_id).iso()
  const next: OnboardingRow = {
    ...row,
    status: 'failed',
    consumer_kyc_status: kycPassed ? 'approved' : 'rejected',
    failure_reason: reason,
    review_resolves_at: null,
    updated_at: now,
  }
  const fresh = deps.store.get('users', user.id) ?? user
  w.put('onboardings', next)
  w.put('users', { ...fresh, kyc_status: kycPassed ? 'approved' : 'rejected', updated_at: now })
  deps.events.record(w, row.partner_id, 'onboarding.failed', onboardingEventObject(next))
  return next
}

/** Identity verification passed for these failures (they come after it in the flow). */
const kycPassedFor = (reason: string) =>
  reason === 'underwriting_declined' || reason === 'agreement_declined'

export function completionView(deps: Deps, row: OnboardingRow) {
  const user = deps.store.get('users', row.user_id)
  const card = row.card_id ? deps.store.get('cards', row.card_id) : undefined
  return {
    onboardingId: row.id,
    status: row.status,
    result: row.completion?.result ?? null,
    consumer: {
      id: row.consumer_id,
      user_id: row.user_id,
      kyc_status: row.consumer_kyc_status,
      provider_consumer_id: user?.provider_consumer_id ?? null,
    },
    card: card ? publicCard(card) : null,
    failure_reason: row.failure_reason,
    review_resolves_at: row.review_resolves_at,
    inquiry_id: row.completion?.inquiry_id ?? null,
    product_id: row.completion?.product_id ?? null,
  }
}

/** Sweep task: manual reviews whose time has come end as the scenario said. */
export function resolveDueReviews(deps: Deps, scope: SweepScope): void {
  for (const row of waitingRows(deps, 'onboardings', 'onboardings_in_review', scope)) {
    if (!isDue(scope, row.partner_id, row.review_resolves_at)) continue
    const user = deps.store.get('users', row.user_id)
    if (!user) continue
    deps.store.batch((w) => {
      if (row.decision.review_outcome === 'kyc_fail')
        decline(deps, w, row, user, 'identity_verification_failed', false)
      else approve(deps, w, row, user, row.completion?.product_id ?? null)
    })
  }
}
