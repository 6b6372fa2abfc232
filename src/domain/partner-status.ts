import type { Deps } from '../deps.js'
import { ApiError } from '../errors.js'

/**
 * The spec: "a suspended or revoked account gets 403 on every request". Credentialed calls
 * check it in `authenticatePartner`; the public surfaces (hosted pages, their step routes and
 * public enrollment) carry a token instead, so they check the token's partner with this
 * before reading or changing anything. The status is read from the store on every call.
 */
export function assertPartnerActive(deps: Deps, partnerId: string): void {
  const status = deps.store.get('partners', partnerId)?.status ?? 'revoked'
  if (status !== 'active') throw new PartnerUnavailableError(status)
}

export class PartnerUnavailableError extends ApiError {
  constructor(readonly partnerStatus: string) {
    super(
      'forbidden',
      `This partner account is ${partnerStatus}; its hosted pages and public routes are unavailable until it is reactivated.`,
    )
  }
}

/** What a person sees on a hosted page of a partner that is not active. */
export const unavailablePage = {
  title: 'Service unavailable',
  message:
    'This service is not available right now because the company that sent you here has paused its account. Go back to the app and try again later.',
}
