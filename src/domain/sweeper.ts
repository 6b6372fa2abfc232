import type { Clock } from '../clock.js'
import type { Logger } from '../logger.js'
import { DatabaseUnavailable } from '../state/database-error.js'
import type { IndexName, IndexRow } from '../state/indexes.js'
import type { StateReader } from '../state/seam.js'
import type { PartnerClocks } from './partner-clocks.js'

/**
 * Runs time-driven rules (manual reviews resolving, deposits settling, disputes closing)
 * whenever a clock moves: on every sandbox or partner advance, before the webhook dispatcher
 * delivers what they emit, and once a second while the clock runs on its own. Each row is
 * due on its own partner's clock; a partner's advance sweeps only that partner's rows.
 */
export interface SweepScope {
  /** Only this partner's rows (a partner clock moved); every partner when absent. */
  partnerId?: string
  /** The time of a partner's clock. */
  nowOf(partnerId: string): number
}

/**
 * A rule of the sweep. Answering true means it left work for the next run (a retention
 * backlog drained a batch at a time), which then comes a second later even while the clock is
 * frozen: a frozen sandbox advanced by a month still drains to its bounds.
 */
export type SweepTask = (
  scope: SweepScope,
  // biome-ignore lint/suspicious/noConfusingVoidType: rules that never leave work answer nothing
) => void | boolean | Promise<void | boolean>

/** The waiting indexes (state/indexes.ts), each with its `…_by_partner` twin. */
export type WaitingIndex = 'onboardings_in_review' | 'deposits_pending' | 'disputes_under_review'

/**
 * The rows of a waiting index the sweep looks at: one partner's, read from the index by
 * partner, or everyone's.
 */
export function waitingRowsOf<I extends WaitingIndex>(
  reader: StateReader,
  index: I,
  scope: SweepScope,
): Promise<IndexRow<I>[]> {
  if (scope.partnerId === undefined) return reader.lookup(index, 'waiting')
  const byPartner = `${index}_by_partner` as const satisfies IndexName
  return reader.lookup(byPartner, scope.partnerId) as Promise<IndexRow<I>[]>
}

/** Whether a row of `partnerId` is in the sweep and its due time `at` (ISO) has come. */
export function isDue(scope: SweepScope, partnerId: string, at: string | null): boolean {
  if (at === null) return false
  if (scope.partnerId !== undefined && scope.partnerId !== partnerId) return false
  return Date.parse(at) <= scope.nowOf(partnerId)
}

export interface SweeperParts {
  clock: Clock
  clocks: PartnerClocks
  logger: Pick<Logger, 'error' | 'warn'>
  /** Every rule, in the order each run takes them. */
  tasks: readonly SweepTask[]
  /**
   * Reads what the time and the rules depend on from the state before each run (the sandbox
   * clock's setting, the partners' clocks, loaded scenarios): another process may have
   * changed them, and no notice says so.
   */
  refresh?: () => Promise<void>
}

export class Sweeper {
  private readonly tasks: readonly SweepTask[]
  private readonly timer: NodeJS.Timeout
  /** A task left work for the next run. */
  private backlog = false
  /** The last run asked for: runs follow one another, so a rule never overlaps itself. */
  private last: Promise<void> = Promise.resolve()
  /** Runs asked for and not finished. */
  private pending = 0
  /** Set by stop(): no run starts, and a run under way ends before its next rule. */
  private stopped = false

  /**
   * Listens to both clocks from here: whatever is built after it (the dispatcher) hears an
   * advance after the sweep has run, so the events the sweep emits are delivered on it.
   */
  constructor(private readonly parts: SweeperParts) {
    this.tasks = [...parts.tasks]
    parts.clock.onAdvance(() => this.run())
    parts.clocks.onAdvance((partnerId) => this.run(partnerId))
    // A run still under way (a slow backlog) is not joined by another a second later.
    this.timer = setInterval(() => {
      if (this.pending === 0) void this.tick()
    }, 1000)
    this.timer.unref()
  }

  /** The run of each second: while the clock runs (as now read), or a backlog is left. */
  private async tick(): Promise<void> {
    if (!(await this.refreshed())) return
    if (this.pending === 0 && (this.backlog || !this.parts.clock.state().frozen))
      await this.run(undefined, true)
  }

  /** Whether the state was read (else said, and the run waits for the next second). */
  private refreshed(): boolean | Promise<boolean> {
    const refresh = this.parts.refresh
    if (!refresh) return true
    return refresh().then(
      () => true,
      (error: unknown) => {
        this.parts.logger.error(`sweep cannot read the clocks: ${(error as Error).stack}`)
        return false
      },
    )
  }

  /**
   * One run of every rule (of one partner when its clock moved), after the run under way;
   * `fresh` when the state was read just before.
   */
  run(partnerId?: string, fresh = false): Promise<void> {
    if (this.stopped) return this.last
    this.pending++
    this.last = this.last
      .then(() => {
        const ready = fresh || this.refreshed()
        if (ready === true) return this.runOnce(partnerId)
        return ready
          ? ready.then((read) => (read ? this.runOnce(partnerId) : undefined))
          : undefined
      })
      .finally(() => {
        this.pending--
      })
    return this.last
  }

  private async runOnce(partnerId: string | undefined): Promise<void> {
    const scope: SweepScope = { partnerId, nowOf: (id) => this.parts.clocks.nowOf(id) }
    this.backlog = false
    for (const task of this.tasks) {
      if (this.stopped) return
      try {
        if ((await task(scope)) === true) this.backlog = true
      } catch (error) {
        // The database out of reach is said in one line: the next sweep tries again.
        if (error instanceof DatabaseUnavailable)
          this.parts.logger.warn(`sweep task postponed: ${error.message}`)
        else this.parts.logger.error(`sweep task failed: ${(error as Error).stack}`)
      }
    }
  }

  /**
   * Stops the timer and every run still queued; resolves once the rule under way has ended.
   * The state is closed after this: a rule still reading it then would fail (a closed
   * database connection) and log an error for a clean stop.
   */
  stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    return this.last
  }
}
