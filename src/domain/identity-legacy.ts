import { ApiError } from '../errors.js'
import type { PartnerRow } from '../store/records.js'
import type { Store } from '../store/store.js'

/**
 * legacy: the identity functions other areas call as they were before the state seam, on the
 * synchronous store, so their code keeps working until the lead reconnects each caller to the
 * async functions named below (inside its own transaction). Then this file goes.
 */

/**
 * legacy (partner-state, flow-completion, overrides, sandbox-partners, partner-state-routes):
 * use `partnerById(reader, id)`.
 */
export function requirePartner(deps: { store: Store }, id: string): PartnerRow {
  const partner = deps.store.get('partners', id)
  if (!partner) throw new ApiError('not_found', `No partner with id ${id}.`)
  return partner
}
