import type { Context, Next } from 'hono'
import type { Result } from 'hono/router'
import { after, type Maybe } from './maybe-promise.js'

/** A hono handler or middleware as the router holds it. */
type Handler = (c: Context, next: Next) => unknown
type OnError = (error: Error, c: Context) => Maybe<Response>
type OnNotFound = (c: Context) => Maybe<Response>

/**
 * Trick 6 of fast-path.ts, one handler per route: every request runs at least two handlers
 * (the first layer and the route), and hono runs a list of handlers through `compose`, an
 * async function per handler and one more around them: four promises, a closure per layer
 * and about 3 KB of garbage per request, and an answer that is always a promise, which
 * @hono/node-server then awaits and watches (a close listener) before writing it. A single
 * handler is called directly, and its answer written at once when it is not a promise. So
 * the router (CachedRouter) hands hono the list as one handler, made once per route, which
 * runs the list as `compose` does (the same order, errors to `onError`, `onNotFound` past
 * the end, `c.res` set from what a layer returns) but answers a promise only when a layer
 * waited. Lists whose layers take different path parameters are left to hono: the one
 * handler has one set of parameters (c.req.param reads them).
 */
export function collapseHandlers<T>(
  result: Result<T>,
  onError: OnError,
  onNotFound: OnNotFound,
): Result<T> {
  const entries = result[0] as [T, Record<string, unknown>][]
  if (entries.length < 2) return result
  const params = sharedParams(entries.map((entry) => entry[1]))
  if (params === undefined) return result
  const handlers = entries.map(([target]) => (target as [Handler, unknown])[0])
  const route = (entries[entries.length - 1] as [T, unknown])[0] as [Handler, unknown]
  const one = [runAll(handlers, onError, onNotFound), route[1]] as T
  return [[[one, params]], ...result.slice(1)] as unknown as Result<T>
}

/** The parameters every layer takes (none, or one set shared), or undefined when they differ. */
function sharedParams(all: Record<string, unknown>[]): Record<string, unknown> | undefined {
  let shared: Record<string, unknown> | undefined
  for (const params of all) {
    if (Object.keys(params).length === 0) continue
    if (shared === undefined) shared = params
    else if (!sameParams(shared, params)) return undefined
  }
  return shared ?? all[all.length - 1]
}

function sameParams(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key])
}

/** hono's `compose` and the dispatch around it, answering a promise only when a layer waited. */
function runAll(handlers: Handler[], onError: OnError, onNotFound: OnNotFound): Handler {
  return (c) => {
    const done = new Run(c, handlers, onError, onNotFound).dispatch(0)
    return done instanceof Promise ? done.then(answerOf) : answerOf(done)
  }
}

/**
 * One request through the list: an object, not a closure per step, since it runs on every
 * request (only `next` is a closure: a layer calls it without arguments).
 */
class Run {
  private index = -1

  constructor(
    private readonly c: Context,
    private readonly handlers: Handler[],
    private readonly onError: OnError,
    private readonly onNotFound: OnNotFound,
  ) {}

  dispatch(i: number): Maybe<Context> {
    if (i <= this.index) throw new Error('next() called multiple times')
    this.index = i
    const c = this.c
    const handler = this.handlers[i]
    if (handler === undefined) {
      return c.finalized ? c : after(this.onNotFound(c), (res) => settle(c, res, false))
    }
    let res: unknown
    try {
      // hono's types promise a promise from next(); every caller awaits it or returns it.
      res = handler(c, (() => this.dispatch(i + 1)) as unknown as Next)
    } catch (error) {
      return this.failed(error)
    }
    if (res instanceof Promise)
      return res.then(
        (answer) => settle(c, answer, false),
        (error) => this.failed(error),
      )
    return settle(c, res, false)
  }

  private failed(error: unknown): Maybe<Context> {
    if (!(error instanceof Error)) throw error
    const c = this.c
    c.error = error
    return after(this.onError(error, c), (res) => settle(c, res, true))
  }
}

function answerOf(c: Context): Response {
  if (!c.finalized)
    throw new Error(
      'Context is not finalized. Did you forget to return a Response object or `await next()`?',
    )
  return c.res
}

/** What compose does with a layer's answer: it becomes the response unless one was set. */
function settle(c: Context, res: unknown, isError: boolean): Context {
  if (res && (c.finalized === false || isError)) c.res = res as Response
  return c
}
