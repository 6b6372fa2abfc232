import { pathMatches } from '../domain/request-match.js'
import type { StoredEntry } from './journal-entry.js'
import type { JournalView } from './journal-view.js'

/**
 * The request journal (`GET /_sandbox/requests`): every request with its partner, status,
 * duration, scenario, the rules it met, headers and bodies, newest first. Ephemeral state (the
 * memory engine's arrays, or the seam's `request_journal` and `request_captures` on an engine
 * shared by replicas: see services/journal.ts) and bounded: the
 * newest JOURNAL_CAPACITY requests, of which the newest BODY_WINDOW keep their headers and
 * bodies. Capture only keeps references (it runs on every request); redaction and
 * serialization happen when the journal is read (journal-view.ts).
 */
export const JOURNAL_CAPACITY = 5000
export const BODY_WINDOW = 1000

export interface JournalFilter {
  partner_id?: string
  method?: string
  /** Exact path; `*` matches any run of characters. */
  path?: string
  status?: number
  /** Whether any rule met the request. */
  ruled?: boolean
}

export const matcher = (filter: JournalFilter) => {
  const path = filter.path
  return (e: StoredEntry) =>
    (!filter.partner_id || e.partner_id === filter.partner_id) &&
    (!filter.method || e.method === filter.method) &&
    (!filter.status || e.status === filter.status) &&
    (!path || pathMatches(path, e.path)) &&
    (filter.ruled === undefined || (e.rules?.length ?? 0) > 0 === filter.ruled)
}

/** What the journal's searches read (services/journal.ts): a page of views, newest first. */
export interface JournalReader {
  list(
    filter: JournalFilter & { limit: number },
  ): Promise<{ data: JournalView[]; has_more: boolean }>
}
