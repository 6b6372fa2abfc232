import type { Reporter, TestSpecification } from 'vitest/node'

/** How often a run says it is alive. */
const EVERY_MS = 30_000

/**
 * A line every 30 s while a run lasts (how many test files are done, and for how long it has
 * run), beside the default reporter: a suite file that takes minutes (the cluster, the
 * browsers) otherwise leaves the screen unchanged, and the run looks hung.
 */
export default class HeartbeatReporter implements Reporter {
  private timer: NodeJS.Timeout | undefined
  private done = 0
  private files = 0
  private startedAt = 0

  onTestRunStart(specifications: readonly TestSpecification[]): void {
    this.files = specifications.length
    this.done = 0
    this.startedAt = Date.now()
    clearInterval(this.timer)
    this.timer = setInterval(() => this.beat(), EVERY_MS)
    this.timer.unref()
  }

  onTestModuleEnd(): void {
    this.done++
  }

  onTestRunEnd(): void {
    clearInterval(this.timer)
  }

  private beat(): void {
    const seconds = Math.round((Date.now() - this.startedAt) / 1000)
    process.stdout.write(`  … ${this.done} of ${this.files} test files done after ${seconds} s\n`)
  }
}
