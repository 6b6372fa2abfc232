import type { ClockSetting, SandboxClock } from '../clock.js'
import type { Logger } from '../logger.js'
import type { State } from '../state/seam.js'
import type { ClockRow } from '../store/records.js'

export interface SandboxClockRowParts {
  state: State
  clock: SandboxClock
  logger: Pick<Logger, 'error'>
}

/**
 * The sandbox clock's setting (its offset, or the instant it is frozen at) as a row of the
 * state, `clocks/sandbox`, so an engine shared by several processes shares the sandbox time.
 * The clock keeps its own copy, read synchronously on every request: each change of it is
 * written in a transaction of its own, and a row another process wrote is taken from the
 * seam's commit notices. The collection is ephemeral, as the clock always was: not in the
 * data file nor in snapshots. A whole-state replace empties it, and only the process that
 * replaced the state writes it again: a restore the time as it stands (`store`), a reset the
 * time the clock started at (`restart`). Every other process takes the row once it is there;
 * were each to write its own setting on hearing the replace, a replica that had not yet heard
 * the reset's clock would put the old time back for all.
 */
export class SandboxClockRow {
  /** Writes of this process not committed yet: their notices are this clock's own. */
  private pending = 0
  /**
   * The last write asked for. Writes go one after the other, each of the setting as it then
   * stands: on PostgreSQL two transactions at once may commit in either order, and the row
   * must end with the latest setting, not the one whose transaction happened to lose a retry.
   */
  private last: Promise<void> = Promise.resolve()

  private constructor(private readonly parts: SandboxClockRowParts) {
    parts.clock.onChange(() => void this.save())
    parts.state.onCommit((changes) => {
      for (const change of changes) {
        if (change.collection !== 'clocks' || change.id !== 'sandbox' || !change.row) continue
        if (this.pending === 0) parts.clock.adopt(change.row as ClockRow)
      }
    })
    parts.state.onReplace(() => this.reread())
  }

  /** Takes the stored setting when there is one, else stores the clock's. */
  static async open(parts: SandboxClockRowParts): Promise<SandboxClockRow> {
    const row = new SandboxClockRow(parts)
    const stored = await parts.state.get('clocks', 'sandbox')
    if (stored) parts.clock.adopt(stored)
    else await row.save()
    return row
  }

  /** After this process reset the state: the clock back to how it started, stored. */
  async restart(): Promise<void> {
    this.parts.clock.restart()
    await this.settled()
  }

  /** After this process restored the state: the time as it stands, stored again. */
  store(): Promise<void> {
    return this.save()
  }

  /** A replace was heard: the stored setting, if whoever replaced the state wrote it yet. */
  private async reread(): Promise<void> {
    try {
      const stored = await this.parts.state.get('clocks', 'sandbox')
      if (stored && this.pending === 0) this.parts.clock.adopt(stored)
    } catch (error) {
      this.parts.logger.error(`cannot read the sandbox clock: ${(error as Error).stack}`)
    }
  }

  /** Resolves once the writes asked for so far are committed (or failed, and said so). */
  settled(): Promise<void> {
    return this.last
  }

  private save(): Promise<void> {
    this.pending++
    this.last = this.last.then(() => this.write())
    return this.last
  }

  private async write(): Promise<void> {
    try {
      const setting: ClockSetting = this.parts.clock.setting()
      await this.parts.state.transaction(async (tx) =>
        tx.put('clocks', { id: 'sandbox', ...setting }),
      )
    } catch (error) {
      this.parts.logger.error(`cannot store the sandbox clock: ${(error as Error).stack}`)
    } finally {
      this.pending--
    }
  }
}
