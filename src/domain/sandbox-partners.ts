import type { Deps } from '../deps.js'
import type { PartnerStatus } from '../store/records.js'
import { requirePartner, setPartnerStatus } from './partners.js'

export interface SandboxPartnerPatch {
  status?: PartnerStatus
  scenario?: string | null
  rate_limit?: number
  auto_complete?: boolean
}

/**
 * Control-plane changes to a partner: status (suspend, revoke, reactivate), its scenario
 * (checked to exist first), its rate limit and auto_complete, applied together or not at all.
 */
export function updateSandboxPartner(deps: Deps, id: string, patch: SandboxPartnerPatch) {
  if (patch.scenario) deps.scenarios.resolve(patch.scenario)
  let partner = patch.status ? setPartnerStatus(deps, id, patch.status) : requirePartner(deps, id)
  if (
    patch.scenario !== undefined ||
    patch.rate_limit !== undefined ||
    patch.auto_complete !== undefined
  ) {
    partner = {
      ...partner,
      ...(patch.auto_complete !== undefined ? { auto_complete: patch.auto_complete } : {}),
      ...(patch.scenario !== undefined ? { scenario: patch.scenario } : {}),
      ...(patch.rate_limit !== undefined ? { rate_limit: patch.rate_limit } : {}),
      updated_at: deps.clocks.forPartner(partner.id).iso(),
    }
    deps.store.put('partners', partner)
  }
  return partner
}
