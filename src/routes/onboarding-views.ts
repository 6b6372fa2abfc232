import { publicCard, toDollars } from '../domain/cards.js'
import { EMBED_TOKEN_TTL_S, type StartedOnboarding } from '../domain/onboarding.js'
import type { Completion } from '../domain/onboarding-outcome.js'
import type { CardRow, OnboardingRow, UserRow } from '../store/records.js'

/** How the onboarding API words its answers: the records of the service, shaped for partners. */

/** The hosted page's link, with the access token it opens with. */
export function embedUrl(baseUrl: string, row: OnboardingRow, token: string): string {
  const url = new URL('/embed/onboarding', baseUrl)
  url.searchParams.set('onboarding_id', row.id)
  url.searchParams.set('access_token', token)
  if (row.redirect_uri) url.searchParams.set('redirect_uri', row.redirect_uri)
  return url.toString()
}

/** The onboarding session POST /partner/cards/onboarding answers. */
export function presentStarted(
  baseUrl: string,
  { onboarding, accessToken, resumed }: StartedOnboarding,
) {
  return {
    message: resumed
      ? 'Onboarding resumed: open the new onboardingEmbedUrl (the previous access token no longer works).'
      : 'Onboarding started: render onboardingEmbedUrl in a WebView or iframe.',
    onboardingEmbedUrl: embedUrl(baseUrl, onboarding, accessToken),
    accessToken,
    expiresIn: EMBED_TOKEN_TTL_S,
    onboardingId: onboarding.id,
    consumerId: onboarding.consumer_id,
    status: onboarding.status,
    consumerKycStatus: onboarding.consumer_kyc_status,
  }
}

/** A completion as POST …/onboarding/:id/complete (and the control plane's) answers it. */
export function presentCompletion({ onboarding: row, user, card }: Completion) {
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

/** GET /partner/cards/status: the user's onboarding, KYC status, card and balances. */
export function presentCardStatus(
  user: UserRow,
  { onboarding, card }: { onboarding?: OnboardingRow; card?: CardRow },
) {
  return {
    user_id: user.id,
    kyc_status: user.kyc_status,
    provider_consumer_id: user.provider_consumer_id,
    onboarding: onboarding
      ? {
          onboardingId: onboarding.id,
          status: onboarding.status,
          consumerKycStatus: onboarding.consumer_kyc_status,
          failure_reason: onboarding.failure_reason,
          review_resolves_at: onboarding.review_resolves_at,
        }
      : null,
    card: card ? publicCard(card) : null,
    balances: {
      available: toDollars(card?.available_balance_cents ?? 0),
      ledger: toDollars(card?.ledger_balance_cents ?? 0),
      currency: 'USD' as const,
    },
  }
}
