import { compareRequest, type RequestCriteria } from '../domain/request-match.js'
import type { JournalView } from './journal-view.js'
import { JOURNAL_CAPACITY, type JournalFilter, type JournalReader } from './request-journal.js'

/**
 * The journal's content filters (query, headers, a JSON subset of the body) and
 * verification with near misses. They compare what the journal keeps and shows: headers and
 * bodies are redacted (a password, token, secret, SSN or one-time code reads "[redacted]"
 * and cannot be matched by its value) and kept only for the newest BODY_WINDOW requests, so
 * older requests match no header or body criterion. The query is kept for every entry.
 */
export interface ContentFilter {
  query?: Record<string, string>
  headers?: Record<string, string>
  body?: unknown
}

const factsOf = (view: JournalView) => ({
  method: view.method,
  path: view.path,
  query: view.query,
  headers: view.request?.headers ?? {},
  body: view.request ? view.request.body : undefined,
})

/** Views of every entry the plain filters keep, newest first. */
const candidates = async (journal: JournalReader, filter: JournalFilter) =>
  (await journal.list({ ...filter, limit: JOURNAL_CAPACITY })).data

const fits = (content: ContentFilter) => (view: JournalView) =>
  compareRequest(content, factsOf(view)).differences.length === 0

export async function searchJournal(
  journal: JournalReader,
  filter: JournalFilter,
  content: ContentFilter,
  limit: number,
): Promise<{ data: JournalView[]; has_more: boolean }> {
  const matching = (await candidates(journal, filter)).filter(fits(content))
  return { data: matching.slice(0, limit), has_more: matching.length > limit }
}

export async function countJournal(
  journal: JournalReader,
  filter: JournalFilter,
  content: ContentFilter,
): Promise<number> {
  return (await candidates(journal, filter)).filter(fits(content)).length
}

export interface VerifyCriteria extends RequestCriteria {
  partner_id?: string
  times?: number
}

const isControl = (path: string) => path === '/_sandbox' || path.startsWith('/_sandbox/')

/** How many near misses a failed verification shows. */
export const NEAR_MISSES = 3

/**
 * Did the requests happen (`times` of them, or any)? When none matched, the closest requests
 * (most criteria met, then newest) and, for each, every criterion it missed.
 */
export async function verifyRequests(journal: JournalReader, criteria: VerifyCriteria) {
  const { partner_id, times, ...wanted } = criteria
  const views = await candidates(journal, partner_id ? { partner_id } : {})
  let count = 0
  const misses: { request: JournalView; differences: string[]; met: number; order: number }[] = []
  // The journal holds the suite's own control-plane calls too; they are never the request a
  // verification of the partner API meant, so they are near misses only of a control path.
  const closeEnough = (view: JournalView) =>
    isControl(view.path) === (wanted.path !== undefined && isControl(wanted.path))
  for (const [order, view] of views.entries()) {
    const { differences, checks } = compareRequest(wanted, factsOf(view))
    if (differences.length === 0) count++
    else if (closeEnough(view))
      misses.push({ request: view, differences, met: checks - differences.length, order })
  }
  const matched = times === undefined ? count > 0 : count === times
  const near_misses =
    count > 0
      ? []
      : misses
          .sort((a, b) => b.met - a.met || a.order - b.order)
          .slice(0, NEAR_MISSES)
          .map(({ request, differences }) => ({ request, differences }))
  return { matched, count, near_misses }
}
