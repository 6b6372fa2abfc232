import type { Context, MiddlewareHandler } from 'hono'
import { redactBody } from '../log-redact.js'
import type { Logger } from '../logger.js'
import type { AppEnv } from './app-env.js'

/**
 * One line per request: method, path (no query: it may carry tokens), status, time, partner, id.
 * At debug the line also carries the request and response bodies, secrets redacted; reading
 * them costs a clone of each body, so it happens only at that level.
 */
export function requestLog(logger: Logger): MiddlewareHandler<AppEnv> {
  const debug = logger.enabled('debug')
  const json = logger.format === 'json'
  const write = (c: Context<AppEnv>, started: number, bodies?: Record<string, unknown>) => {
    const ms = Math.round((performance.now() - started) * 10) / 10
    const partner = c.get('partner')?.slug ?? '-'
    const { method, path } = c.req
    const status = c.res.status
    if (json) {
      logger.info(`${method} ${path} ${status}`, {
        method,
        path,
        status,
        duration_ms: ms,
        partner,
        request_id: c.get('requestId'),
        ...bodies,
      })
    } else {
      const id = c.get('requestId')
      logger.info(
        `${method} ${path} ${status} ${ms}ms`,
        bodies ? { partner, id, ...bodies } : { partner, id },
      )
    }
  }
  if (!debug)
    return async (c, next) => {
      const started = performance.now()
      try {
        await next()
      } finally {
        write(c, started)
      }
    }
  return async (c, next) => {
    const started = performance.now()
    const requestBody = readBody(c.req.raw)
    try {
      await next()
    } finally {
      write(c, started, { request_body: await requestBody, response_body: await readBody(c.res) })
    }
  }
}

async function readBody(message: Request | Response): Promise<unknown> {
  const type = message.headers.get('content-type')
  if (!message.body) return undefined
  // Only JSON is read: a stream (server-sent events) would never end, an upload is not text.
  if (!type?.includes('json')) return type ? `<${type}>` : undefined
  try {
    return redactBody(await message.clone().text(), type)
  } catch {
    return undefined
  }
}
