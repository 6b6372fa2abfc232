import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../deps.js'
import type { Logger } from '../logger.js'

/** One line per request: method, path (no query: it may carry tokens), status, time, partner, id. */
export function requestLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now()
    await next()
    const ms = (performance.now() - started).toFixed(1)
    const partner = c.get('partner')?.slug ?? '-'
    logger.info(
      `${c.req.method} ${c.req.path} ${c.res.status} ${ms}ms partner=${partner} id=${c.get('requestId')}`,
    )
  }
}
