import type { Context, MiddlewareHandler, Next } from 'hono'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import type { ReadAhead, SessionVerifier } from '../domain/sessions.js'
import type { LoadedScenarios } from '../scenarios/loaded-scenarios.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { Partners } from '../services/partners.js'
import type { RulesAhead } from '../services/rules.js'
import type { PartnerRow } from '../store/records.js'
import type { AccessTable } from './access-table.js'
import type { AppEnv } from './app-env.js'
import { createRateLimiter } from './rate-limit.js'
import { readSandboxSettings, type SandboxSettings } from './read-first.js'
import { requestedScenario } from './request-scenario.js'
import { followRules, meetRules } from './rules.js'
import { attachSession } from './user-session.js'

/**
 * Everything a request under /api/v1 goes through before its route, in order: the
 * organization credentials (spec section 5, layer 1), the request's own scenario
 * (X-Sandbox-Scenario), the partner's rate limit, the rules it meets (http/rules.ts), and
 * the user session on Org + User routes (layer 2), as the route's declared access asks
 * (http/access.ts). One middleware, since the steps run in this order and each reads what the
 * one before it found (the partner, its scenario).
 */
/** What the gate runs on: the parts each of its steps takes. */
export type ApiGateParts = Parameters<typeof createRateLimiter>[0] &
  SandboxSettings &
  Parameters<typeof meetRules>[0] &
  Parameters<typeof attachSession>[0] &
  Parameters<typeof requestedScenario>[0] & {
    partners: Pick<Partners, 'authenticate'>
    sessions: Pick<SessionVerifier, 'authenticate' | 'readAhead'>
    scenarios: Pick<ScenarioRegistry, 'requireOwnScenario' | 'withRequestScenario'>
    clocks: Pick<PartnerClocks, 'take' | 'refreshAll'>
    loadedScenarios: Pick<LoadedScenarios, 'refresh' | 'refreshAll'>
  }

/** The gate, as a middleware in front of every route under /api/v1. */
export function apiGate(deps: ApiGateParts, access: AccessTable): MiddlewareHandler<AppEnv> {
  const limit = deps.config.rateLimit === 'off' ? undefined : createRateLimiter(deps)
  /**
   * Past the credentials: the rate limit, the rules and the session, then the route. `session`
   * says the route takes one; `ahead`, the reads of the rules and the session's rows that began
   * with the partner's.
   */
  const proceed = async (
    c: Context<AppEnv>,
    next: Next,
    partner: PartnerRow,
    session: boolean,
    ahead: { rules?: RulesAhead; session?: ReadAhead },
  ) => {
    if (limit) {
      // Its headers go on every answer from here on, a refusal's too (hono keeps them).
      for (const [name, value] of Object.entries(await limit(partner))) c.header(name, value)
    }
    const outcome = await meetRules(deps, c, partner, ahead.rules)
    // A rule's answer comes in place of the session check and the route.
    if (outcome?.answer) return followRules(deps, c, outcome, next)
    if (session) await attachSession(deps, c, ahead.session)
    // The other rules it meets are counted once the session is accepted.
    return outcome ? followRules(deps, c, outcome, next) : next()
  }
  /** The scenarios the request names, read from their rows when loaded ones (LoadedScenarios). */
  const named = (c: Context<AppEnv>, partner: PartnerRow) => {
    const header = c.req.header('x-sandbox-scenario')?.trim()
    const name = header && !header.startsWith('{') ? header : undefined
    return Promise.all([
      deps.loadedScenarios.refresh(partner.scenario),
      deps.loadedScenarios.refresh(name),
    ])
  }
  return async (c, next) => {
    // A path no route takes needs the credentials too: a stranger learns nothing from a 404.
    const needs = access.of(c.req.method, c.req.path) ?? 'org'
    // A public page (bank connect) finds its partner later: every partner's clock and
    // scenario is read first.
    if (needs === 'public') {
      await Promise.all([
        readSandboxSettings(deps),
        deps.clocks.refreshAll(),
        deps.loadedScenarios.refreshAll(),
      ])
      return next()
    }
    const session = needs === 'session'
    const key = c.req.header('x-partner-key')
    // The rules of the key's partner (as it was last time), and the rows of a session route's
    // token when its claims are known (a token seen before), begin with the partner's: the
    // checks keep their order (credentials, rules, session), each taking what was read for it.
    const ahead = {
      rules: deps.rules.readAhead(key),
      session: session ? deps.sessions.readAhead(c.req.header('authorization')) : undefined,
    }
    // The sandbox clock's row, the sandbox-wide scenario's and the partner's, read at once (one
    // statement on PostgreSQL, with the rules' and the session's): the credentials check reads
    // no time.
    const [, partner] = await Promise.all([
      readSandboxSettings(deps),
      deps.partners.authenticate(key, c.req.header('x-partner-secret')),
    ])
    await named(c, partner)
    c.set('partner', partner)
    // The partner's clock as its row read for this request says, before any time is read.
    deps.clocks.take(partner)
    // A partner whose scenario was lost gets a 503 that says so, not the default's answers.
    deps.scenarios.requireOwnScenario(partner)
    const scenario = requestedScenario(deps, c)
    if (!scenario) return proceed(c, next, partner, session, ahead)
    c.set('scenario', scenario.name)
    return deps.scenarios.withRequestScenario(scenario, () =>
      proceed(c, next, partner, session, ahead),
    )
  }
}
