import { ApiError } from '../errors.js'
import type { StateTx } from '../state/seam.js'
import type { OnboardingRow } from '../store/records.js'
import { currentStep, type OnboardingCtx } from './onboarding.js'
import { flowResult } from './onboarding-flow.js'
import { type Completion, completeOnboarding } from './onboarding-outcome.js'
import { partnerById } from './partners.js'

/**
 * Completing an onboarding whose hosted flow ended, on the partner's behalf: the dashboard's
 * button, and partners with `auto_complete`. It sends what the page sends to the app, through
 * the same function as POST /partner/cards/onboarding/:id/complete, so the card, the events
 * and the webhooks are those of a partner's own completion.
 */
export async function completeFromFlow(
  ctx: OnboardingCtx,
  tx: StateTx,
  row: OnboardingRow,
): Promise<Completion> {
  if (!row.flow_result) {
    const step = currentStep(row)
    throw new ApiError(
      'conflict',
      step
        ? `The hosted flow of onboarding ${row.id} has not finished: the user is at ${step}.`
        : `Onboarding ${row.id} is ${row.status}; there is no finished flow to complete.`,
    )
  }
  const partner = await partnerById(tx, row.partner_id)
  const user = await tx.get('users', row.user_id)
  if (!user) throw new ApiError('not_found', `The user of onboarding ${row.id} no longer exists.`)
  const message = flowResult(row)
  return completeOnboarding(ctx, tx, partner, user, row.id, {
    result: row.flow_result,
    data: message.data,
    agreement_accepted: message.agreementAccepted,
  })
}

/**
 * After a step that ended the flow: completes it when the partner's sandbox setting asks.
 * A completion the partner's settings make impossible (no inquiry or product default) is
 * logged and left to the partner, as if the setting were off; it throws before it writes,
 * so the step itself still commits.
 */
export async function autoCompleteIfAsked(
  ctx: OnboardingCtx,
  tx: StateTx,
  row: OnboardingRow,
): Promise<void> {
  if (!row.flow_result || row.completion) return
  const partner = await tx.get('partners', row.partner_id)
  if (!partner?.auto_complete) return
  try {
    await completeFromFlow(ctx, tx, row)
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    ctx.logger.warn(`auto_complete could not complete onboarding ${row.id}: ${error.message}`, {
      partner: partner.slug,
    })
  }
}
