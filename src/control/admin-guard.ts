import { timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../deps.js'
import { digest } from '../domain/secret-hash.js'
import { ApiError } from '../errors.js'

/** When an admin token is configured, `/_sandbox/*` needs it as a Bearer token or X-Sandbox-Admin-Token. */
export function adminGuard(token: string | undefined): MiddlewareHandler<AppEnv> {
  const expected = token ? digest(token) : undefined
  return async (c, next) => {
    // The sink receives webhook deliveries, which carry no admin token.
    if (!expected || (c.req.method === 'POST' && /^\/_sandbox\/sink\/[^/]+$/.test(c.req.path)))
      return next()
    const given =
      c.req.header('x-sandbox-admin-token') ??
      c.req.header('authorization')?.replace(/^Bearer\s+/i, '')
    if (!given || !timingSafeEqual(digest(given), expected)) {
      throw new ApiError(
        'unauthorized',
        'The sandbox control plane needs the admin token: send it as Authorization: Bearer <token> or X-Sandbox-Admin-Token.',
      )
    }
    await next()
  }
}
