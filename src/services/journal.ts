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
import {
  numberOf,
  type RequestCaptureRow,
  type RequestJournalRow,
  slotIds,
} from '../store/records-journal.js'
import { JournalCopies } from './journal-copies.js'
import { JournalRings } from './journal-rings.js'

/** A page longer than this reads the captures' ring at once, not a capture at a time. */
const ONE_BY_ONE = 50

/**
 * The request journal (see http/request-journal.ts for what it keeps): two rings, of
 * JOURNAL_CAPACITY entries and of BODY_WINDOW captures. Adding runs on every request. A
 * sandbox whose state no other process shares (memory: `inProcess`) keeps the rings in this
 * process's arrays (journal-rings.ts): nothing else reads them, and a row through the store
 * cost more than the rest of the journal. On a state shared by replicas (PostgreSQL) they are
 * the state's `request_journal` and `request_captures` rows, whose ids are their slots
 * (journal-copies.ts numbers and writes).
 * Either way a read filtered by partner (what a partner's test suite asks for) walks only that
 * partner's entries; the others walk the ring from the newest request back.
 */
export class RequestJournal {
  private readonly state: State
  private readonly captureSlots: string[]
  /** The rings kept in this process's memory (memory)... */
  private readonly rings: JournalRings | undefined
  /** ...or the journal as rows of an engine shared by replicas (PostgreSQL). */
  private readonly copies: JournalCopies | undefined

  constructor(s: {
    state: State
    /** No other process reads this state (the memory engine): keep the rings in memory. */
    inProcess?: boolean
    capacity?: number
    bodyWindow?: number
    /** A write the engine refused (a database gone): the request was answered all the same. */
    onError?: (error: unknown) => void
  }) {
    this.state = s.state
    const capacity = s.capacity ?? JOURNAL_CAPACITY
    const bodyWindow = Math.min(s.bodyWindow ?? BODY_WINDOW, capacity)
    this.captureSlots = slotIds(bodyWindow)
    this.rings = s.inProcess ? new JournalRings(capacity, bodyWindow) : undefined
    this.copies = this.rings
      ? undefined
      : new JournalCopies(this.state, slotIds(capacity), this.captureSlots, s.onError ?? (() => {}))
  }

  /**
   * The journal is written before the answer goes out (rows of an engine shared by replicas):
   * the caller reads the answer first (readAnswerFirst), so that `add` never reads the
   * response the server is about to send.
   */
  get writesFirst(): boolean {
    return this.copies !== undefined
  }

  /**
   * Journals an answered request; its capture is taken out of the entry and kept apart. On an
   * engine that keeps copies, the promise of the written request (never rejected): the front
   * door answers after it.
   */
  add(entry: JournalEntry): Promise<void> | undefined {
    const capture = entry.capture ?? null
    entry.capture = undefined
    const stored: StoredEntry = entry
    if (this.copies) return this.copies.add(stored, capture)
    this.rings?.add(stored, capture)
    return undefined
  }

  /** Once this process's writes so far can be read (at once in memory). */
  private async landed(): Promise<void> {
    await this.copies?.landed()
  }

  /**
   * Newest first, read as far as the caller goes: in memory from the rings (a partner's
   * through its request numbers), else a partner's through its index, or every row.
   */
  private async *newestFirst(partnerId: string | undefined): AsyncGenerator<RequestJournalRow> {
    if (this.rings) {
      yield* this.rings.newestFirst(partnerId)
      return
    }
    if (partnerId) {
      yield* await this.state.range('journal_by_partner', partnerId, { reverse: true })
      return
    }
    if (this.copies) yield* await this.copies.newestFirst()
  }

  /** `captures`: the whole ring, read once for a long page (each a query on a database). */
  private async view(
    row: RequestJournalRow,
    captures?: Map<string, RequestCaptureRow>,
  ): Promise<JournalView> {
    const n = numberOf(row.seq)
    let capture: Capture | ShownCapture | null
    if (this.rings) capture = this.rings.captureOf(row.seq, n)
    else {
      const slot = this.captureSlots[n % this.captureSlots.length] as string
      const kept = captures ? captures.get(slot) : await this.state.get('request_captures', slot)
      capture = kept?.seq === row.seq ? kept.capture : null
    }
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
    const captures =
      picked.length > ONE_BY_ONE && !this.rings
        ? new Map((await this.state.all('request_captures')).map((row) => [row.id, row]))
        : undefined
    const data = await Promise.all(picked.map((row) => this.view(row, captures)))
    return { data, has_more: hasMore }
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
    if (this.rings) return this.rings.count(filter.partner_id, matches)
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
    if (this.rings) return this.rings.clear()
    await this.landed()
    return this.state.transaction(async (tx) => {
      for (const row of await tx.all('request_journal')) tx.remove('request_journal', row.id)
      for (const row of await tx.all('request_captures')) tx.remove('request_captures', row.id)
    })
  }
}

const isLive = (capture: Capture | ShownCapture): capture is Capture => 'requestHeaders' in capture
