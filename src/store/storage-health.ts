import { type StorageError, storageError } from './storage-error.js'

/**
 * Whether the data file takes writes, for GET /_sandbox/health and the log. A refused write
 * (store.ts) marks writes as failing until one is taken again; while they fail, each look asks
 * the disk again with a write of the size that failed (written and cut off again), so the
 * health check clears by itself once space returns, even with no write coming (a load balancer
 * that stops sending traffic to a failing check would otherwise never see it clear).
 */

/** What keeps the data file from doing its job now. */
export interface StorageProblem {
  message: string
  /** Writes are answered 507 (else only compaction waits, and every write is kept). */
  refusingWrites: boolean
}

/**
 * The largest write a look makes: a refused restore may have been megabytes, and the health
 * check is open to anyone. A larger write may be refused again, and then says so again.
 */
const PROBE_MAX_BYTES = 64 * 1024

export class StorageHealth {
  private refused?: { error: StorageError; bytes: number }
  private compaction?: StorageError

  constructor(
    private readonly path: string,
    private readonly warn: (message: string) => void = () => {},
  ) {}

  /** A write of `bytes` was refused. */
  writeFailed(error: StorageError, bytes: number): void {
    if (!this.refused) this.warn(`writes are refused (507) from now: ${error.why}`)
    this.refused = { error, bytes }
  }

  /** A write was taken. */
  wrote(): void {
    if (!this.refused) return
    this.refused = undefined
    this.warn('the data file takes writes again')
  }

  compactionFailed(error: unknown): void {
    const failure = storageError(error, this.path)
    this.warn(`compaction could not write a new snapshot (every write is kept): ${failure.why}`)
    this.compaction = failure
  }

  compacted(): void {
    this.compaction = undefined
  }

  /**
   * The problem there is, writes first, once `probe` (a write of the size that failed, which
   * throws a StorageError while the disk cannot take it) was tried again.
   */
  problem(probe: (bytes: number) => void): StorageProblem | undefined {
    const refused = this.refused
    if (refused) {
      try {
        probe(Math.min(refused.bytes, PROBE_MAX_BYTES))
        this.wrote()
      } catch (error) {
        this.refused = { error: storageError(error, this.path), bytes: refused.bytes }
      }
    }
    if (this.refused) {
      return {
        message: `writes are refused (507): ${this.refused.error.why}; they are taken again by themselves once it can take them`,
        refusingWrites: true,
      }
    }
    if (this.compaction) {
      return {
        message: `compaction could not write a new snapshot: ${this.compaction.why}; the journal keeps every write until it can`,
        refusingWrites: false,
      }
    }
    return undefined
  }
}
