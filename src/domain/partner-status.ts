import { ApiError } from '../errors.js'
import type { StateReader } from '../state/seam.js'
import type { PartnerRow } from '../store/records.js'

/**
 * The spec: "a suspended or revoked account gets 403 on every request". Credentialed calls
 * check it in `authenticatePartner`; the public surfaces (hosted pages, their step routes and
 * public enrollment) carry a token instead, so they check the token's partner with this
 * before reading or changing anything. The status is read from the state on every call.
 */
export async function requireActivePartner(
  reader: StateReader,
  partnerId: string,
): Promise<PartnerRow> {
  const partner = await reader.get('partners', partnerId)
  if (partner?.status !== 'active') throw new PartnerUnavailableError(partner?.status ?? 'revoked')
  return partner
}

/** The 403 of a partner that is not active, on a surface that carries a token (requireActivePartner). */
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
