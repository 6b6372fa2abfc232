import type { Context } from 'hono'
import { ApiError } from '../errors.js'
import type { RuleRow } from '../rules/rule-schema.js'
import type { PartnerRow } from '../store/records.js'
import type { AppEnv } from './app-env.js'

/** The statuses `Prefer: code=` can force: the platform's error answers. */
export const PREFERABLE_CODES = [429, 500, 502, 503, 504] as const

const headerError = (message: string) =>
  new ApiError('validation_error', `Prefer: ${message}`, {
    details: [{ field: 'Prefer', message, location: 'header' }],
  })

/**
 * Prism's habit: `Prefer: code=503` answers that error for this one request, as a rule made
 * for it alone (tried first, never counted), so it looks exactly like any rule's error answer
 * (envelope, Retry-After, journal). Other preferences in the header (`return=minimal`…) are
 * ignored, per RFC 7240.
 */
export function preferredRule(c: Context<AppEnv>, partner: PartnerRow): RuleRow | undefined {
  const header = c.req.header('prefer')
  if (!header) return undefined
  const match = /(?:^|[,;\s])code\s*=\s*"?([^",;\s]*)"?/i.exec(header)
  if (!match) return undefined
  const code = Number(match[1])
  if (!(PREFERABLE_CODES as readonly number[]).includes(code)) {
    throw headerError(
      `code=${match[1]} is not supported; use one of ${PREFERABLE_CODES.join(', ')}`,
    )
  }
  return {
    // Kept nowhere: its id says where it came from, in the journal and in its answer.
    id: `Prefer: code=${code}`,
    partner_id: partner.id,
    match: { path: '/api/v1/*' },
    respond: { status: code },
    drop_connection: false,
    decide: null,
    latency_ms: null,
    times: null,
    used: 0,
    rate: null,
    priority: 0,
    off_contract: false,
    contract_problem: null,
    operation_id: null,
    scenario: null,
    seq: 0,
    created_at: new Date(0).toISOString(),
  }
}
