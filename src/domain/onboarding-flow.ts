import { ApiError, validationError } from '../errors.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { OnboardingRow } from '../store/records.js'
import { currentStep, type OnboardingCtx } from './onboarding.js'
import { existingSigningKey, hashWithKey, sameHash } from './signing-key.js'

/**
 * The hosted embedded flow's side of an onboarding: each step the page posts, checked with
 * the onboarding's access token. The sandbox's decision (made at start) shows where it
 * would in production: a KYC failure right after identity verification, an underwriting
 * decline after the questions, otherwise a pass (or a manual review) after the agreement.
 */

/** Why a hosted link (or its access token) opens nothing; the routes word it for people. */
export type EmbedLinkProblem =
  | 'unknown'
  | 'superseded'
  | 'invalid_token'
  | 'expired'
  | 'redirect_not_allowed'

export class EmbedLinkError extends Error {
  constructor(readonly problem: EmbedLinkProblem) {
    super(`embed link: ${problem}`)
  }
}

/** The onboarding an access token opens, or an EmbedLinkError saying why not. */
export async function openWithToken(
  ctx: Pick<OnboardingCtx, 'clocks'>,
  reader: StateReader,
  id: string | undefined,
  token: string | undefined,
): Promise<OnboardingRow> {
  const row = id ? await reader.get('onboardings', id) : undefined
  if (!row || !token) throw new EmbedLinkError('unknown')
  // No key yet: no token was ever issued, so none can match.
  const key = await existingSigningKey(reader)
  if (!key) throw new EmbedLinkError('invalid_token')
  const given = hashWithKey(key, `embed:${row.id}`, token)
  if (!sameHash(row.access_token_hash, given)) {
    const replaced = (row.superseded_token_hashes ?? []).some((old) => sameHash(old, given))
    throw new EmbedLinkError(replaced ? 'superseded' : 'invalid_token')
  }
  if (Date.parse(row.access_token_expires_at) <= ctx.clocks.nowOf(row.partner_id))
    throw new EmbedLinkError('expired')
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

/** Records one step the hosted page posted; answers the onboarding after it. */
export function submitStep(
  ctx: Pick<OnboardingCtx, 'clocks'>,
  tx: StateTx,
  row: OnboardingRow,
  step: Step,
  body: Record<string, unknown>,
): OnboardingRow {
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
  const now = ctx.clocks.forPartner(row.partner_id).iso()
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
  tx.put('onboardings', next)
  return next
}
