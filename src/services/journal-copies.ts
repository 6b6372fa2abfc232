import type { Capture, ShownCapture, StoredEntry } from '../http/journal-entry.js'
import { showCapture } from '../http/journal-view.js'
import type { State } from '../state/seam.js'
import { type RequestJournalRow, seqOf } from '../store/records-journal.js'
import { BlockNumbers } from './block-numbers.js'

/** The shared counter of the journal's number blocks (state seam increment). */
const BLOCKS = 'journal:blocks'
const BLOCK_SIZE = 100

let lastStamp = 0
/** Microseconds of wall time, rising within this process: orders replicas' requests. */
function stamp(): string {
  const now = Math.floor((performance.timeOrigin + performance.now()) * 1000)
  lastStamp = Math.max(lastStamp + 1, now)
  return String(lastStamp).padStart(17, '0')
}

/** A request numbered and waiting for its batch to be written. */
interface Pending {
  n: number
  seq: string
  entry: StoredEntry
  shown: Promise<ShownCapture | null>
  written: () => void
}

/**
 * The request journal on an engine that keeps copies of its rows (PostgreSQL, as JSON) and
 * may be shared by replicas, where the memory engine keeps the objects themselves in one
 * process:
 * - a request's number (its slot in each ring) is unique among replicas (BlockNumbers over
 *   the state's shared counter), and its `seq` starts with the time it was answered, so the
 *   journal reads newest first whichever replica answered, and after a restart;
 * - a capture is kept as shown (redacted, bodies cut); the answer was read by the front
 *   door before it went out (readAnswerFirst);
 * - `add` resolves once the request is written, so the front door answers after that: a
 *   client that reads the journal after its answer, through any replica, finds its request,
 *   as it does in memory (`landed` does the same for a caller that did not wait);
 * - the requests are written as a database writes its log (group commit): one statement at a
 *   time, holding every request numbered while the one before was under way, entries and
 *   captures together. A request alone is written at once; under load one statement carries
 *   many. Batches go in number order, and the newest of a batch wins a slot it shares.
 */
export class JournalCopies {
  private readonly numbers: BlockNumbers
  private pending: Pending[] = []
  private writing: Promise<void> | undefined
  /** Settles once the newest request numbered so far is written. */
  private last: Promise<void> = Promise.resolve()

  constructor(
    private readonly state: State,
    private readonly entrySlots: string[],
    private readonly captureSlots: string[],
    private readonly onError: (error: unknown) => void,
  ) {
    this.numbers = new BlockNumbers(() => state.increment(BLOCKS, 0), BLOCK_SIZE, onError)
  }

  /** Resolves once written (a write that failed went to onError: the request stays answered). */
  add(entry: StoredEntry, capture: Capture | null): Promise<void> {
    const at = stamp()
    const shown = capture
      ? showCapture(capture).catch((error: unknown) => {
          this.onError(error)
          return null
        })
      : Promise.resolve(null)
    return new Promise((resolve) =>
      this.numbers.take((n) => {
        if (n === undefined) return resolve()
        this.last = new Promise((written) => {
          this.pending.push({ n, seq: `${at}.${seqOf(n)}`, entry, shown, written })
        })
        this.last.then(resolve)
        this.write()
      }),
    )
  }

  /** Every entry, newest first: one read of the ring (a page of it is no cheaper here). */
  async newestFirst(): Promise<RequestJournalRow[]> {
    const rows = await this.state.all('request_journal')
    return rows.sort((a, b) => (a.seq < b.seq ? 1 : a.seq > b.seq ? -1 : 0))
  }

  /** Once every write begun so far has landed (or failed, which onError heard). */
  async landed(): Promise<void> {
    await this.numbers.given()
    await this.last
  }

  /** Writes what is pending, unless a batch is under way (its end writes the next). */
  private write(): void {
    if (this.writing || this.pending.length === 0) return
    const batch = this.pending
    this.pending = []
    this.writing = this.put(batch)
      .catch(this.onError)
      .finally(() => {
        for (const one of batch) one.written()
        this.writing = undefined
        this.write()
      })
  }

  private async put(batch: Pending[]): Promise<void> {
    const captures = await Promise.all(batch.map((one) => one.shown))
    await this.state.putEphemerals(
      batch.flatMap(({ n, seq, entry }, i) => [
        {
          collection: 'request_journal' as const,
          row: {
            id: this.entrySlots[n % this.entrySlots.length] as string,
            seq,
            entry,
            partner_id: entry.partner_id,
          },
        },
        // A capture row even without a capture (the control plane's): it writes over the older.
        {
          collection: 'request_captures' as const,
          row: {
            id: this.captureSlots[n % this.captureSlots.length] as string,
            seq,
            capture: captures[i] ?? null,
          },
        },
      ]),
    )
  }
}
