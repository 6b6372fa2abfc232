import type { Context } from 'hono'
import type { Deps } from '../deps.js'
import { ApiError, codeForStatus } from '../errors.js'
import { type FaultRule, routeMatches } from '../scenarios/faults.js'
import type { AppEnv } from './app-env.js'
import { preferredFault } from './prefer.js'

/** A fault rule added at run time through the control plane, for one partner or all. */
export interface RuntimeFault {
  id: string
  partner_id: string | null
  rule: FaultRule
  remaining: number | null
  created_at: string
}

/**
 * Applies the faults of the partner's scenario and of the control plane to matching
 * requests: latency first, then an error answer or a dropped connection.
 */
export class FaultInjector {
  private runtime: RuntimeFault[] = []
  /** `next` counters of scenario rules, per partner and rule. */
  private readonly used = new Map<string, number>()

  add(fault: RuntimeFault): void {
    this.runtime.push(fault)
  }

  list(): RuntimeFault[] {
    return this.runtime
  }

  clear(): void {
    this.runtime = []
    this.used.clear()
  }

  /** The first rule that fires for this request, with bookkeeping of `next` counts. */
  pick(deps: Deps, partner: { id: string; scenario: string | null }, method: string, path: string) {
    const roll = () => deps.random.int(0, 999_999) / 1_000_000
    for (const fault of this.runtime) {
      if (fault.partner_id && fault.partner_id !== partner.id) continue
      if (!routeMatches(fault.rule.route, method, path)) continue
      if (fault.remaining !== null && fault.remaining <= 0) continue
      if (fault.rule.rate !== undefined && roll() >= fault.rule.rate) continue
      if (fault.remaining !== null) fault.remaining--
      return { rule: fault.rule, name: fault.id }
    }
    const scenario = deps.scenarios.forPartner(partner)
    for (const [index, rule] of (scenario.faults ?? []).entries()) {
      if (!routeMatches(rule.route, method, path)) continue
      const key = `${partner.id}:${scenario.name}:${index}`
      if (rule.next !== undefined && (this.used.get(key) ?? 0) >= rule.next) continue
      if (rule.rate !== undefined && roll() >= rule.rate) continue
      if (rule.next !== undefined) this.used.set(key, (this.used.get(key) ?? 0) + 1)
      return { rule, name: `scenario ${scenario.name} faults[${index}]` }
    }
    return undefined
  }
}

/** Applies the fault that fires for this request, if any: waits, throws, or drops. */
export function applyFault(deps: Deps, c: Context<AppEnv>): Promise<void> | undefined {
  const partner = c.get('partner')
  // Prefer: code= (one request, one forced error) comes before scripted faults.
  const preferred = preferredFault(c)
  const picked = preferred
    ? { rule: preferred, name: `Prefer: code=${preferred.error_status}` }
    : partner && deps.faults.pick(deps, partner, c.req.method, c.req.path)
  // Nothing to wait for on the usual request: no promise, no tick.
  return picked ? injectFault(deps, c, picked) : undefined
}

async function injectFault(
  deps: Deps,
  c: Context<AppEnv>,
  picked: NonNullable<ReturnType<FaultInjector['pick']>>,
): Promise<void> {
  {
    const { rule, name } = picked
    let latency: number | undefined
    if (rule.latency_ms !== undefined) {
      latency = Array.isArray(rule.latency_ms)
        ? deps.random.int(Math.min(...rule.latency_ms), Math.max(...rule.latency_ms))
        : rule.latency_ms
      await new Promise((resolve) => setTimeout(resolve, latency))
    }
    if (rule.drop_connection) {
      c.set('fault', {
        type: 'drop_connection',
        rule: name,
        ...(latency !== undefined ? { latency_ms: latency } : {}),
      })
      const socket = (c.env as { incoming?: { socket?: { destroy(): void } } } | undefined)
        ?.incoming?.socket
      socket?.destroy()
      throw new ApiError('service_unavailable', 'Injected fault: the connection was dropped.')
    }
    if (rule.error_status !== undefined) {
      c.set('fault', {
        type: 'error',
        status: rule.error_status,
        rule: name,
        ...(latency !== undefined ? { latency_ms: latency } : {}),
      })
      throw new ApiError(
        codeForStatus(rule.error_status),
        `Injected fault (${name}): this request was answered with ${rule.error_status} on purpose.`,
        {
          headers:
            rule.error_status === 429 || rule.error_status === 503
              ? { 'Retry-After': '1' }
              : undefined,
        },
      )
    }
    c.set('fault', { type: 'latency', latency_ms: latency as number, rule: name })
  }
}
