import { timingSafeEqual } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import { digest } from '../domain/secret-hash.js'
import { ApiError } from '../errors.js'
import type { AccessTable } from '../http/access-table.js'
import type { AppEnv } from '../http/app-env.js'

/** The admin token a request presents: X-Sandbox-Admin-Token, or a Bearer token. */
export const presentedAdminToken = (c: Context): string | undefined =>
  c.req.header('x-sandbox-admin-token') ?? c.req.header('authorization')?.replace(/^Bearer\s+/i, '')

/** Whether `given` is the token whose digest is `expected` (compared in constant time). */
export const isAdminToken = (given: string | undefined, expected: Buffer): boolean =>
  given !== undefined && given !== '' && timingSafeEqual(digest(given), expected)

/**
 * When an admin token is configured, `/_sandbox/*` needs it as a Bearer token or
 * X-Sandbox-Admin-Token, except on the routes that declare `public` access (http/access.ts):
 * the sink receives webhook deliveries, which carry no token; the health check must work from
 * a container's HEALTHCHECK or a CI `services:` probe that knows no secret; the dashboard page
 * checks the token itself, and its script and stylesheet are public files.
 */
export function adminGuard(
  token: string | undefined,
  access: AccessTable,
): MiddlewareHandler<AppEnv> {
  const expected = token ? digest(token) : undefined
  return async (c, next) => {
    if (!expected || access.of(c.req.method, c.req.path) === 'public') return next()
    if (!isAdminToken(presentedAdminToken(c), expected)) {
      throw new ApiError(
        'unauthorized',
        'The sandbox control plane needs the admin token: send it as Authorization: Bearer <token> or X-Sandbox-Admin-Token.',
      )
    }
    await next()
  }
}
