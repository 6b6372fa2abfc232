/**
 * Numbers unique among every process sharing the state, handed out in call order without an
 * await: taken a block at a time from a shared counter (block k holds (k-1)·size to k·size-1),
 * the next block asked for while half of the last one is left. A number asked for while none
 * is left is given, in turn, as soon as the next block comes (undefined if it cannot be had).
 */
export class BlockNumbers {
  /** [next, end) of each block held. */
  private readonly blocks: [number, number][] = []
  private readonly waiting: ((n: number | undefined) => void)[] = []
  private reserving: Promise<void> | undefined

  constructor(
    /** Counts one more block and answers the count (1 for the first). */
    private readonly reserve: () => number | Promise<number>,
    private readonly size: number,
    /** A block that could not be had: the numbers waiting for it are given as undefined. */
    private readonly onError: (error: unknown) => void,
  ) {
    this.fill()
  }

  /** Calls `use` with the next number: at once, or when the next block comes. */
  take(use: (n: number | undefined) => void): void {
    const n = this.waiting.length === 0 ? this.shift() : undefined
    if (n !== undefined) {
      use(n)
      return
    }
    this.waiting.push(use)
    this.fill()
  }

  /** Resolves once every number asked for so far was given (or given up on). */
  async given(): Promise<void> {
    while (this.waiting.length > 0 && this.reserving) await this.reserving
  }

  private shift(): number | undefined {
    const block = this.blocks[0]
    if (!block) return undefined
    const n = block[0]++
    if (block[0] === block[1]) this.blocks.shift()
    if (this.left() < this.size / 2) this.fill()
    return n
  }

  private left(): number {
    let left = 0
    for (const [next, end] of this.blocks) left += end - next
    return left
  }

  private fill(): void {
    if (this.reserving) return
    this.reserving = Promise.resolve()
      .then(this.reserve)
      .then(
        (k) => {
          this.blocks.push([(k - 1) * this.size, k * this.size])
          while (this.waiting.length > 0) {
            const n = this.shift()
            if (n === undefined) break
            this.waiting.shift()?.(n)
          }
        },
        (error: unknown) => {
          this.onError(error)
          for (const use of this.waiting.splice(0)) use(undefined)
        },
      )
      .finally(() => {
        this.reserving = undefined
        if (this.waiting.length > 0) this.fill()
      })
  }
}
