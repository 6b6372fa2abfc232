import { createHmac } from 'node:crypto'
import { ApiError } from '../errors.js'
import type { Random } from '../random.js'
import type { PartnerRow, PartnerStatus } from '../store/records.js'
import type { Store } from '../store/store.js'
import type { PartnerClocks } from './partner-clocks.js'
import { PartnerUnavailableError } from './partner-unavailable.js'

/**
 * legacy: the identity functions other areas call as they were before the state seam, on the
 * synchronous store, so their code keeps working until the lead reconnects each caller to the
 * async functions named below (inside its own transaction). Then this file goes.
 */

/** legacy (onboarding, onboarding-flow, bank-connect): use `hashCode(ctx, tx, …)`. */
export function codeHash(
  deps: { store: Store; random: Random },
  id: string,
  value: string,
): string {
  let meta = deps.store.get('meta', 'sandbox')
  if (!meta) {
    meta = { id: 'sandbox', session_signing_key: deps.random.bytes(32).toString('base64url') }
    deps.store.put('meta', meta)
  }
  const key = Buffer.from(meta.session_signing_key, 'base64url')
  return createHmac('sha256', key).update(`${id}:${value}`).digest('base64url')
}

/**
 * legacy (partner-state, flow-completion, overrides, sandbox-partners, partner-state-routes):
 * use `partnerById(reader, id)`.
 */
export function requirePartner(deps: { store: Store }, id: string): PartnerRow {
  const partner = deps.store.get('partners', id)
  if (!partner) throw new ApiError('not_found', `No partner with id ${id}.`)
  return partner
}

/** legacy (sandbox-partners): use `setPartnerStatus` of partners.ts inside a transaction. */
export function setPartnerStatusNow(
  deps: { store: Store; clocks: PartnerClocks },
  id: string,
  status: PartnerStatus,
): PartnerRow {
  const partner = requirePartner(deps, id)
  const next = { ...partner, status, updated_at: deps.clocks.forPartner(partner.id).iso() }
  deps.store.put('partners', next)
  return next
}

/** legacy (embed routes, bank-connect): use `requireActivePartner(reader, id)`. */
export function assertPartnerActive(deps: { store: Store }, partnerId: string): void {
  const status = deps.store.get('partners', partnerId)?.status ?? 'revoked'
  if (status !== 'active') throw new PartnerUnavailableError(status)
}
