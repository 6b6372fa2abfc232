import type { MiddlewareHandler } from 'hono'
import { requestId } from 'hono/request-id'
import type { AppEnv } from './app-env.js'

/** The header every answer carries. */
export const REQUEST_ID_HEADER = 'X-Request-Id'

/** A client's own X-Request-Id is used when it is one of these (as hono/request-id takes it). */
export const REQUEST_ID_PATTERN = /^[\w\-=]{1,255}$/

/**
 * Gives every request its id and puts it on the answer: hono's own request-id middleware, with
 * the client's X-Request-Id when it is a sane one, else `generate()`.
 */
export const requestIds = (generate: () => string): MiddlewareHandler<AppEnv> =>
  requestId({ headerName: REQUEST_ID_HEADER, generator: generate })
