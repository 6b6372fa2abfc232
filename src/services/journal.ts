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

const rowId = (n: number) => `jrn_${n}`

/**
 * The request journal over the seam (see http/request-journal.ts for what it keeps). Adding
 * runs on every request, so it is one `putEphemeral` of the entry (evicting the entry
 * JOURNAL_CAPACITY requests older) and one of its capture (evicting the capture BODY_WINDOW
 * requests older): no transaction, no await, no new version. Reads walk the index of all
 * entries, or of the one partner asked for (what a partner's test suite reads), newest first.
 */
export class RequestJournal {
  private readonly state: State
  private readonly capacity: number
  private readonly bodyWindow: number
  private readonly onError: (error: unknown) => void
  /**
   * Requests journaled so far: entry n is row `jrn_<n>` (an engine shared by several
   * processes would number them with a sequence of its own).
   */
  private added = 0

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
    this.onError = s.onError ?? (() => {})
  }

  /** Journals an answered request; its capture is taken out of the entry and kept apart. */
  add(entry: JournalEntry): void {
    const n = this.added++
    const id = rowId(n)
    const capture = entry.capture
    entry.capture = undefined
    const stored: StoredEntry = entry
    const evicted = n >= this.capacity ? rowId(n - this.capacity) : undefined
    this.state
      .putEphemeral('request_journal', { id, seq: n, entry: stored }, evicted)
      .catch(this.onError)
    // A row even without a capture (the control plane's): its write evicts the older one.
    const aged = n >= this.bodyWindow ? rowId(n - this.bodyWindow) : undefined
    this.state
      .putEphemeral('request_captures', { id, capture: capture ?? null }, aged)
      .catch(this.onError)
  }

  /** The entries a filter by partner reads: that partner's only. */
  private newestFirst(partnerId: string | undefined): Promise<RequestJournalRow[]> {
    return partnerId
      ? this.state.range('journal_by_partner', partnerId, { reverse: true })
      : this.state.range('journal_all', '*', { reverse: true })
  }

  private async view(row: RequestJournalRow): Promise<JournalView> {
    const kept = await this.state.get('request_captures', row.id)
    return viewOf(row.entry, kept?.capture ?? undefined)
  }

  /** Newest first, redacted, with `has_more` when more entries matched than `limit`. */
  async list(
    filter: JournalFilter & { limit: number },
  ): Promise<{ data: JournalView[]; has_more: boolean }> {
    const matches = matcher(filter)
    const picked: RequestJournalRow[] = []
    let hasMore = false
    for (const row of await this.newestFirst(filter.partner_id)) {
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
    for (const row of await this.newestFirst(undefined))
      if (row.entry.id === requestId) return this.view(row)
    return undefined
  }

  async count(filter: JournalFilter): Promise<number> {
    const matches = matcher(filter)
    let count = 0
    for (const row of await this.newestFirst(filter.partner_id)) if (matches(row.entry)) count++
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
