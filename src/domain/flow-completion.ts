import type { Deps } from '../deps.js'
import { ApiError } from '../errors.js'
import type { OnboardingRow } from '../store/records.js'
import { completeOnboarding, currentStep } from './onboarding.js'
import { flowResult } from './onboarding-flow.js'
import { requirePartner } from './partners.js'

/**
 * Completing an onboarding whose hosted flow ended, on the partner's behalf: the dashboard's
 * button, and partners with `auto_complete`. It sends what the page sends to the app, through
 * the same function as POST /partner/cards/onboarding/:id/complete, so the card, the events
 * and the webhooks are those of a partner's own completion.
 */
export function completeFromFlow(deps: Deps, row: OnboardingRow, result?: 'pass' | 'fail') {
  if (!row.flow_result) {
    const step = currentStep(row)
    throw new ApiError(
      'conflict',
      step
        ? `The hosted flow of onboarding ${row.id} has not finished: the user is at ${step}.`
        : `Onboarding ${row.id} is ${row.status}; there is no finished flow to complete.`,
    )
  }
  const partner = requirePartner(deps, row.partner_id)
  const user = deps.store.get('users', row.user_id)
  if (!user) throw new ApiError('not_found', `The user of onboarding ${row.id} no longer exists.`)
  const message = flowResult(row)
  return completeOnboarding(deps, partner, user, row.id, {
    result: result ?? row.flow_result,
    data: message.data,
    agreement_accepted: message.agreementAccepted,
  })
}

/**
 * After a step that ended the flow: completes it when the partner's sandbox setting asks.
 * A completion the partner's settings make impossible (no inquiry or product default) is
 * logged and left to the partner, as if the setting were off.
 */
export function autoCompleteIfAsked(deps: Deps, id: string): void {
  const row = deps.store.get('onboardings', id)
  if (!row?.flow_result || row.completion) return
  const partner = deps.store.get('partners', row.partner_id)
  if (!partner?.auto_complete) return
  try {
    completeFromFlow(deps, row)
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    deps.logger.warn(`auto_complete could not complete onboarding ${row.id}: ${error.message}`, {
      partner: partner.slug,
    })
  }
}

/**
 * What the hosted page may read of its own onboarding (with its access token): its state and
 * the card's last four digits once issued, nothing of the user or the partner beyond that.
 */
export function flowStatus(deps: Deps, row: OnboardingRow) {
  const card = row.card_id ? deps.store.get('cards', row.card_id) : undefined
  return {
    onboardingId: row.id,
    status: row.status,
    consumerKycStatus: row.consumer_kyc_status,
    flow_result: row.flow_result,
    completed: row.completion !== null,
    failure_reason: row.failure_reason,
    review_resolves_at: row.review_resolves_at,
    card: card ? { last4: card.last4, status: card.status } : null,
  }
}
