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

/**
 * The request journal on an engine that keeps copies of its rows (PostgreSQL, as JSON) and
 * may be shared by replicas, where the memory engine keeps the objects themselves in one
 * process:
 * - a request's number (its slot in each ring) is unique among replicas (BlockNumbers over
 *   the state's shared counter), and its `seq` starts with the time it was answered, so the
 *   journal reads newest first whichever replica answered, and after a restart;
 * - a capture is kept as shown (redacted; a plain JSON answer's body from the text it was
 *   made of, any other's read from a copy of the response);
 * - `add` resolves once the request is written, so the front door answers after that: a
 *   client that reads the journal after its answer, through any replica, finds its request,
 *   as it does in memory (`landed` does the same for a caller that did not wait);
 * - a request's entry and capture are written in one statement, and a ring's slot in request
 *   order: a write waits for its slots' previous ones (a later request's capture may be
 *   shown, and so ready to write, before an earlier one's).
 */
export class JournalCopies {
  private readonly numbers: BlockNumbers
  private readonly inFlight = new Set<Promise<void>>()
  private readonly entryWrites = new Map<string, Promise<void>>()
  private readonly captureWrites = new Map<string, Promise<void>>()

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
    // The server's own response is read from a copy now: it goes out once this resolves.
    if (capture?.served) capture.response = capture.response.clone()
    const shown = capture
      ? showCapture(capture).catch((error: unknown) => {
          this.onError(error)
          return null
        })
      : Promise.resolve(null)
    return new Promise((resolve) =>
      this.numbers.take((n) => {
        if (n === undefined) return resolve()
        this.write(n, `${at}.${seqOf(n)}`, entry, shown).then(() => resolve())
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
    if (this.inFlight.size > 0) await Promise.all([...this.inFlight])
  }

  private write(
    n: number,
    seq: string,
    entry: StoredEntry,
    shown: Promise<ShownCapture | null>,
  ): Promise<unknown> {
    const id = this.entrySlots[n % this.entrySlots.length] as string
    // A capture row even without a capture (the control plane's): it writes over the older.
    const slot = this.captureSlots[n % this.captureSlots.length] as string
    // Both rows in one statement: one round trip a request, not two.
    return this.track(
      inOrder(
        [
          [this.entryWrites, id],
          [this.captureWrites, slot],
        ],
        async () => {
          const capture = await shown
          await this.state.putEphemerals([
            {
              collection: 'request_journal',
              row: { id, seq, partner_id: entry.partner_id, entry },
            },
            { collection: 'request_captures', row: { id: slot, seq, capture } },
          ])
        },
      ),
    )
  }

  /** The write, never rejecting (its failure goes to onError), until it settles. */
  private track(write: Promise<void>): Promise<void> {
    const kept: Promise<void> = write.catch(this.onError).finally(() => this.inFlight.delete(kept))
    this.inFlight.add(kept)
    return kept
  }
}

/**
 * Runs `write` after the previous writes of its slots settled (a slot of each ring); the last
 * write of a slot is forgotten once it settled.
 */
function inOrder(
  slots: [Map<string, Promise<void>>, string][],
  write: () => Promise<void>,
): Promise<void> {
  const previous = slots.flatMap(([writes, slot]) => writes.get(slot) ?? [])
  const next = previous.length === 0 ? write() : Promise.allSettled(previous).then(() => write())
  for (const [writes, slot] of slots) {
    writes.set(slot, next)
    const forget = () => {
      if (writes.get(slot) === next) writes.delete(slot)
    }
    next.then(forget, forget)
  }
  return next
}
