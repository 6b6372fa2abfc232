import type { Context } from 'hono'
import type { AppEnv } from './app-env.js'
import { requestHeader } from './request-headers.js'

/** The header every answer carries (fast-path.ts puts it there). */
export const REQUEST_ID_HEADER = 'X-Request-Id'

const validId = /^[\w\-.:]{1,255}$/

/** Gives the request its id (the client's X-Request-Id when it is a sane one) and answers it. */
export function chooseRequestId(c: Context<AppEnv>, generate: () => string): string {
  const given = requestHeader(c, 'x-request-id')
  const id = given && validId.test(given) ? given : generate()
  c.set('requestId', id)
  return id
}
