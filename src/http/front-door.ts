import type { Context, MiddlewareHandler, Next } from 'hono'
import type { Deps } from '../deps.js'
import type { AppEnv } from './app-env.js'
import { capture } from './journal-view.js'
import { assignRequestId } from './request-id.js'
import type { RequestLog } from './request-log.js'
import type { RequestOrigins } from './request-origin.js'

/** What the first layer runs around the rest of a request (see `frontDoor`). */
export interface FrontDoor {
  /** Request-origin tracking (request-origin.ts). */
  origins: RequestOrigins
  /** The request line in the log, when logging is on. */
  log?: RequestLog
  /** The layers in front of the routes (body limits, the API gate), as one call. */
  gate(c: Context<AppEnv>, next: Next): Promise<unknown> | Response | undefined
  /** Renders an error that `gate` threw, as hono's onError would. */
  onError(error: Error, c: Context<AppEnv>): Response | Promise<Response>
}

/**
 * The first middleware of every request: gives it its id (see request-id.ts), records its
 * origin, runs the gate in front of the routes, and journals (and logs) it once answered.
 * One layer for all of it, calling plain functions: each hono layer costs an async function,
 * a dispatch and a promise (about a kilobyte of garbage) on every request. An error the gate
 * throws is rendered here, as it was when the gate was a layer of its own, so the journal
 * and the log see the answer the client gets.
 */
export function frontDoor(
  deps: Deps,
  generateId: () => string,
  door: FrontDoor,
): MiddlewareHandler<AppEnv> {
  const { origins, log, gate, onError } = door
  return async (c, next) => {
    const started = performance.now()
    assignRequestId(c, generateId)
    const ticket = origins.enter(c)
    const requestBody = log?.start(c)
    try {
      const pending =
        typeof ticket === 'string' ? origins.run(ticket, () => gate(c, next)) : gate(c, next)
      if (pending instanceof Promise) await pending
    } catch (error) {
      if (!(error instanceof Error)) throw error
      c.error = error
      c.res = await onError(error, c)
    } finally {
      if (ticket === true) origins.leave()
      const logged = log?.done(c, started, requestBody)
      if (logged) await logged
      const partner = c.get('partner')
      deps.journal.add({
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
        fault: c.get('fault') ?? null,
        override: c.get('override') ?? null,
        capture: capture(c),
      })
    }
  }
}

/** The query string as sent (`?a=1`, or ''), bounded as the path is. */
function searchOf(c: Context<AppEnv>): string {
  const url = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url ?? c.req.url
  const at = url.indexOf('?')
  if (at < 0) return ''
  return url.length - at > 2048 ? url.slice(at, at + 2048) : url.slice(at)
}
