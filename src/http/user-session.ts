import type { Context } from 'hono'
import type { ReadAhead, SessionVerifier } from '../domain/sessions.js'
import type { AppEnv } from './app-env.js'

/**
 * Layer 2 of spec section 5: `Authorization: Bearer <sessionToken>` after the org credentials,
 * on the routes that declare `session` access; `ahead`, the rows the gate began reading with
 * the partner's (SessionVerifier.readAhead).
 */
export function attachSession(
  s: { sessions: Pick<SessionVerifier, 'authenticate'> },
  c: Context<AppEnv>,
  ahead?: ReadAhead,
): Promise<void> | undefined {
  const found = s.sessions.authenticate(c.req.header('authorization'), c.get('partner'), ahead)
  const attach = ({ user, session }: Awaited<typeof found>) => {
    c.set('user', user)
    c.set('session', session)
  }
  if (found instanceof Promise) return found.then(attach)
  attach(found)
  return undefined
}
