import type { Deps } from '../deps.js'

/**
 * Runs time-driven rules (manual reviews resolving, deposits settling, disputes closing)
 * whenever the sandbox clock moves: on every advance, before the webhook dispatcher delivers
 * what they emit, and once a second while the clock runs on its own.
 */
export type SweepTask = (now: number) => void

export class Sweeper {
  private readonly tasks: SweepTask[] = []
  private readonly timer: NodeJS.Timeout

  constructor(private readonly deps: Deps) {
    deps.clock.onAdvance((now) => this.run(now))
    this.timer = setInterval(() => {
      if (!deps.clock.state().frozen) this.run(deps.clock.now())
    }, 1000)
    this.timer.unref()
  }

  add(task: SweepTask): void {
    this.tasks.push(task)
  }

  run(now = this.deps.clock.now()): void {
    for (const task of this.tasks) {
      try {
        task(now)
      } catch (error) {
        this.deps.logger.error(`sweep task failed: ${(error as Error).stack}`)
      }
    }
  }

  stop(): void {
    clearInterval(this.timer)
  }
}
