import type { Context, MiddlewareHandler } from 'hono'
import type { Clock } from '../clock.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { RequestJournal } from '../services/journal.js'
import type { AppEnv } from './app-env.js'
import { capture, readAnswerFirst } from './journal-view.js'

/** What journaling a request reads: the journal, the sandbox clock, the partner's scenario. */
export interface JournalParts {
  journal: Pick<RequestJournal, 'add' | 'writesFirst'>
  clock: Pick<Clock, 'now'>
  scenarios: Pick<ScenarioRegistry, 'forPartner'>
}

/**
 * Journals every request once it is answered, whatever answered it (a route, an error, the
 * not-found handler): hono's compose renders an error where it is thrown, so the answer seen
 * here is the one the client gets. The entry keeps references only; it is shown (redacted,
 * serialized) when the journal is read. On an engine that writes it to a database the answer
 * waits for the row, so a client that reads the journal next finds its request there; its body
 * is read before it is sent, and the text read is what the client gets (as in process, where
 * the caller reads the answer).
 */
export function journalRequests(deps: JournalParts): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now()
    try {
      await next()
    } finally {
      await journal(deps, c, started)
    }
  }
}

async function journal(deps: JournalParts, c: Context<AppEnv>, started: number) {
  const partner = c.get('partner')
  const kept = capture(c)
  if (kept && (deps.journal.writesFirst || !kept.served)) await readAnswerFirst(c, kept)
  return deps.journal.add({
    id: c.get('requestId'),
    at: deps.clock.now(),
    method: c.req.method,
    // Bounded in bytes too: a 16 KB URL is journaled by its first 2 KB (docs/retention.md).
    path: c.req.path.length > 2048 ? c.req.path.slice(0, 2048) : c.req.path,
    query: searchOf(c),
    status: c.res.status,
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
    partner_id: partner?.id ?? null,
    // The request's own scenario, when it had one: the journal runs outside its context.
    scenario: partner ? (c.get('scenario') ?? deps.scenarios.forPartner(partner).name) : null,
    rules: c.get('rules'),
    capture: kept,
  })
}

/** The query string as sent (`?a=1`, or ''), bounded as the path is. */
function searchOf(c: Context<AppEnv>): string {
  const url = c.req.url
  const at = url.indexOf('?')
  if (at < 0) return ''
  return url.length - at > 2048 ? url.slice(at, at + 2048) : url.slice(at)
}
