import type { SandboxConfig } from '../config.js'
import { exportState } from '../domain/export.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import { deletePartner, resetPartner, restorePartner } from '../domain/partner-state.js'
import { changePartnerStatus, partnerById } from '../domain/partners.js'
import type { SandboxClockRow } from '../domain/sandbox-clock-row.js'
import {
  checkSandboxPartnerPatch,
  type SandboxPartnerPatch,
  updateSandboxPartnerSettings,
} from '../domain/sandbox-partners.js'
import { restoreSnapshot, type UploadedSnapshot } from '../domain/snapshots.js'
import { packageVersion } from '../package-root.js'
import type { Random } from '../random.js'
import type { LoadedScenarios } from '../scenarios/loaded-scenarios.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import { DatabaseUnavailable } from '../state/database-error.js'
import type { State, StateTx } from '../state/seam.js'
import type { DeliveryRow, PartnerRow } from '../store/records.js'

export interface PlatformParts {
  config: Pick<SandboxConfig, 'data' | 'database'>
  state: State
  random: Random
  clocks: PartnerClocks
  scenarios: ScenarioRegistry
  /**
   * Loaded scenarios outlive a reset or restore (the replace merges them); a restored
   * snapshot's are put in force after it.
   */
  loadedScenarios: Pick<LoadedScenarios, 'refreshAll'>
  /** The sandbox clock's stored setting, which a replace empties: written again after one. */
  sandboxClock: Pick<SandboxClockRow, 'restart' | 'store'>
  /** Told of each delivery a partner restore brought back, once committed (the dispatcher). */
  scheduled?: (delivery: DeliveryRow) => void
}

/** The partners, and those that name a missing scenario. */
interface Counts {
  partners: number
  missing: number
}

/**
 * The sandbox as a whole, for the control plane: health, reset, snapshots and restores of
 * everything or of one partner, and a partner's sandbox settings. Each change is one
 * transaction (a reset or restore of everything, one replace); what lives outside the state
 * (the in-process copies other areas keep) follows once it committed.
 */
export class Platform {
  private readonly startedAt = Date.now()

  constructor(private readonly parts: PlatformParts) {}

  /**
   * What GET /_sandbox/health tells: counts only, it is open and names no partner. `degraded`
   * while writes are refused (a full disk): reads still work.
   */
  async health() {
    const { state, clocks, config, scenarios } = this.parts
    // The database out of reach is what the check is for: said, not thrown (a 503 all the same).
    const counted = await this.partnerCounts().catch((error: unknown) => {
      if (error instanceof DatabaseUnavailable) return error
      throw error
    })
    const database = counted instanceof DatabaseUnavailable ? counted : undefined
    const { partners, missing } = database ? { partners: null, missing: 0 } : (counted as Counts)
    const storage = state.storageProblem?.()
    return {
      status: storage?.refusingWrites || database ? ('degraded' as const) : ('ok' as const),
      version: packageVersion,
      now: clocks.sandbox.iso(),
      uptime_s: Math.round((Date.now() - this.startedAt) / 1000),
      storage: config.database
        ? ('postgres' as const)
        : config.data
          ? ('file' as const)
          : ('memory' as const),
      scenario: scenarios.default.name,
      partners,
      problems: [
        ...(database ? [`database: ${database.message}`] : []),
        ...(storage ? [`storage: ${storage.message}`] : []),
        ...(missing === 0
          ? []
          : [
              `${missing} partner(s) name a scenario that is not loaded; their API requests get 503 (GET /_sandbox/partners shows which)`,
            ]),
      ],
    }
  }

  /**
   * How many partners there are, and how many name a scenario this sandbox does not have:
   * counted by index, and by the names partners give, so the check HAProxy makes every 2 s
   * reads no partner's row.
   */
  private async partnerCounts(): Promise<Counts> {
    const { state, scenarios } = this.parts
    const [partners, names] = await Promise.all([
      state.count('partners_in_order', 'all'),
      state.keys('partners_by_scenario'),
    ])
    const lost = names.filter((name) => scenarios.problemOf({ scenario: name }) !== undefined)
    const missing = await Promise.all(lost.map((name) => state.count('partners_by_scenario', name)))
    return { partners, missing: missing.reduce((sum, n) => sum + n, 0) }
  }

  /**
   * Everything back to the start: the fixtures' rows (each partner's clock as they say), and
   * the sandbox clock as the scenario started it, or the machine's time. A clock left 31
   * minutes ahead would expire fresh codes and settle deposits early after a "fresh" start.
   */
  async reset(): Promise<void> {
    await this.parts.state.reset()
    await this.parts.sandboxClock.restart()
  }

  export(includeSecrets: boolean) {
    return exportState(this.parts, { includeSecrets })
  }

  /** The snapshot's rows; the sandbox time stays as it stands (a snapshot holds no clock). */
  async restore(doc: UploadedSnapshot): Promise<void> {
    await restoreSnapshot(this.parts, doc)
    await this.parts.loadedScenarios.refreshAll()
    await this.parts.sandboxClock.store()
  }

  async exportPartner(partnerId: string, includeSecrets: boolean) {
    await partnerById(this.parts.state, partnerId)
    return exportState(this.parts, { partnerId, includeSecrets })
  }

  resetPartner(partnerId: string): Promise<void> {
    return this.changePartner((tx) => resetPartner(tx, partnerId))
  }

  deletePartner(partnerId: string): Promise<void> {
    return this.changePartner((tx) => deletePartner(tx, partnerId))
  }

  restorePartner(partnerId: string, doc: UploadedSnapshot & { partner_id: string }) {
    return this.changePartner((tx) => restorePartner(this.parts, tx, partnerId, doc))
  }

  /**
   * Status (suspend, revoke, reactivate), scenario (checked to exist first), rate limit and
   * auto_complete of a partner.
   */
  async updatePartner(partnerId: string, patch: SandboxPartnerPatch): Promise<PartnerRow> {
    checkSandboxPartnerPatch(this.parts, patch)
    const { status, ...settings } = patch
    return this.parts.state.transaction(async (tx) => {
      // Again inside the transaction, before any write: a delete may have taken the scenario.
      if (patch.scenario) await this.parts.scenarios.requireLoaded(tx, patch.scenario)
      if (status) await changePartnerStatus(this.parts, tx, partnerId, status)
      return updateSandboxPartnerSettings(this.parts, tx, partnerId, settings)
    })
  }

  /** One transaction over a partner's rows, then what lives beside the state follows. */
  private async changePartner(change: (tx: StateTx) => Promise<void>): Promise<void> {
    // Its pictures' bytes, inbox messages and deliveries are rows too: they went in the
    // transaction, and the webhook schedule is the deliveries' rows.
    await this.parts.state.transaction(change)
  }
}
