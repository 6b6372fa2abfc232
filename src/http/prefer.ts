import type { Context } from 'hono'
import { ApiError } from '../errors.js'
import type { FaultRule } from '../scenarios/faults.js'
import type { AppEnv } from './app-env.js'
import { requestHeader } from './request-headers.js'

/** The statuses `Prefer: code=` can force: the fault engine's error answers. */
export const PREFERABLE_CODES = [429, 500, 502, 503, 504] as const

const headerError = (message: string) =>
  new ApiError('validation_error', `Prefer: ${message}`, {
    details: [{ field: 'Prefer', message, location: 'header' }],
  })

/**
 * Prism's habit: `Prefer: code=503` answers that error for this one request, as a fault rule
 * of the fault engine, so it looks exactly like a scripted fault (envelope, Retry-After,
 * journal). Other preferences in the header (`return=minimal`…) are ignored, per RFC 7240.
 */
export function preferredFault(c: Context<AppEnv>): FaultRule | undefined {
  const header = requestHeader(c, 'prefer')
  if (!header) return undefined
  const match = /(?:^|[,;\s])code\s*=\s*"?([^",;\s]*)"?/i.exec(header)
  if (!match) return undefined
  const code = Number(match[1])
  if (!(PREFERABLE_CODES as readonly number[]).includes(code)) {
    throw headerError(
      `code=${match[1]} is not supported; use one of ${PREFERABLE_CODES.join(', ')}`,
    )
  }
  return { route: '*', error_status: code as FaultRule['error_status'] }
}
