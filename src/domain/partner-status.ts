import type { StateReader } from '../state/seam.js'
import { PartnerUnavailableError } from './partner-unavailable.js'

export { PartnerUnavailableError, unavailablePage } from './partner-unavailable.js'

/**
 * The spec: "a suspended or revoked account gets 403 on every request". Credentialed calls
 * check it in `authenticatePartner`; the public surfaces (hosted pages, their step routes and
 * public enrollment) carry a token instead, so they check the token's partner with this
 * before reading or changing anything. The status is read from the state on every call.
 */
export async function requireActivePartner(reader: StateReader, partnerId: string): Promise<void> {
  const status = (await reader.get('partners', partnerId))?.status ?? 'revoked'
  if (status !== 'active') throw new PartnerUnavailableError(status)
}
