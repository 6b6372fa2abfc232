import type { Capture, StoredEntry } from '../http/journal-entry.js'
import { type RequestJournalRow, seqOf, slotIds } from '../store/records-journal.js'

/**
 * The request journal as a sandbox on the memory engine keeps it (RequestJournal's
 * `inProcess`): two rings held in plain arrays (the newest `capacity` entries, the newest
 * `bodyWindow` captures), and each partner's request numbers, so a partner's page reads only
 * that partner's entries. Only this process ever reads them: no other process shares the
 * memory state, and the journal is never journaled or snapshotted.
 *
 * Not rows of the store: each request put two rows through the store's generic machinery (row
 * maps of 5,000 ids, index upkeep, key versions), which measured 20 us of CPU a request in the
 * served CLI (docs/performance.md) for what a slot of an array keeps as well. A state that
 * replicas share (PostgreSQL) has no rings: the journal is its `request_journal` and
 * `request_captures` rows (journal-copies.ts).
 */
export class JournalRings {
  private readonly entries: (RequestJournalRow | undefined)[]
  private readonly captures: ({ seq: string; capture: Capture | null } | undefined)[]
  /**
   * Each partner's request numbers, oldest first, from `head` on: only those still in the
   * entries' ring are read (`live`). Emptied of the older ones when a partner's list is read,
   * and all of them once a ring's worth of requests went by (`sweep`), so the lists hold a
   * few rings' worth of numbers at most, however many partners came and went.
   */
  private readonly byPartner = new Map<string, { numbers: number[]; head: number }>()
  /** Requests journaled so far: request n is in slot n % size of each ring. */
  private added = 0
  /** Requests before this number were cleared. */
  private cleared = 0
  /** The request count at the last sweep of `byPartner`. */
  private swept = 0

  /** The entries' row ids, by slot: as the state's rows are named (`jrn_<slot>`). */
  private readonly entrySlots: readonly string[]

  constructor(
    readonly capacity: number,
    readonly bodyWindow: number,
  ) {
    this.entrySlots = slotIds(capacity)
    this.entries = new Array(capacity).fill(undefined)
    this.captures = new Array(bodyWindow).fill(undefined)
  }

  add(entry: StoredEntry, capture: Capture | null): void {
    const n = this.added++
    const seq = seqOf(n)
    this.entries[n % this.capacity] = {
      id: this.entrySlots[n % this.capacity] as string,
      seq,
      partner_id: entry.partner_id,
      entry,
    }
    // A row even without a capture (the control plane's): it writes over the older one.
    this.captures[n % this.bodyWindow] = { seq, capture }
    if (entry.partner_id !== null) {
      let own = this.byPartner.get(entry.partner_id)
      if (!own) {
        own = { numbers: [], head: 0 }
        this.byPartner.set(entry.partner_id, own)
      }
      own.numbers.push(n)
    }
    if (this.added - this.swept >= this.capacity) this.sweep()
  }

  /**
   * Newest first; a partner's only with `partnerId`. A reader that waits between entries may
   * see requests added meanwhile take the oldest slots: it stops where the ring no longer
   * holds the request it came to.
   */
  *newestFirst(partnerId: string | undefined): Generator<RequestJournalRow> {
    if (partnerId === undefined) {
      for (let n = this.added - 1; n >= this.oldest(); n--) {
        const row = this.entryOf(n)
        if (row) yield row
      }
      return
    }
    const own = this.live(partnerId)
    if (!own) return
    for (let i = own.numbers.length - 1; i >= own.head; i--) {
      const n = own.numbers[i] as number
      // Cleared (or gone) since: so is everything older.
      if (n < this.oldest()) return
      const row = this.entryOf(n)
      if (row) yield row
    }
  }

  /** The capture kept with the request of `seq`, while it is among the newest bodyWindow. */
  captureOf(seq: string, n: number): Capture | null {
    const kept = this.captures[n % this.bodyWindow]
    return kept?.seq === seq ? kept.capture : null
  }

  /** Entries in the ring, or the partner's (any order). */
  count(partnerId: string | undefined, matches: (entry: StoredEntry) => boolean): number {
    let count = 0
    for (const row of this.newestFirst(partnerId)) if (matches(row.entry)) count++
    return count
  }

  /** Empties both rings (`DELETE /_sandbox/requests`); numbers go on from where they were. */
  clear(): void {
    this.entries.fill(undefined)
    this.captures.fill(undefined)
    this.byPartner.clear()
    this.cleared = this.added
  }

  /** The oldest request number still in the entries' ring. */
  private oldest(): number {
    return Math.max(this.cleared, this.added - this.capacity)
  }

  /** Request n's entry, unless a newer request took its slot. */
  private entryOf(n: number): RequestJournalRow | undefined {
    const row = this.entries[n % this.capacity]
    return row?.seq === seqOf(n) ? row : undefined
  }

  /** A partner's list without the numbers that left the ring (undefined once none is left). */
  private live(partnerId: string) {
    const own = this.byPartner.get(partnerId)
    if (!own) return undefined
    const oldest = this.oldest()
    while (own.head < own.numbers.length && (own.numbers[own.head] as number) < oldest) own.head++
    if (own.head === own.numbers.length) {
      this.byPartner.delete(partnerId)
      return undefined
    }
    if (own.head > 64 && own.head * 2 > own.numbers.length) {
      own.numbers = own.numbers.slice(own.head)
      own.head = 0
    }
    return own
  }

  /** Every partner's list without the numbers that left the ring; empty lists go. */
  private sweep(): void {
    this.swept = this.added
    for (const partnerId of [...this.byPartner.keys()]) this.live(partnerId)
  }
}
