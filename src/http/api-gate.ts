import type { Context, Next } from 'hono'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import { ApiError } from '../errors.js'
import type { LoadedScenarios } from '../scenarios/loaded-scenarios.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { Partners } from '../services/partners.js'
import type { PartnerRow } from '../store/records.js'
import type { AccessTable } from './access-table.js'
import type { AppEnv } from './app-env.js'
import { carryHeaders, finishCarriedHeaders, type Step } from './fast-path.js'
import { after, type Maybe } from './maybe-promise.js'
import { createRateLimiter } from './rate-limit.js'
import { requestHeader } from './request-headers.js'
import { requestedScenario } from './request-scenario.js'
import { followRules, meetRules, type Outcome } from './rules.js'
import { attachSession } from './user-session.js'

/**
 * Everything a request under /api/v1 goes through before its route, in order: the
 * organization credentials (spec section 5, layer 1), the request's own scenario
 * (X-Sandbox-Scenario), the partner's rate limit, the rules it meets (http/rules.ts), and
 * the user session on Org + User routes (layer 2), as the route's declared access asks
 * (http/access.ts). One middleware calling plain functions rather than six middlewares: each
 * hono layer costs a promise and a dispatch on every request.
 */
/** What the gate runs on: the parts each of its steps takes. */
export type ApiGateParts = Parameters<typeof createRateLimiter>[0] &
  Parameters<typeof meetRules>[0] &
  Parameters<typeof attachSession>[0] &
  Parameters<typeof requestedScenario>[0] & {
    partners: Pick<Partners, 'authenticate'>
    scenarios: Pick<ScenarioRegistry, 'requireOwnScenario' | 'withRequestScenario'>
    clocks: Pick<PartnerClocks, 'take' | 'refreshAll'>
    loadedScenarios: Pick<LoadedScenarios, 'refresh' | 'refreshAll'>
  }

/**
 * The gate answers a promise only when a step waited (no step is an async function): the
 * first layer runs it as a plain call (fast-path.ts), not as a hono layer.
 */
export function apiGate(deps: ApiGateParts, access: AccessTable): Step {
  const limit = deps.config.rateLimit === 'off' ? undefined : createRateLimiter(deps)
  // Each step answers a promise only when it has something to wait for (a first scrypt, a
  // first JWT check, an injected latency), and no step is an async function of its own: on
  // the usual request the gate adds no promise and no tick to the route's.
  const proceed = (c: Context<AppEnv>, next: Next, partner: PartnerRow, session: boolean) => {
    if (limit) {
      const counted = limit(partner)
      return counted instanceof Promise
        ? counted.then((headers) => proceedCounted(c, next, headers, partner, session))
        : proceedCounted(c, next, counted, partner, session)
    }
    return meetRules(deps, c, partner).then((outcome) =>
      outcome?.answer
        ? followRules(deps, c, outcome, next)
        : withSession(c, next, session, outcome),
    )
  }
  /** A rule's answer comes in place of the session check and the route. */
  const withSession = (c: Context<AppEnv>, next: Next, session: boolean, outcome?: Outcome) => {
    const run = () => (outcome ? followRules(deps, c, outcome, next) : next())
    const attached = session ? attachSession(deps, c) : undefined
    return attached ? attached.then(run) : run()
  }
  /** With a rate limit: its headers go on the answer, and on a refusal too. */
  const proceedCounted = (
    c: Context<AppEnv>,
    next: Next,
    limitHeaders: Record<string, string>,
    partner: PartnerRow,
    session: boolean,
  ) => {
    let checked: Maybe<Outcome | undefined>
    try {
      checked = checks(c, partner, session)
    } catch (error) {
      return refused(error, limitHeaders)
    }
    if (checked instanceof Promise)
      return checked.then(
        (outcome) => answer(c, next, limitHeaders, outcome),
        (error) => refused(error, limitHeaders),
      )
    return answer(c, next, limitHeaders, checked)
  }
  /** The rules, then the session unless a rule answers. */
  const checks = (c: Context<AppEnv>, partner: PartnerRow, session: boolean) =>
    after(meetRules(deps, c, partner), (outcome) => {
      const attached = outcome?.answer || !session ? undefined : attachSession(deps, c)
      return attached ? attached.then(() => outcome) : outcome
    })
  /** On the answer whatever it is, cheaply when it is a plain JSON one (see fast-path.ts). */
  const answer = (
    c: Context<AppEnv>,
    next: Next,
    limitHeaders: Record<string, string>,
    outcome: Outcome | undefined,
  ) => {
    carryHeaders(c, limitHeaders)
    const answered: unknown = outcome ? followRules(deps, c, outcome, next) : next()
    if (answered instanceof Promise)
      return answered.then(() => finishCarriedHeaders(c, limitHeaders))
    finishCarriedHeaders(c, limitHeaders)
    return answered
  }
  const admitted = (c: Context<AppEnv>, next: Next, partner: PartnerRow, session: boolean) => {
    c.set('partner', partner)
    // The partner's clock as its row read for this request says, before any time is read.
    deps.clocks.take(partner)
    // A partner whose scenario was lost gets a 503 that says so, not the default's answers.
    deps.scenarios.requireOwnScenario(partner)
    const scenario = requestedScenario(deps, c)
    if (!scenario) return proceed(c, next, partner, session)
    c.set('scenario', scenario.name)
    return deps.scenarios.withRequestScenario(scenario, () => proceed(c, next, partner, session))
  }
  /** The scenarios the request names, read from their rows when loaded ones (LoadedScenarios). */
  const named = (c: Context<AppEnv>, partner: PartnerRow) => {
    const header = requestHeader(c, 'x-sandbox-scenario')?.trim()
    const name = header && !header.startsWith('{') ? header : undefined
    return Promise.all([
      deps.loadedScenarios.refresh(partner.scenario),
      deps.loadedScenarios.refresh(name),
    ])
  }
  return (c, next) => {
    // A path no route takes needs the credentials too: a stranger learns nothing from a 404.
    const needs = access.of(c.req.method, c.req.path) ?? 'org'
    // A public page (bank connect) finds its partner later: every partner's clock and
    // scenario is read first.
    if (needs === 'public')
      return Promise.all([deps.clocks.refreshAll(), deps.loadedScenarios.refreshAll()]).then(() =>
        next(),
      )
    const session = needs === 'session'
    return deps.partners
      .authenticate(requestHeader(c, 'x-partner-key'), requestHeader(c, 'x-partner-secret'))
      .then(async (partner) => {
        await named(c, partner)
        return admitted(c, next, partner, session)
      })
  }
}

/** A refused request still tells the client where it stands with its rate limit. */
function refused(error: unknown, limitHeaders: Record<string, string>): never {
  if (error instanceof ApiError) {
    throw new ApiError(error.code, error.message, {
      details: error.details,
      headers: { ...limitHeaders, ...error.headers },
    })
  }
  throw error
}
