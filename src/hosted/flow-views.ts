import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { currentStep } from '../domain/onboarding.js'
import { type EmbedLinkProblem, flowResult, type Step } from '../domain/onboarding-flow.js'
import type { CardRow, OnboardingRow } from '../store/records.js'

/** How the hosted flow's routes word the records of the onboarding service. */

/**
 * What the hosted page may read of its own onboarding (with its access token): its state and
 * the card's last four digits once issued, nothing of the user or the partner beyond that.
 */
export function presentFlowStatus(row: OnboardingRow, card: CardRow | undefined) {
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

export type FlowStatus = ReturnType<typeof presentFlowStatus>

/** The answer to a step: the next one, or the message the page sends its host at the end. */
export function presentStep(step: Step, next: OnboardingRow) {
  return {
    step,
    next_step: currentStep(next),
    finished: next.flow_result !== null,
    ...(next.flow_result ? { result: flowResult(next) } : {}),
  }
}

/** What a person who opened a link that opens nothing is told, and the page's status. */
export function linkProblemPage(problem: EmbedLinkProblem): {
  title: string
  message: string
  status: ContentfulStatusCode
} {
  switch (problem) {
    case 'unknown':
      return {
        title: 'Link not valid',
        message:
          'This onboarding link is incomplete or unknown. Start the onboarding again from the app.',
        status: 401,
      }
    case 'superseded':
      return {
        title: 'Link not valid',
        message:
          'This onboarding link is not valid any more (a newer one was issued). Start again from the app.',
        status: 401,
      }
    case 'invalid_token':
      return {
        title: 'Link not valid',
        message:
          'This onboarding link is not valid: its access token is unknown. Open the onboardingEmbedUrl exactly as the start call returned it, or start the onboarding again from the app.',
        status: 401,
      }
    case 'expired':
      return {
        title: 'Link expired',
        message: 'This onboarding link has expired. Start the onboarding again from the app.',
        status: 410,
      }
    case 'redirect_not_allowed':
      return {
        title: 'Link not valid',
        message: 'The redirect_uri of this link is not one of the partner\u2019s allowed origins.',
        status: 400,
      }
  }
}
