import { ApiError } from '../errors.js'
import type { StateTx } from '../state/seam.js'
import type { OnboardingRow } from '../store/records.js'
import { currentStep, type OnboardingCtx } from './onboarding.js'
import { type Step, submitStep, underwritingChoices } from './onboarding-flow.js'

/**
 * The hosted flow walked without a browser (the control plane's headless walk): the same steps
 * the page posts, through the same function, to the end a test chose. A provider's sandbox
 * offers the same (Persona's inquiry approve/decline calls, Stripe's test verification
 * tokens): a backend still completes only what the flow recorded.
 */

/**
 * - `passed`: the user confirms, answers and accepts, as a person would; the sandbox's own
 *   decision (magic values, scenario rules) still ends the flow where it would on the page.
 * - `failed`: the provider declines at the next check: KYC when identity is not verified yet,
 *   underwriting after it.
 * - `agreement_declined`: the user declines the card agreement.
 */
export const flowEnds = ['passed', 'failed', 'agreement_declined'] as const
export type FlowEnd = (typeof flowEnds)[number]

/** What the walk posts at each step: the first choice the page offers. */
const stepBody = (step: Step, end: FlowEnd): Record<string, unknown> => {
  if (step === 'identity_verification') return { confirmed: true }
  if (step === 'underwriting')
    return Object.fromEntries(Object.entries(underwritingChoices).map(([k, v]) => [k, v[0]]))
  return { accepted: end !== 'agreement_declined' }
}

/** Walks the flow of `row` from where it is to its end; answers the row and the steps taken. */
export function walkFlow(
  ctx: Pick<OnboardingCtx, 'clocks'>,
  tx: StateTx,
  row: OnboardingRow,
  end: FlowEnd,
): { onboarding: OnboardingRow; steps: Step[] } {
  if (row.flow_result) {
    throw new ApiError(
      'conflict',
      `The hosted flow of onboarding ${row.id} already ended with result "${row.flow_result}"; start the onboarding again to walk it anew.`,
    )
  }
  let next = end === 'failed' ? declineAtNextCheck(row) : row
  const steps: Step[] = []
  for (let step = currentStep(next); step && step !== 'result'; step = currentStep(next)) {
    next = submitStep(ctx, tx, next, step, stepBody(step, end))
    steps.push(step)
    if (next.flow_result) break
  }
  return { onboarding: next, steps }
}

/** The row with a decision that declines at the next check the flow makes. */
function declineAtNextCheck(row: OnboardingRow): OnboardingRow {
  const step = currentStep(row)
  const noReview = { review_ms: null, review_outcome: null }
  if (step === 'identity_verification') {
    const decision = {
      outcome: 'kyc_fail' as const,
      reason: 'identity_verification_failed',
      ...noReview,
    }
    return { ...row, decision: { ...row.decision, ...decision } }
  }
  if (step === 'underwriting') {
    const decision = { outcome: 'underwriting_decline' as const, reason: 'underwriting_declined' }
    return { ...row, decision: { ...row.decision, ...decision, ...noReview } }
  }
  throw new ApiError(
    'conflict',
    `Onboarding ${row.id} is past its checks (the user is at ${step ?? row.status}); walk it to "agreement_declined" or "passed".`,
  )
}
