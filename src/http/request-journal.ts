import { routeMatches } from '../scenarios/faults.js'
import type { Capture, JournalView } from './journal-view.js'
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

export interface JournalEntry {
  id: string
  /** Sandbox time, epoch ms (made ISO when read). */
  at: number
  method: string
  path: string
  status: number
  duration_ms: number
  partner_id: string | null
  scenario: string | null
  fault: {
    type: 'latency' | 'error' | 'drop_connection'
    latency_ms?: number
    status?: number
    rule: string
  } | null
  /** Headers and bodies, dropped once the entry is older than BODY_WINDOW requests. */
  capture: Capture | undefined
}

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

/** A ring buffer: adding is O(1) however full it is (it runs on every request). */
export class RequestJournal {
  private entries: (JournalEntry | undefined)[]
  private next = 0
  private size = 0

  constructor(
    private readonly capacity = JOURNAL_CAPACITY,
    private readonly bodyWindow = Math.min(BODY_WINDOW, capacity),
  ) {
    this.entries = new Array(capacity)
  }

  add(entry: JournalEntry): void {
    this.entries[this.next] = entry
    const aged = this.entries[(this.next - this.bodyWindow + this.capacity) % this.capacity]
    if (aged && aged !== entry) aged.capture = undefined
    this.next = (this.next + 1) % this.capacity
    if (this.size < this.capacity) this.size++
  }

  private *newestFirst(): Generator<JournalEntry> {
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
    for (const e of this.newestFirst()) {
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
    for (const e of this.newestFirst()) if (matches(e)) count++
    return count
  }

  clear(): void {
    this.entries = new Array(this.capacity)
    this.next = 0
    this.size = 0
  }
}
