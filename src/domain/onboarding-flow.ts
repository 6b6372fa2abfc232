import type { Deps } from '../deps.js'
import { ApiError, validationError } from '../errors.js'
import type { OnboardingRow } from '../store/records.js'
import { currentStep } from './onboarding.js'
import { codeHash, sameHash } from './signing-key.js'

/**
 * The hosted embedded flow's side of an onboarding: each step the page posts, checked with
 * the onboarding's access token. The sandbox's decision (made at start) shows where it
 * would in production: a KYC failure right after identity verification, an underwriting
 * decline after the questions, otherwise a pass (or a manual review) after the agreement.
 */

export class EmbedTokenError extends Error {
  constructor(
    readonly title: string,
    message: string,
  ) {
    super(message)
  }
}

/** The onboarding an access token opens, or an EmbedTokenError saying why not. */
export function openWithToken(
  deps: Deps,
  id: string | undefined,
  token: string | undefined,
): OnboardingRow {
  const row = id ? deps.store.get('onboardings', id) : undefined
  if (!row || !token) {
    throw new EmbedTokenError(
      'Link not valid',
      'This onboarding link is incomplete or unknown. Start the onboarding again from the app.',
    )
  }
  const given = codeHash(deps, `embed:${row.id}`, token)
  if (!sameHash(row.access_token_hash, given)) {
    if ((row.superseded_token_hashes ?? []).some((old) => sameHash(old, given))) {
      throw new EmbedTokenError(
        'Link not valid',
        'This onboarding link is not valid any more (a newer one was issued). Start again from the app.',
      )
    }
    throw new EmbedTokenError(
      'Link not valid',
      'This onboarding link is not valid: its access token is unknown. Open the onboardingEmbedUrl exactly as the start call returned it, or start the onboarding again from the app.',
    )
  }
  if (Date.parse(row.access_token_expires_at) <= deps.clocks.nowOf(row.partner_id)) {
    throw new EmbedTokenError(
      'Link expired',
      'This onboarding link has expired. Start the onboarding again from the app.',
    )
  }
  return row
}

export type FlowOutcome = 'approved' | 'declined' | 'manual_review'

/** The outcome a finished flow shows, and the message the page sends to its host. */
export function flowResult(row: OnboardingRow) {
  const outcome: FlowOutcome =
    row.flow_result === 'fail'
      ? 'declined'
      : row.decision.outcome === 'manual_review'
        ? 'manual_review'
        : 'approved'
  return {
    type: 'partner-sandbox:onboarding' as const,
    version: 1 as const,
    onboardingId: row.id,
    result: row.flow_result,
    outcome,
    reason: row.flow_result === 'fail' ? (row.decision.reason ?? 'agreement_declined') : null,
    agreementAccepted: row.steps.agreement !== null,
    /** Forward as `data` to POST /partner/cards/onboarding/:id/complete. */
    data: {
      onboardingId: row.id,
      consumerId: row.consumer_id,
      outcome,
      steps: row.steps,
      underwriting: row.underwriting_answers,
    },
  }
}

export const underwritingChoices = {
  employment_status: ['employed', 'self_employed', 'student', 'retired', 'unemployed'],
  annual_income: ['under_25k', '25k_50k', '50k_100k', '100k_250k', 'over_250k'],
  source_of_funds: ['salary', 'savings', 'business', 'investments', 'other'],
} as const

export type Step = 'identity_verification' | 'underwriting' | 'agreement'

export function submitStep(
  deps: Deps,
  row: OnboardingRow,
  step: Step,
  body: Record<string, unknown>,
) {
  if (row.status !== 'pending' && row.status !== 'in_progress') {
    throw new ApiError(
      'conflict',
      `This onboarding is ${row.status}; its steps can no longer change.`,
    )
  }
  if (row.flow_result) throw new ApiError('conflict', 'This onboarding flow is already finished.')
  const expected = currentStep(row)
  if (expected !== step) {
    throw new ApiError('conflict', `The next step is ${expected}, not ${step}.`)
  }
  const now = deps.clocks.forPartner(row.partner_id).iso()
  let next: OnboardingRow = { ...row, status: 'in_progress', updated_at: now }
  if (step === 'identity_verification') {
    if (body.confirmed !== true)
      throw validationError('confirmed', 'must be true: the user confirms the details are theirs')
    next = { ...next, steps: { ...next.steps, identity_verification: now } }
    if (row.decision.outcome === 'kyc_fail') next = { ...next, flow_result: 'fail' }
  } else if (step === 'underwriting') {
    const answers: Record<string, string> = {}
    for (const [field, choices] of Object.entries(underwritingChoices)) {
      const value = body[field]
      if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
        throw validationError(field, `must be one of ${choices.join(', ')}`)
      }
      answers[field] = value
    }
    next = { ...next, steps: { ...next.steps, underwriting: now }, underwriting_answers: answers }
    if (row.decision.outcome === 'underwriting_decline') next = { ...next, flow_result: 'fail' }
  } else {
    if (typeof body.accepted !== 'boolean')
      throw validationError('accepted', 'must be true or false')
    next = body.accepted
      ? { ...next, steps: { ...next.steps, agreement: now }, flow_result: 'pass' }
      : {
          ...next,
          flow_result: 'fail',
          decision: { ...next.decision, reason: 'agreement_declined' },
        }
  }
  deps.store.put('onboardings', next)
  return {
    step,
    next_step: currentStep(next),
    finished: next.flow_result !== null,
    ...(next.flow_result ? { result: flowResult(next) } : {}),
  }
}
