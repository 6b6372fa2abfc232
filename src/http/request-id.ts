import type { Context } from 'hono'
import type { AppEnv } from './app-env.js'
import { requestHeader } from './request-headers.js'

/** The header every answer carries (fast-path.ts puts it there). */
export const REQUEST_ID_HEADER = 'X-Request-Id'

/** A client's own X-Request-Id is used when it is one of these, else one is made. */
export const REQUEST_ID_PATTERN = /^[\w\-.:]{1,255}$/

/** Gives the request its id (the client's X-Request-Id when it is a sane one) and answers it. */
export function chooseRequestId(c: Context<AppEnv>, generate: () => string): string {
  const given = requestHeader(c, 'x-request-id')
  const id = given && REQUEST_ID_PATTERN.test(given) ? given : generate()
  c.set('requestId', id)
  return id
}
