import type { ClockSetting, SandboxClock } from '../clock.js'
import type { Logger } from '../logger.js'
import type { State } from '../state/seam.js'

export interface SandboxClockRowParts {
  state: State
  clock: SandboxClock
  logger: Pick<Logger, 'error'>
}

/**
 * The sandbox clock's setting (its offset, or the instant it is frozen at) as a row of the
 * state, `clocks/sandbox`, so an engine shared by several processes shares the sandbox time.
 * The clock is read synchronously, so it holds the setting as last read: each change of it is
 * written in a transaction of its own, and the row is read again (`refresh`) before the time
 * is used, first thing in every request and before each sweep, so a change made through
 * another process counts from the next request with no notice. The collection is ephemeral,
 * as the clock always was: not in the data file nor in snapshots. A whole-state replace
 * empties it, and only the process that replaced the state writes it again: a restore the
 * time as it stands (`store`), a reset the time the clock started at (`restart`); every other
 * process reads the row from its next request on.
 */
export class SandboxClockRow {
  /** Writes of this process not committed yet: until they are, the clock is ahead of the row. */
  private pending = 0
  /** Changes of this process so far: a read begun before one must not undo it. */
  private changes = 0
  /**
   * Writes of this process ended so far: a read sent while one was still to commit may be
   * answered after it did, with the row as it was before it.
   */
  private written = 0
  /**
   * The last write asked for. Writes go one after the other, each of the setting as it then
   * stands: on PostgreSQL two transactions at once may commit in either order, and the row
   * must end with the latest setting, not the one whose transaction happened to lose a retry.
   */
  private last: Promise<void> = Promise.resolve()

  private constructor(private readonly parts: SandboxClockRowParts) {
    parts.clock.onChange(() => void this.save())
  }

  /** Takes the stored setting when there is one, else stores the clock's. */
  static async open(parts: SandboxClockRowParts): Promise<SandboxClockRow> {
    const row = new SandboxClockRow(parts)
    const stored = await parts.state.get('clocks', 'sandbox')
    if (stored) parts.clock.adopt(stored)
    else await row.save()
    return row
  }

  /**
   * Takes the stored setting (written through any process), unless a change of this
   * process's own is still on its way to the row or landed while it was read (the read may
   * have begun before that commit). A cheap read: one row.
   */
  async refresh(): Promise<void> {
    const { changes, written } = this
    const stored = await this.parts.state.get('clocks', 'sandbox')
    // A write of ours under way, begun, or ended while the row was read: the clock is newer.
    const ours = this.pending > 0 || this.changes !== changes || this.written !== written
    if (stored && !ours) this.parts.clock.adopt(stored)
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

  /** Resolves once the writes asked for so far are committed (or failed, and said so). */
  settled(): Promise<void> {
    return this.last
  }

  private save(): Promise<void> {
    this.pending++
    this.changes++
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
      this.written++
    }
  }
}
