import type { Context } from 'hono'
import type { AppEnv } from '../deps.js'
import type { SessionVerifier } from '../domain/sessions.js'
import { isPublicRoute } from './partner-auth.js'
import { requestHeader } from './request-headers.js'

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

const exact = new Set(sessionPrefixes.map((prefix) => `/api/v1${prefix.replace(/\/$/, '')}`))
const prefixes = sessionPrefixes.map((prefix) => `/api/v1${prefix}`)

/** Runs on every request: plain string tests, no regex. */
export function requiresSession(method: string, path: string): boolean {
  if (!exact.has(path) && !prefixes.some((prefix) => path.startsWith(prefix))) return false
  return !isPublicRoute(method, path)
}

/** Layer 2 of spec section 5: `Authorization: Bearer <sessionToken>` after the org credentials. */
export function attachSession(
  s: { sessions: Pick<SessionVerifier, 'authenticate'> },
  c: Context<AppEnv>,
): Promise<void> | undefined {
  if (!requiresSession(c.req.method, c.req.path)) return undefined
  const found = s.sessions.authenticate(requestHeader(c, 'authorization'), c.get('partner'))
  const attach = ({ user, session }: Awaited<typeof found>) => {
    c.set('user', user)
    c.set('session', session)
  }
  if (found instanceof Promise) return found.then(attach)
  attach(found)
  return undefined
}
