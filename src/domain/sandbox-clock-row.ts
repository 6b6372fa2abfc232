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
 * data file nor in snapshots, and a reset or restore (which empties it) leaves the time as it
 * stands (the row is written again).
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
    parts.state.onReplace(() => this.save())
  }

  /** Takes the stored setting when there is one, else stores the clock's. */
  static async open(parts: SandboxClockRowParts): Promise<SandboxClockRow> {
    const row = new SandboxClockRow(parts)
    const stored = await parts.state.get('clocks', 'sandbox')
    if (stored) parts.clock.adopt(stored)
    else await row.save()
    return row
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
