import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { StateTx } from '../state/seam.js'
import type { PartnerRow, PartnerStatus } from '../store/records.js'
import type { PartnerClocks } from './partner-clocks.js'
import { partnerById } from './partners.js'
import { type PartnerNamesPatch, patchedNames } from './production-names.js'

export interface SandboxPartnerPatch {
  status?: PartnerStatus
  scenario?: string | null
  rate_limit?: number
  auto_complete?: boolean
  names?: PartnerNamesPatch
}

/** The settings of a patch other than `status` (which has its own rule, partners.ts). */
export type SandboxPartnerSettings = Omit<SandboxPartnerPatch, 'status'>

/** A patch's scenario must exist before anything changes (400 naming `scenario`). */
export function checkSandboxPartnerPatch(
  ctx: { scenarios: ScenarioRegistry },
  patch: SandboxPartnerPatch,
): void {
  if (patch.scenario) ctx.scenarios.resolve(patch.scenario)
}

/**
 * Control-plane settings of a partner: its scenario, its rate limit and auto_complete,
 * applied together or not at all. The partner row as it is after them.
 */
export async function updateSandboxPartnerSettings(
  ctx: { clocks: PartnerClocks },
  tx: StateTx,
  id: string,
  patch: SandboxPartnerSettings,
): Promise<PartnerRow> {
  const partner = await partnerById(tx, id)
  if (
    patch.scenario === undefined &&
    patch.rate_limit === undefined &&
    patch.auto_complete === undefined &&
    patch.names === undefined
  )
    return partner
  const names = patch.names ? patchedNames(partner.names, patch.names) : partner.names
  const { names: _, ...rest } = partner
  const next: PartnerRow = {
    ...rest,
    ...(patch.auto_complete !== undefined ? { auto_complete: patch.auto_complete } : {}),
    ...(patch.scenario !== undefined ? { scenario: patch.scenario } : {}),
    ...(patch.rate_limit !== undefined ? { rate_limit: patch.rate_limit } : {}),
    updated_at: ctx.clocks.forPartner(partner.id).iso(),
    ...(names ? { names } : {}),
  }
  tx.put('partners', next)
  return next
}
