import { timingSafeEqual } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import { digest } from '../domain/secret-hash.js'
import { ApiError } from '../errors.js'
import type { AppEnv } from '../http/app-env.js'

/**
 * Control routes that never need the token: the sink receives webhook deliveries, which carry
 * none, and the health check must work from a container's HEALTHCHECK or a CI `services:`
 * probe that knows no secret (it reveals only version, uptime and counts).
 */
const isOpenControlRoute = (method: string, path: string) =>
  (method === 'POST' && /^\/_sandbox\/sink\/[^/]+$/.test(path)) ||
  // The dashboard page checks the token itself (it also takes ?token= and shows a login form);
  // its script and stylesheet are public files.
  ((method === 'GET' || method === 'HEAD') &&
    (path === '/_sandbox' || path === '/_sandbox/' || path.startsWith('/_sandbox/assets/'))) ||
  ((method === 'GET' || method === 'HEAD') && path === '/_sandbox/health')

/** The admin token a request presents: X-Sandbox-Admin-Token, or a Bearer token. */
export const presentedAdminToken = (c: Context): string | undefined =>
  c.req.header('x-sandbox-admin-token') ?? c.req.header('authorization')?.replace(/^Bearer\s+/i, '')

/** Whether `given` is the token whose digest is `expected` (compared in constant time). */
export const isAdminToken = (given: string | undefined, expected: Buffer): boolean =>
  given !== undefined && given !== '' && timingSafeEqual(digest(given), expected)

/** When an admin token is configured, `/_sandbox/*` needs it as a Bearer token or X-Sandbox-Admin-Token. */
export function adminGuard(token: string | undefined): MiddlewareHandler<AppEnv> {
  const expected = token ? digest(token) : undefined
  return async (c, next) => {
    if (!expected || isOpenControlRoute(c.req.method, c.req.path)) return next()
    if (!isAdminToken(presentedAdminToken(c), expected)) {
      throw new ApiError(
        'unauthorized',
        'The sandbox control plane needs the admin token: send it as Authorization: Bearer <token> or X-Sandbox-Admin-Token.',
      )
    }
    await next()
  }
}
