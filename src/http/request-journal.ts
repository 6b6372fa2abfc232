import { routeMatches } from '../scenarios/faults.js'
import type { JournalEntry } from './journal-entry.js'
import type { JournalView } from './journal-view.js'
import { viewOf } from './journal-view.js'

/**
 * The request journal (`GET /_sandbox/requests`): every request with its partner, status,
 * duration, scenario, injected fault, headers and bodies, newest first. In memory and
 * bounded: the newest JOURNAL_CAPACITY requests, of which the newest BODY_WINDOW keep their
 * headers and bodies. Capture only keeps references (it runs on every request); redaction
 * and serialization happen when the journal is read (journal-view.ts).
 */
export const JOURNAL_CAPACITY = 5000
export const BODY_WINDOW = 1000

export interface JournalFilter {
  partner_id?: string
  method?: string
  /** Exact path; `*` matches any run of characters. */
  path?: string
  status?: number
  faulted?: boolean
}

const matcher = (filter: JournalFilter) => {
  const path = filter.path
  return (e: JournalEntry) =>
    (!filter.partner_id || e.partner_id === filter.partner_id) &&
    (!filter.method || e.method === filter.method) &&
    (!filter.status || e.status === filter.status) &&
    (!path || routeMatches(path, e.method, e.path)) &&
    (filter.faulted === undefined || (e.fault !== null) === filter.faulted)
}

/**
 * A ring buffer: adding is O(1) however full it is (it runs on every request). Each partner's
 * entries are also listed by their place in the ring, so a read filtered by partner (what a
 * partner's test suite asks for) walks only that partner's entries.
 */
export class RequestJournal {
  private entries: (JournalEntry | undefined)[]
  private next = 0
  private size = 0
  /** Requests added so far: entry n sits at n % capacity while it is among the newest. */
  private added = 0
  /** Per partner, the numbers of its entries still in the ring, oldest first. */
  private readonly byPartner = new Map<string, number[]>()

  constructor(
    private readonly capacity = JOURNAL_CAPACITY,
    private readonly bodyWindow = Math.min(BODY_WINDOW, capacity),
  ) {
    this.entries = new Array(capacity)
  }

  add(entry: JournalEntry): void {
    const evicted = this.entries[this.next]
    if (evicted?.partner_id != null) {
      // The oldest entry overall is the oldest of its partner's too.
      const mine = this.byPartner.get(evicted.partner_id)
      mine?.shift()
      if (mine?.length === 0) this.byPartner.delete(evicted.partner_id)
    }
    if (entry.partner_id !== null) {
      const mine = this.byPartner.get(entry.partner_id)
      if (mine) mine.push(this.added)
      else this.byPartner.set(entry.partner_id, [this.added])
    }
    this.added++
    this.entries[this.next] = entry
    const aged = this.entries[(this.next - this.bodyWindow + this.capacity) % this.capacity]
    if (aged && aged !== entry) aged.capture = undefined
    this.next = (this.next + 1) % this.capacity
    if (this.size < this.capacity) this.size++
  }

  private *newestFirst(partnerId?: string): Generator<JournalEntry> {
    if (partnerId) {
      const mine = this.byPartner.get(partnerId) ?? []
      for (let i = mine.length - 1; i >= 0; i--)
        yield this.entries[(mine[i] as number) % this.capacity] as JournalEntry
      return
    }
    for (let n = 1; n <= this.size; n++) {
      yield this.entries[(this.next - n + this.capacity) % this.capacity] as JournalEntry
    }
  }

  /** Newest first, redacted, with `has_more` when more entries matched than `limit`. */
  async list(
    filter: JournalFilter & { limit: number },
  ): Promise<{ data: JournalView[]; has_more: boolean }> {
    const matches = matcher(filter)
    const picked: JournalEntry[] = []
    let hasMore = false
    for (const e of this.newestFirst(filter.partner_id)) {
      if (!matches(e)) continue
      if (picked.length === filter.limit) {
        hasMore = true
        break
      }
      picked.push(e)
    }
    return { data: await Promise.all(picked.map(viewOf)), has_more: hasMore }
  }

  /** One entry by its request id, redacted, or undefined when it left the journal. */
  async find(id: string): Promise<JournalView | undefined> {
    for (const e of this.newestFirst()) if (e.id === id) return viewOf(e)
    return undefined
  }

  count(filter: JournalFilter): number {
    const matches = matcher(filter)
    let count = 0
    for (const e of this.newestFirst(filter.partner_id)) if (matches(e)) count++
    return count
  }

  clear(): void {
    this.entries = new Array(this.capacity)
    this.next = 0
    this.size = 0
    this.byPartner.clear()
  }
}
