import type { Deps } from '../deps.js'
import type { SweepScope } from './sweep-scope.js'

export { isDue, type SweepScope } from './sweep-scope.js'

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

/**
 * Runs time-driven rules (manual reviews resolving, deposits settling, disputes closing)
 * whenever a clock moves: on every sandbox or partner advance, before the webhook dispatcher
 * delivers what they emit, and once a second while the clock runs on its own. Each row is
 * due on its own partner's clock; a partner's advance sweeps only that partner's rows.
 */
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

  /**
   * Runs every task: the synchronous ones at once (done when this returns), those on the
   * state seam started in order and awaited together (their transactions serialize there).
   */
  run(partnerId?: string): Promise<void> {
    const scope: SweepScope = { partnerId, nowOf: (id) => this.deps.clocks.nowOf(id) }
    this.backlog = false
    const pending: Promise<void>[] = []
    const done = (result: SweepResult) => {
      if (result === true) this.backlog = true
    }
    const failed = (error: unknown) =>
      this.deps.logger.error(`sweep task failed: ${(error as Error).stack}`)
    for (const task of this.tasks) {
      try {
        const result = task(scope)
        if (result instanceof Promise) pending.push(result.then(done, failed))
        else done(result)
      } catch (error) {
        failed(error)
      }
    }
    return Promise.all(pending).then(() => undefined)
  }

  stop(): void {
    clearInterval(this.timer)
  }
}
