import type { Deps } from '../deps.js'

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
// biome-ignore lint/suspicious/noConfusingVoidType: rules that never leave work answer nothing
type SweepResult = void | boolean
/** A rule on the state seam answers once its transactions are done: the clock waits for it. */
export type SweepTask = (scope: SweepScope) => SweepResult | Promise<SweepResult>

/**
 * The rows of a waiting index (see store/indexes.ts) the sweep looks at: one partner's, read
 * from the index by partner, or everyone's.
 */
export function waitingRows<K extends 'onboardings' | 'deposits' | 'disputes'>(
  deps: Deps,
  collection: K,
  index: string,
  scope: SweepScope,
) {
  return scope.partnerId === undefined
    ? deps.store.lookup(collection, index, 'waiting')
    : deps.store.lookup(collection, `${index}_by_partner`, scope.partnerId)
}

/** Whether a row of `partnerId` is in the sweep and its due time `at` (ISO) has come. */
export function isDue(scope: SweepScope, partnerId: string, at: string | null): boolean {
  if (at === null) return false
  if (scope.partnerId !== undefined && scope.partnerId !== partnerId) return false
  return Date.parse(at) <= scope.nowOf(partnerId)
}

export class Sweeper {
  private readonly tasks: SweepTask[] = []
  private readonly timer: NodeJS.Timeout
  /** A task left work for the next run. */
  private backlog = false

  constructor(private readonly deps: Deps) {
    deps.clock.onAdvance(() => this.run())
    deps.clocks.onAdvance((partnerId) => this.run(partnerId))
    this.timer = setInterval(() => {
      if (this.backlog || !deps.clock.state().frozen) void this.run()
    }, 1000)
    this.timer.unref()
  }

  add(task: SweepTask): void {
    this.tasks.push(task)
  }

  async run(partnerId?: string): Promise<void> {
    const scope: SweepScope = { partnerId, nowOf: (id) => this.deps.clocks.nowOf(id) }
    this.backlog = false
    for (const task of this.tasks) {
      try {
        if ((await task(scope)) === true) this.backlog = true
      } catch (error) {
        this.deps.logger.error(`sweep task failed: ${(error as Error).stack}`)
      }
    }
  }

  stop(): void {
    clearInterval(this.timer)
  }
}
