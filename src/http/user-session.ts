import type { MiddlewareHandler } from 'hono'
import type { AppEnv, Deps } from '../deps.js'
import { isPublicRoute } from './partner-auth.js'

/** The Org + User routes of spec section 5's table, as path prefixes under /api/v1. */
const sessionPrefixes = [
  '/partner/auth/change-password',
  '/partner/auth/logout',
  '/partner/users/me',
  '/partner/cards/',
  '/partner/transactions',
  '/partner/disputes',
  '/external-bank-account-connect/',
]

export function requiresSession(method: string, path: string): boolean {
  if (isPublicRoute(method, path)) return false
  const rest = path.replace(/^\/api\/v1/, '')
  return sessionPrefixes.some(
    (prefix) => rest === prefix.replace(/\/$/, '') || rest.startsWith(prefix),
  )
}

/** Layer 2 of spec section 5: `Authorization: Bearer <sessionToken>` after the org credentials. */
export function userSession(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!requiresSession(c.req.method, c.req.path)) return next()
    const { user, session } = await deps.sessions.authenticate(
      c.req.header('authorization'),
      c.get('partner'),
    )
    c.set('user', user)
    c.set('session', session)
    await next()
  }
}
