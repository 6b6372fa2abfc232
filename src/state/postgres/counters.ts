/** One add to a counter, waiting for its count. */
interface Add {
  window: number
  counted: (count: number) => void
  failed: (error: unknown) => void
}

/**
 * The seam's counters (a partner's rate limit, the journal's number blocks) as a database
 * writes its log: one statement at a time a counter, adding at once every add asked for while
 * the one before was under way. A counter's row is updated by every request of its partner;
 * one UPDATE for many requests keeps them from queueing on its lock. Each add gets its own
 * count, in the order asked. `add(name, window, n)` adds n and answers the count after them.
 */
export class Counters {
  private readonly waiting = new Map<string, Add[]>()
  private readonly running = new Set<string>()

  constructor(private readonly add: (name: string, window: number, n: number) => Promise<number>) {}

  increment(name: string, window: number): Promise<number> {
    return new Promise((counted, failed) => {
      const adds = this.waiting.get(name) ?? []
      this.waiting.set(name, adds)
      adds.push({ window, counted, failed })
      this.next(name)
    })
  }

  /** Adds what waits on `name` (the first's window, and those after it of the same). */
  private next(name: string): void {
    const adds = this.waiting.get(name)
    if (this.running.has(name) || !adds) return
    const window = (adds[0] as Add).window
    let n = 1
    while (n < adds.length && (adds[n] as Add).window === window) n++
    const batch = adds.splice(0, n)
    if (adds.length === 0) this.waiting.delete(name)
    this.running.add(name)
    this.add(name, window, n)
      .then(
        (count) => {
          for (const [i, one] of batch.entries()) one.counted(count - n + 1 + i)
        },
        (error: unknown) => {
          for (const one of batch) one.failed(error)
        },
      )
      .finally(() => {
        this.running.delete(name)
        this.next(name)
      })
  }
}
