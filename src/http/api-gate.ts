import type { MiddlewareHandler } from 'hono'
import type { AppEnv, Deps } from '../deps.js'
import { authenticatePartner } from '../domain/partner-auth.js'
import { ApiError } from '../errors.js'
import { applyFault } from './faults.js'
import { isPublicRoute } from './partner-auth.js'
import { createRateLimiter } from './rate-limit.js'
import { requestHeader } from './request-headers.js'
import { requestedScenario } from './request-scenario.js'
import { attachSession } from './user-session.js'

/**
 * Everything a request under /api/v1 goes through before its route, in order: the
 * organization credentials (spec section 5, layer 1), the request's own scenario
 * (X-Sandbox-Scenario), the partner's rate limit, injected faults, and the user session
 * on Org + User routes (layer 2). One middleware calling plain functions rather than five
 * middlewares: each hono layer costs a promise and a dispatch on every request.
 */
export function apiGate(deps: Deps): MiddlewareHandler<AppEnv> {
  const limit = deps.config.rateLimit === 'off' ? undefined : createRateLimiter(deps)
  // Each step answers a promise only when it has something to wait for (a first scrypt, a
  // first JWT check, an injected latency): on the usual request the gate awaits nothing but
  // the route.
  return async (c, next) => {
    if (isPublicRoute(c.req.method, c.req.path)) return next()
    const authenticated = authenticatePartner(
      deps,
      requestHeader(c, 'x-partner-key'),
      requestHeader(c, 'x-partner-secret'),
    )
    const partner = authenticated instanceof Promise ? await authenticated : authenticated
    c.set('partner', partner)
    // A partner whose scenario was lost gets a 503 that says so, not the default's answers.
    deps.scenarios.requireOwnScenario(partner)
    const run = async () => {
      const limitHeaders = limit?.(partner)
      try {
        const fault = applyFault(deps, c)
        if (fault) await fault
        const session = attachSession(deps, c)
        if (session) await session
      } catch (error) {
        // A refused request still tells the client where it stands with its rate limit.
        if (limitHeaders && error instanceof ApiError) {
          throw new ApiError(error.code, error.message, {
            details: error.details,
            headers: { ...limitHeaders, ...error.headers },
          })
        }
        throw error
      }
      await next()
      if (limitHeaders)
        for (const [name, value] of Object.entries(limitHeaders)) c.res.headers.set(name, value)
    }
    const scenario = requestedScenario(deps, c)
    if (!scenario) return run()
    c.set('scenario', scenario.name)
    return deps.scenarios.withRequestScenario(scenario, run)
  }
}
