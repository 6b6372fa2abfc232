import type { MiddlewareHandler } from 'hono'
import type { AppEnv, Deps } from '../deps.js'
import { authenticatePartner } from '../domain/partner-auth.js'

/** Paths under /api/v1 that need neither credentials nor a session (spec section 5). */
const publicRoutes = new Set([
  'GET /external-bank-account-connect/connect',
  'POST /external-bank-account-connect/enrollment/public',
])

export function isPublicRoute(method: string, path: string): boolean {
  // Cheap test first: this runs on every request.
  if (!path.startsWith('/api/v1/external-bank-account-connect/')) return false
  return publicRoutes.has(`${method} ${path.slice('/api/v1'.length).replace(/\/$/, '')}`)
}

/** Layer 1 of spec section 5: X-Partner-Key + X-Partner-Secret on every non-public route. */
export function partnerAuth(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (isPublicRoute(c.req.method, c.req.path)) return next()
    const partner = await authenticatePartner(
      deps,
      c.req.header('x-partner-key'),
      c.req.header('x-partner-secret'),
    )
    c.set('partner', partner)
    await next()
  }
}
