/**
 * Every speed trick of the HTTP layer, in one place (Trick 6, the handlers of a route run as
 * one, has a file of its own: handler-chain.ts). An authenticated GET is answered in tens
 * of microseconds, so a promise, a WHATWG Headers object or a path split per request shows in
 * the throughput (bench/http-throughput.mjs); each trick below says what it saves. Nothing
 * outside this file needs to know them: routes use c.json, c.header, c.redirect and streams as
 * hono documents them, and every answer still carries X-Request-Id and the headers the gate
 * carries (test/fast-path.test.ts). A trick that stops paying for itself goes from here alone.
 */
import type { Context, MiddlewareHandler, Next } from 'hono'
import type { Result, Router } from 'hono/router'
import { RegExpRouter } from 'hono/router/reg-exp-router'
import { SmartRouter } from 'hono/router/smart-router'
import { TrieRouter } from 'hono/router/trie-router'
import type { Clock } from '../clock.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { RequestJournal } from '../services/journal.js'
import type { AppEnv } from './app-env.js'
import { capture } from './journal-view.js'
import { after, type Maybe, rethrowAfter } from './maybe-promise.js'
import { MethodPathCache } from './method-path-cache.js'
import { chooseRequestId, REQUEST_ID_HEADER } from './request-id.js'
import type { RequestLog } from './request-log.js'
import type { RequestOrigins } from './request-origin.js'

/**
 * Trick 1, the cached router: hono's default router with the answers remembered per method and
 * path. Our route table makes hono fall back from its RegExpRouter to the TrieRouter (a static
 * segment beside a parameter, `/webhooks/events` and `/webhooks/{id}`), whose search splits the
 * path and walks the tree on every request: a tenth of the work of an authenticated GET. A match
 * depends on the method, the path and the table alone, and hono only reads it (RegExpRouter
 * itself hands out the same result for every request to a static path), so it can be reused.
 * Bounded: the cache starts over when it holds `capacity` paths; any route added empties it.
 */
export class CachedRouter<T> implements Router<T> {
  readonly name: string
  private readonly cache: MethodPathCache<Result<T>>
  /** What a match becomes before it is handed out (Trick 6, handler-chain.ts). */
  private finish: (result: Result<T>) => Result<T> = (result) => result

  constructor(
    private readonly inner: Router<T> = new SmartRouter({
      routers: [new RegExpRouter(), new TrieRouter()],
    }),
    capacity = 1000,
  ) {
    this.name = `CachedRouter(${inner.name})`
    this.cache = new MethodPathCache(
      (method, path) => this.finish(this.inner.match(method, path)),
      capacity,
    )
  }

  add(method: string, path: string, handler: T): void {
    this.cache.clear()
    this.inner.add(method, path, handler)
  }

  /** Each match, from now on, is handed out as `finish` makes it (once per method and path). */
  finishWith(finish: (result: Result<T>) => Result<T>): void {
    this.cache.clear()
    this.finish = finish
  }

  match(method: string, path: string): Result<T> {
    return this.cache.get(method, path)
  }
}

/** What the first layer runs around the rest of a request (see `frontDoor`). */
export interface FrontDoor {
  /** Request-origin tracking (request-origin.ts). */
  origins: RequestOrigins
  /** The request line in the log, when logging is on. */
  log?: RequestLog
  /** The layers in front of the routes (body limits, the API gate), as one call: `gateOf`. */
  gate(c: Context<AppEnv>, next: Next): unknown
  /** Renders an error that `gate` threw, as hono's onError would. */
  onError(error: Error, c: Context<AppEnv>): Response | Promise<Response>
}

/**
 * Trick 2, one first layer: the first middleware of every request gives it its id, records its
 * origin, runs the gate in front of the routes, and journals (and logs) it once answered. One
 * layer for all of it, calling plain functions: each hono layer costs an async function, a
 * dispatch and a promise (about a kilobyte of garbage) on every request. An error the gate
 * throws is rendered here, as it was when the gate was a layer of its own, so the journal and
 * the log see the answer the client gets.
 */
export function frontDoor(
  deps: {
    journal: Pick<RequestJournal, 'add'>
    clock: Pick<Clock, 'now'>
    scenarios: Pick<ScenarioRegistry, 'forPartner'>
  },
  generateId: () => string,
  door: FrontDoor,
): MiddlewareHandler<AppEnv> {
  const { origins, log, gate, onError } = door
  /** The rest of the request: the gate, then the routes (with its own origin, if it has one). */
  const pass = (c: Context<AppEnv>, next: Next, ticket: RequestTicket) =>
    typeof ticket === 'string' ? origins.run(ticket, () => gate(c, next)) : gate(c, next)
  /** The catch: what the gate threw, rendered as the answer. */
  const failed = (c: Context<AppEnv>, error: unknown) => {
    if (!(error instanceof Error)) throw error
    c.error = error
    return after(onError(error, c), (res) => {
      c.res = res
    })
  }
  /** The finally: logs and journals the answer (on a database, answered once journaled). */
  const finish = (
    c: Context<AppEnv>,
    ticket: RequestTicket,
    started: number,
    requestBody: Promise<unknown> | undefined,
  ) => {
    if (ticket === true) origins.leave()
    const logged = log?.done(c, started, requestBody)
    const journaled = logged
      ? logged.then(() => journal(deps, c, started))
      : journal(deps, c, started)
    // The answer, as the layer's own: hono takes a request's only layer's answer as the
    // response (a path no route takes), and calls its not-found handler when there is none.
    return journaled ? journaled.then(() => c.res) : c.res
  }
  // Not an async function, nor a closure per step: a request none of whose steps waits is
  // answered without a promise (Trick 6). Its try, catch and finally, as `await` would run
  // them, are written out below; hono's types want a promise from a layer, and compose and
  // Trick 6 both take any answer.
  const layer = (c: Context<AppEnv>, next: Next): Maybe<unknown> => {
    const started = performance.now()
    wireResponders(c, chooseRequestId(c, generateId))
    const ticket = origins.enter(c)
    const requestBody = log?.start(c)
    let answered: unknown
    try {
      answered = pass(c, next, ticket)
      if (answered instanceof Promise) answered = answered.then(undefined, (e) => failed(c, e))
    } catch (error) {
      try {
        answered = failed(c, error)
      } catch (thrown) {
        return rethrowAfter(finish(c, ticket, started, requestBody), thrown)
      }
    }
    if (answered instanceof Promise)
      return answered.then(
        () => finish(c, ticket, started, requestBody),
        (error) => rethrowAfter(finish(c, ticket, started, requestBody), error),
      )
    return finish(c, ticket, started, requestBody)
  }
  return layer as unknown as MiddlewareHandler<AppEnv>
}

type RequestTicket = ReturnType<RequestOrigins['enter']>

/** Journals an answered request (a promise on an engine that writes it before answering). */
function journal(
  deps: Pick<Parameters<typeof frontDoor>[0], 'journal' | 'clock' | 'scenarios'>,
  c: Context<AppEnv>,
  started: number,
) {
  const partner = c.get('partner')
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
    capture: capture(c),
  })
}

/** The query string as sent (`?a=1`, or ''), bounded as the path is. */
function searchOf(c: Context<AppEnv>): string {
  const url = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url ?? c.req.url
  const at = url.indexOf('?')
  if (at < 0) return ''
  return url.length - at > 2048 ? url.slice(at, at + 2048) : url.slice(at)
}

/** A step that answers a promise only when it waited (maybe-promise.ts). */
export type Step = (c: Context<AppEnv>, next: Next) => unknown

/**
 * Trick 3, the hand-composed gate: the API's body limit and its gate, run by the first layer
 * itself (see `frontDoor`) rather than as `app.use('/api/*')` layers of their own: the limit
 * first (413 before 401), then the gate under /api/v1 only.
 */
export function gateOf(apiLimit: MiddlewareHandler<AppEnv>, apiGate: Step): FrontDoor['gate'] {
  return (c, next) => {
    const path = c.req.path
    if (path !== '/api' && !path.startsWith('/api/')) return next()
    return path === '/api/v1' || path.startsWith('/api/v1/')
      ? apiLimit(c, () => apiGate(c, next) as Promise<void>)
      : apiLimit(c, next)
  }
}

/**
 * Trick 4, headers carried with the answer: headers the gate knows before the route runs (the
 * rate limit's) go into the plain JSON answer the route builds (see `wireResponders`), instead
 * of being set on it afterwards: that makes @hono/node-server build a full WHATWG Response and
 * write it the slow way (about 30 us of CPU per request). Call `carryHeaders` before the route
 * runs and `finishCarriedHeaders` after: any other answer (one that called c.header(), a
 * redirect, a stream, an override) gets them set then.
 */
export function carryHeaders(c: Context<AppEnv>, headers: Record<string, string>): void {
  c.set('extraHeaders', headers)
}

export function finishCarriedHeaders(c: Context<AppEnv>, headers: Record<string, string>): void {
  if (c.res === c.get('extraHeadersSent')) return
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value)
}

/** The headers the gate carries for this request's answer, if any. */
export const carriedHeaders = (c: Context<AppEnv>) => c.get('extraHeaders')

type HeadersInit = NonNullable<ConstructorParameters<typeof Headers>[0]>
type Responder = (data: unknown, arg?: unknown, headers?: unknown) => Response

/**
 * Trick 5, the responders rewired per request: every answer carries X-Request-Id without
 * `c.header()`, which would allocate a WHATWG Headers object per request and push
 * @hono/node-server off its fast path (about a fifth of the throughput). A plain
 * `c.json(data, status)` (nearly every answer) is built here with a plain header object,
 * because hono itself switches to a Headers object as soon as a
 * response has a second header. Once a route has called c.header(), hono's own c.json runs.
 * c.newResponse is wrapped too: c.redirect and the stream helpers answer through it.
 */
function wireResponders(c: Context<AppEnv>, id: string): void {
  let headersTouched = false
  const header = c.header
  c.header = ((...args: Parameters<typeof header>) => {
    headersTouched = true
    return header(...args)
  }) as typeof header
  const json = c.json as Responder
  c.json = ((data: unknown, arg?: unknown, headers?: unknown) => {
    if (headersTouched || headers !== undefined || (arg !== undefined && typeof arg !== 'number'))
      return withId(json, id, data, arg, headers)
    const extra = c.get('extraHeaders')
    const text = JSON.stringify(data)
    const sent: Record<string, string> = extra
      ? { 'content-type': 'application/json', [REQUEST_ID_HEADER]: id, ...extra }
      : { 'content-type': 'application/json', [REQUEST_ID_HEADER]: id }
    const status = (arg as number | undefined) ?? 200
    const response = new Response(text, { status, headers: sent })
    if (extra) c.set('extraHeadersSent', response)
    // The journal shows this answer from its text (journal-view.ts), not by copying it.
    c.set('plainAnswer', { response, headers: sent, text })
    return response
  }) as typeof c.json
  c.body = tagged(c.body as Responder, id) as typeof c.body
  c.html = tagged(c.html as Responder, id) as typeof c.html
  c.text = tagged(c.text as Responder, id) as typeof c.text
  c.newResponse = tagged(c.newResponse as Responder, id) as typeof c.newResponse
}

/** A hono responder that adds X-Request-Id to the headers it is given. */
const tagged =
  (original: Responder, id: string): Responder =>
  (data, arg, headers) =>
    withId(original, id, data, arg, headers)

/** Calls a hono responder with X-Request-Id added to the headers it was given. */
function withId(respond: Responder, id: string, data: unknown, arg: unknown, headers: unknown) {
  if (arg !== undefined && typeof arg === 'object' && arg !== null) {
    // c.json(data, init): add the header to init.headers.
    const init = arg as ResponseInit
    return respond(data, { ...init, headers: mergeHeaders(init.headers, id) })
  }
  return respond(data, arg, mergeHeaders(headers as HeadersInit | undefined, id))
}

function mergeHeaders(headers: HeadersInit | undefined, id: string): HeadersInit {
  if (!headers) return { [REQUEST_ID_HEADER]: id }
  if (headers instanceof Headers) {
    headers.set(REQUEST_ID_HEADER, id)
    return headers
  }
  if (Array.isArray(headers)) return [...headers, [REQUEST_ID_HEADER, id]]
  return { ...headers, [REQUEST_ID_HEADER]: id }
}
