import type { Context } from 'hono'
import { ApiError, codeForStatus } from '../errors.js'
import type { Random } from '../random.js'
import type { Faults, PickedFault } from '../services/faults.js'
import type { AppEnv } from './app-env.js'
import { preferredFault } from './prefer.js'

/** What applying a fault uses: the faults, and the dice for a latency range. */
export interface FaultGate {
  faults: Faults
  random: Random
}

/**
 * Applies the faults of the partner's scenario and of the control plane to matching requests
 * (services/faults.ts chooses): latency first, then an error answer or a dropped connection.
 */
export function applyFault(gate: FaultGate, c: Context<AppEnv>): Promise<void> | undefined {
  const partner = c.get('partner')
  // Prefer: code= (one request, one forced error) comes before scripted faults.
  const preferred = preferredFault(c)
  const picked = preferred
    ? { rule: preferred, name: `Prefer: code=${preferred.error_status}` }
    : partner && gate.faults.pick(partner, c.req.method, c.req.path)
  if (picked instanceof Promise)
    return picked.then((fault) => (fault ? injectFault(gate.random, c, fault) : undefined))
  return picked ? injectFault(gate.random, c, picked) : undefined
}

async function injectFault(random: Random, c: Context<AppEnv>, picked: PickedFault): Promise<void> {
  {
    const { rule, name } = picked
    let latency: number | undefined
    if (rule.latency_ms !== undefined) {
      latency = Array.isArray(rule.latency_ms)
        ? random.int(Math.min(...rule.latency_ms), Math.max(...rule.latency_ms))
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
