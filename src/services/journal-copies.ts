import type { Capture, ShownCapture } from '../http/journal-entry.js'
import { responseSent, showCapture } from '../http/journal-view.js'
import type { State } from '../state/seam.js'
import type { RequestJournalRow } from '../store/records-journal.js'

/**
 * The request journal's writes on an engine that keeps copies of its rows (PostgreSQL, as
 * JSON), where the memory engine keeps the objects themselves:
 * - a capture is kept as shown (redacted, its bodies read), once its response went out;
 * - a ring's slot is written in request order: a write waits for the slot's previous one
 *   (the pool may run two statements in either order), and a capture whose slot a newer
 *   request took meanwhile is not written at all;
 * - `landed` resolves once every write begun so far has, so a client that reads the journal
 *   after its answer finds its request there, as it does in memory.
 */
export class JournalCopies {
  private readonly inFlight = new Set<Promise<void>>()
  private readonly entryWrites = new Map<string, Promise<void>>()
  private readonly captureWrites = new Map<string, Promise<void>>()
  /** The request whose capture each slot is for. */
  private readonly captureOwner = new Map<string, number>()

  constructor(
    private readonly state: State,
    private readonly onError: (error: unknown) => void,
  ) {}

  entry(row: RequestJournalRow): void {
    this.track(
      inOrder(this.entryWrites, row.id, () => this.state.putEphemeral('request_journal', row)),
    )
  }

  /** Request `n`'s capture into `slot` (a row even without one: it writes over the older). */
  capture(slot: string, n: number, seq: string, capture: Capture | null): void {
    this.captureOwner.set(slot, n)
    const write = (shown: Promise<ShownCapture | null>) =>
      this.track(
        inOrder(this.captureWrites, slot, async () => {
          const kept = await shown
          if (this.captureOwner.get(slot) !== n) return
          await this.state.putEphemeral('request_captures', { id: slot, seq, capture: kept })
        }),
      )
    if (!capture) write(Promise.resolve(null))
    // Tracked from the moment the response went out: a client reads the journal after that.
    else void responseSent(capture).then(() => write(showCapture(capture)))
  }

  /** Once every write begun so far has landed (or failed, which onError heard). */
  async landed(): Promise<void> {
    if (this.inFlight.size > 0) await Promise.all([...this.inFlight])
  }

  private track(write: Promise<void>): void {
    const kept: Promise<void> = write.catch(this.onError).finally(() => this.inFlight.delete(kept))
    this.inFlight.add(kept)
  }
}

/** Runs `write` after the previous write of `slot` settled; the last one is forgotten. */
function inOrder(
  writes: Map<string, Promise<void>>,
  slot: string,
  write: () => Promise<void>,
): Promise<void> {
  const previous = writes.get(slot)
  const next = previous ? previous.then(write, write) : write()
  writes.set(slot, next)
  const forget = () => {
    if (writes.get(slot) === next) writes.delete(slot)
  }
  next.then(forget, forget)
  return next
}
