import type { SandboxConfig } from '../config.js'
import type { CredentialCache } from '../domain/credential-cache.js'
import { exportState } from '../domain/export.js'
import type { FileStore } from '../domain/file-store.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import {
  deletePartner,
  type PartnerDataChange,
  resetPartner,
  restorePartner,
} from '../domain/partner-state.js'
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
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { State, StateTx } from '../state/seam.js'
import type { PartnerRow } from '../store/records.js'
import type { Dispatcher } from '../webhooks/dispatcher.js'

export interface PlatformParts {
  config: Pick<SandboxConfig, 'data' | 'database'>
  state: State
  random: Random
  clocks: PartnerClocks
  scenarios: ScenarioRegistry
  files: FileStore
  credentials: CredentialCache
  /** The webhook schedule, rebuilt from a partner's rows after they were replaced. */
  deliveries: Pick<Dispatcher, 'reload'>
  /** The sandbox clock's stored setting, which a replace empties: written again after one. */
  sandboxClock: Pick<SandboxClockRow, 'restart' | 'store'>
}

/**
 * The sandbox as a whole, for the control plane: health, reset, snapshots and restores of
 * everything or of one partner, and a partner's sandbox settings. Each change is one
 * transaction (a reset or restore of everything, one replace); what lives outside the state
 * (file bytes, the in-process copies other areas keep) follows once it committed.
 */
export class Platform {
  private readonly startedAt = Date.now()

  constructor(private readonly parts: PlatformParts) {}

  /** What GET /_sandbox/health tells: counts only, it is open and names no partner. */
  async health() {
    const { scenarios, state, clocks, config } = this.parts
    const partners = await state.all('partners')
    const missing = scenarios.problems(partners).length
    return {
      status: 'ok' as const,
      version: packageVersion,
      now: clocks.sandbox.iso(),
      uptime_s: Math.round((Date.now() - this.startedAt) / 1000),
      storage: config.database
        ? ('postgres' as const)
        : config.data
          ? ('file' as const)
          : ('memory' as const),
      scenario: scenarios.default.name,
      partners: partners.length,
      problems:
        missing === 0
          ? []
          : [
              `${missing} partner(s) name a scenario that is not loaded; their API requests get 503 (GET /_sandbox/partners shows which)`,
            ],
    }
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
    await this.parts.sandboxClock.store()
  }

  async exportPartner(partnerId: string, includeSecrets: boolean) {
    await partnerById(this.parts.state, partnerId)
    return exportState(this.parts, { partnerId, includeSecrets })
  }

  resetPartner(partnerId: string): Promise<void> {
    return this.changePartner(partnerId, (tx) => resetPartner(tx, partnerId))
  }

  async deletePartner(partnerId: string): Promise<void> {
    await this.changePartner(partnerId, (tx) => deletePartner(tx, partnerId))
    this.parts.credentials.forget(partnerId)
  }

  restorePartner(partnerId: string, doc: UploadedSnapshot & { partner_id: string }) {
    return this.changePartner(partnerId, (tx) => restorePartner(this.parts, tx, partnerId, doc))
  }

  /**
   * Status (suspend, revoke, reactivate), scenario (checked to exist first), rate limit and
   * auto_complete of a partner.
   */
  async updatePartner(partnerId: string, patch: SandboxPartnerPatch): Promise<PartnerRow> {
    checkSandboxPartnerPatch(this.parts, patch)
    const { status, ...settings } = patch
    return this.parts.state.transaction(async (tx) => {
      if (status) await changePartnerStatus(this.parts, tx, partnerId, status)
      return updateSandboxPartnerSettings(this.parts, tx, partnerId, settings)
    })
  }

  /** One transaction over a partner's rows, then what lives beside the state follows. */
  private async changePartner(
    partnerId: string,
    change: (tx: StateTx) => Promise<PartnerDataChange>,
  ): Promise<void> {
    const { removedFiles } = await this.parts.state.transaction(change)
    for (const id of removedFiles) this.parts.files.remove(id)
    // (The partner's inbox messages, ephemeral rows, went in the transaction with the rest.)
    await this.parts.deliveries.reload(partnerId)
  }
}
