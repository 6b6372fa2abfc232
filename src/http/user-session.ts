import type { Context } from 'hono'
import type { Deps } from '../deps.js'
import type { AppEnv } from './app-env.js'
import { requestHeader } from './request-headers.js'

/**
 * Layer 2 of spec section 5: `Authorization: Bearer <sessionToken>` after the org credentials,
 * on the routes that declare `session` access.
 */
export function attachSession(deps: Deps, c: Context<AppEnv>): Promise<void> | undefined {
  const found = deps.sessions.authenticate(requestHeader(c, 'authorization'), c.get('partner'))
  const attach = ({ user, session }: Awaited<typeof found>) => {
    c.set('user', user)
    c.set('session', session)
  }
  if (found instanceof Promise) return found.then(attach)
  attach(found)
  return undefined
}
