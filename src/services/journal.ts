import type { Capture, JournalEntry, ShownCapture, StoredEntry } from '../http/journal-entry.js'
import {
  type ContentFilter,
  countJournal,
  searchJournal,
  type VerifyCriteria,
  verifyRequests,
} from '../http/journal-search.js'
import { type JournalView, showCapture, viewOf } from '../http/journal-view.js'
import {
  BODY_WINDOW,
  JOURNAL_CAPACITY,
  type JournalFilter,
  matcher,
} from '../http/request-journal.js'
import type { State } from '../state/seam.js'
import type { RequestJournalRow } from '../store/records-journal.js'
import { JournalCopies } from './journal-copies.js'

/** The row ids of a ring's slots, made once: a string a write reuses is hashed once. */
const slotIds = (size: number) => Array.from({ length: size }, (_, slot) => `jrn_${slot}`)
/** Zero-padded: sorts as the number does. */
const seqOf = (n: number) => String(n).padStart(15, '0')

/**
 * The request journal over the seam (see http/request-journal.ts for what it keeps): two
 * rings, of JOURNAL_CAPACITY entries and of BODY_WINDOW captures, whose row ids are their
 * slots. Adding runs on every request, so it is one `putEphemeral` into each ring, over its
 * oldest row: no transaction, no await, no new version, no row removed, one index kept (by
 * partner). A read filtered by partner (what a partner's test suite asks for) walks only that
 * partner's entries; the others sort the ring by `seq`.
 */
export class RequestJournal {
  private readonly state: State
  private readonly capacity: number
  private readonly bodyWindow: number
  private readonly entrySlots: string[]
  private readonly captureSlots: string[]
  private readonly onError: (error: unknown) => void
  /** How rows are written on an engine that keeps copies of them (none in memory). */
  private readonly copies: JournalCopies | undefined
  /**
   * Requests journaled so far: request n goes to slot n % size of each ring (an engine shared
   * by several processes would number them with a sequence of its own).
   */
  private added = 0

  constructor(s: {
    state: State
    capacity?: number
    bodyWindow?: number
    /** A write the engine refused (a database gone): the request was answered all the same. */
    onError?: (error: unknown) => void
    /**
     * The engine keeps copies of its rows (PostgreSQL: JSON), not the objects put: a capture
     * is kept as shown (read once its response went out), and a read first waits for this
     * process's journal writes still on their way, so a client that reads the journal after
     * its answer finds its request there, as it does in memory.
     */
    copies?: boolean
  }) {
    this.state = s.state
    this.capacity = s.capacity ?? JOURNAL_CAPACITY
    this.bodyWindow = Math.min(s.bodyWindow ?? BODY_WINDOW, this.capacity)
    this.entrySlots = slotIds(this.capacity)
    this.captureSlots = slotIds(this.bodyWindow)
    this.onError = s.onError ?? (() => {})
    this.copies = s.copies ? new JournalCopies(this.state, this.onError) : undefined
  }

  /** Journals an answered request; its capture is taken out of the entry and kept apart. */
  add(entry: JournalEntry): void {
    const n = this.added++
    const seq = seqOf(n)
    const capture = entry.capture ?? null
    entry.capture = undefined
    const stored: StoredEntry = entry
    const { state, onError } = this
    const id = this.entrySlots[n % this.capacity] as string
    // A row even without a capture (the control plane's): it writes over the older one.
    const slot = this.captureSlots[n % this.bodyWindow] as string
    if (this.copies) {
      this.copies.entry({ id, seq, entry: stored })
      this.copies.capture(slot, n, seq, capture)
      return
    }
    state.putEphemeral('request_journal', { id, seq, entry: stored }).catch(onError)
    state.putEphemeral('request_captures', { id: slot, seq, capture }).catch(onError)
  }

  /** Once this process's writes so far can be read (at once in memory). */
  private async landed(): Promise<void> {
    await this.copies?.landed()
  }

  /**
   * Newest first, read as far as the caller goes: a partner's through its index, else the
   * ring's slots from the newest request back (a slot emptied by `clear`, or written over by
   * a newer request meanwhile, is skipped: its `seq` is not the one that request had).
   */
  private async *newestFirst(partnerId: string | undefined): AsyncGenerator<RequestJournalRow> {
    if (partnerId) {
      yield* await this.state.range('journal_by_partner', partnerId, { reverse: true })
      return
    }
    const oldest = Math.max(0, this.added - this.capacity)
    for (let n = this.added - 1; n >= oldest; n--) {
      const row = await this.state.get(
        'request_journal',
        this.entrySlots[n % this.capacity] as string,
      )
      if (row?.seq === seqOf(n)) yield row
    }
  }

  private async view(row: RequestJournalRow): Promise<JournalView> {
    const slot = this.captureSlots[Number(row.seq) % this.bodyWindow] as string
    const kept = await this.state.get('request_captures', slot)
    const capture = kept?.seq === row.seq ? kept.capture : null
    if (!capture) return viewOf(row.entry, undefined)
    return viewOf(row.entry, isLive(capture) ? await showCapture(capture) : capture)
  }

  /** Newest first, redacted, with `has_more` when more entries matched than `limit`. */
  async list(
    filter: JournalFilter & { limit: number },
  ): Promise<{ data: JournalView[]; has_more: boolean }> {
    await this.landed()
    const matches = matcher(filter)
    const picked: RequestJournalRow[] = []
    let hasMore = false
    for await (const row of this.newestFirst(filter.partner_id)) {
      if (!matches(row.entry)) continue
      if (picked.length === filter.limit) {
        hasMore = true
        break
      }
      picked.push(row)
    }
    return { data: await Promise.all(picked.map((row) => this.view(row))), has_more: hasMore }
  }

  /** One entry by its request id (the newest with it), redacted; undefined once it left. */
  async find(requestId: string): Promise<JournalView | undefined> {
    await this.landed()
    for await (const row of this.newestFirst(undefined))
      if (row.entry.id === requestId) return this.view(row)
    return undefined
  }

  async count(filter: JournalFilter): Promise<number> {
    await this.landed()
    const matches = matcher(filter)
    // Order does not matter here: the partner's rows, or every row as the engine holds them.
    const rows = filter.partner_id
      ? await this.state.lookup('journal_by_partner', filter.partner_id)
      : await this.state.all('request_journal')
    let count = 0
    for (const row of rows) if (matches(row.entry)) count++
    return count
  }

  /** The plain filters, then the content ones (query, headers, body) on what the views show. */
  search(filter: JournalFilter, content: ContentFilter, limit: number) {
    return searchJournal(this, filter, content, limit)
  }

  countMatching(filter: JournalFilter, content: ContentFilter): Promise<number> {
    return countJournal(this, filter, content)
  }

  /** Did the requests happen? With near misses when none did (journal-search.ts). */
  verify(criteria: VerifyCriteria) {
    return verifyRequests(this, criteria)
  }

  /** Empties the journal (`DELETE /_sandbox/requests`). */
  async clear(): Promise<void> {
    await this.landed()
    return this.state.transaction(async (tx) => {
      for (const row of await tx.all('request_journal')) tx.remove('request_journal', row.id)
      for (const row of await tx.all('request_captures')) tx.remove('request_captures', row.id)
    })
  }
}

const isLive = (capture: Capture | ShownCapture): capture is Capture => 'requestHeaders' in capture
