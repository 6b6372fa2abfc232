import { ApiError } from '../errors.js'

/** The 403 of a partner that is not active, on a surface that carries a token (partner-status.ts). */
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
