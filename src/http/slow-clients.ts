import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http'
import { nodeRequest } from './app-env.js'

/**
 * Slow clients (a body dribbled at 1 byte a second, headers that never end) would hold a
 * connection and its memory for minutes. Two limits, both on real time:
 *
 * - headers: Node's own `headersTimeout`; no request exists yet, so Node answers its bare
 *   408 and closes the connection;
 * - body: `bodyTimeout` after the headers arrived. The pending body read fails, the app
 *   answers 408 in the API's envelope with `Connection: close` (see `bodyTimedOut`), and the
 *   connection is closed. When nothing is reading the body yet, the connection is cut.
 */

const TIMED_OUT = Symbol.for('partner-sandbox.body-timed-out')

export interface SlowClientLimits {
  bodyTimeout: number
  headersTimeout: number
}

/** Options for `http.createServer`: Node checks its own timeouts on this interval. */
export function slowClientServerOptions(limits: SlowClientLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeout,
    // Node's whole-request limit, a backstop behind ours (which answers in our envelope).
    requestTimeout: limits.headersTimeout + limits.bodyTimeout + 5_000,
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, limits.headersTimeout / 2)),
  }
}

/** Arms a body timer on each request whose body has not fully arrived with its headers. */
export function guardSlowBodies(server: Server, limits: SlowClientLimits): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112
    // §6.3), though Node marks it complete only after this event: no timer for a plain GET.
    if (req.complete || !hasBody(req)) return
    const timer = setTimeout(() => {
      if (req.complete || res.writableEnded) return
      ;(req as unknown as Record<symbol, boolean>)[TIMED_OUT] = true
      if (req.listenerCount('error') > 0 && !res.headersSent) {
        // Fails the app's body read; it renders the 408 (bodyTimedOut) with its request id.
        req.emit('error', Object.assign(new Error('request body timeout'), { code: 'ETIMEDOUT' }))
        // The read has failed: what the client still sends is dropped. Node's web-stream
        // adapter keeps its 'data' listener after the error and would enqueue into the
        // stream it closed (an uncaught "Controller is already closed").
        req.removeAllListeners('data')
        req.on('data', () => {})
        setTimeout(() => req.destroy(), 1_000).unref()
      } else {
        req.destroy()
      }
    }, limits.bodyTimeout)
    timer.unref()
    const clear = () => clearTimeout(timer)
    req.once('end', clear)
    res.once('close', clear)
  })
}

/** True when this request's body read was failed by the body timeout. */
export function bodyTimedOut(c: { env: unknown }): boolean {
  const incoming = nodeRequest(c) as (IncomingMessage & Record<symbol, unknown>) | undefined
  return incoming?.[TIMED_OUT] === true
}

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')
