import type { JournalEntry, StoredEntry } from '../http/journal-entry.js'
import {
  type ContentFilter,
  countJournal,
  searchJournal,
  type VerifyCriteria,
  verifyRequests,
} from '../http/journal-search.js'
import { type JournalView, viewOf } from '../http/journal-view.js'
import {
  BODY_WINDOW,
  JOURNAL_CAPACITY,
  type JournalFilter,
  matcher,
} from '../http/request-journal.js'
import type { State } from '../state/seam.js'
import type { RequestJournalRow } from '../store/records-journal.js'

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
  /**
   * Requests journaled so far: request n goes to slot n % size of each ring (an engine shared
   * by several processes would number them with a sequence of its own).
   */
  private added = 0
  /** The last write's promise, already given the error handler (see `watch`). */
  private watched: Promise<void> | undefined

  constructor(s: {
    state: State
    capacity?: number
    bodyWindow?: number
    /** A write the engine refused (a database gone): the request was answered all the same. */
    onError?: (error: unknown) => void
  }) {
    this.state = s.state
    this.capacity = s.capacity ?? JOURNAL_CAPACITY
    this.bodyWindow = Math.min(s.bodyWindow ?? BODY_WINDOW, this.capacity)
    this.entrySlots = slotIds(this.capacity)
    this.captureSlots = slotIds(this.bodyWindow)
    this.onError = s.onError ?? (() => {})
  }

  /** Journals an answered request; its capture is taken out of the entry and kept apart. */
  add(entry: JournalEntry): void {
    const n = this.added++
    const seq = seqOf(n)
    const capture = entry.capture ?? null
    entry.capture = undefined
    const stored: StoredEntry = entry
    const { state } = this
    const id = this.entrySlots[n % this.capacity] as string
    this.watch(state.putEphemeral('request_journal', { id, seq, entry: stored }))
    // A row even without a capture (the control plane's): it writes over the older one.
    const slot = this.captureSlots[n % this.bodyWindow] as string
    this.watch(state.putEphemeral('request_captures', { id: slot, seq, capture }))
  }

  /**
   * Hands a write's refusal to `onError`. The memory engine answers every write it applied
   * with one settled promise, which needs its handler once: a `.catch` per write was a new
   * promise and a microtask on every request, twice.
   */
  private watch(written: Promise<void>): void {
    if (written === this.watched) return
    this.watched = written
    written.catch(this.onError)
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
    return viewOf(row.entry, (kept?.seq === row.seq && kept.capture) || undefined)
  }

  /** Newest first, redacted, with `has_more` when more entries matched than `limit`. */
  async list(
    filter: JournalFilter & { limit: number },
  ): Promise<{ data: JournalView[]; has_more: boolean }> {
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
    for await (const row of this.newestFirst(undefined))
      if (row.entry.id === requestId) return this.view(row)
    return undefined
  }

  async count(filter: JournalFilter): Promise<number> {
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
  clear(): Promise<void> {
    return this.state.transaction(async (tx) => {
      for (const row of await tx.all('request_journal')) tx.remove('request_journal', row.id)
      for (const row of await tx.all('request_captures')) tx.remove('request_captures', row.id)
    })
  }
}
