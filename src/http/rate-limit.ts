import type { SandboxConfig } from '../config.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import { ApiError } from '../errors.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { State } from '../state/seam.js'
import type { PartnerRow } from '../store/records.js'

const WINDOW_MS = 60_000

/**
 * `rate_limit` requests per minute per partner, in fixed one-minute windows of the sandbox
 * clock (so a test can advance the clock instead of waiting). Each partner has its own
 * counter: one partner's burst never touches another's budget. The counter is the state's
 * (seam increment), so replicas sharing a database share each partner's budget.
 * Headers: X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (unix seconds at
 * which the window resets); over the limit: 429 with Retry-After (seconds).
 */
export function createRateLimiter(deps: {
  config: Pick<SandboxConfig, 'rateLimit'>
  scenarios: Pick<ScenarioRegistry, 'forPartner'>
  clocks: Pick<PartnerClocks, 'nowOf'>
  state: Pick<State, 'increment'>
}) {
  /** Counts the request; answers the headers to send, or throws the 429. */
  return (partner: PartnerRow): Record<string, string> | Promise<Record<string, string>> => {
    const override = deps.config.rateLimit
    const limit =
      (override === 'off' ? undefined : override) ??
      deps.scenarios.forPartner(partner).rate_limit?.per_minute ??
      partner.rate_limit
    // The window runs on the partner's clock: advancing it past the minute opens a new one.
    const now = deps.clocks.nowOf(partner.id)
    const start = now - (now % WINDOW_MS)
    const counted = deps.state.increment(`rate:${partner.id}`, start)
    const answer = (count: number) => {
      const resetAt = start + WINDOW_MS
      const headers = {
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': String(Math.max(0, limit - count)),
        'X-RateLimit-Reset': String(Math.ceil(resetAt / 1000)),
      }
      if (count <= limit) return headers
      const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000))
      throw new ApiError(
        'rate_limited',
        `Rate limit of ${limit} requests per minute exceeded for this partner. Retry after ${retryAfter} s.`,
        { headers: { ...headers, 'Retry-After': String(retryAfter) } },
      )
    }
    return typeof counted === 'number' ? answer(counted) : counted.then(answer)
  }
}
