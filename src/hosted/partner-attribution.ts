import type { Context } from 'hono'
import type { AppEnv } from '../http/app-env.js'
import type { PartnerRow } from '../store/records.js'

/**
 * Journals a public request (a hosted page, its calls) as the request of the partner its token
 * names, so the dashboard lists it with the partner's API requests. Set after the route's own
 * checks: only the journal and the request log read it.
 */
export function attributePartner(c: Context<AppEnv>, partner: PartnerRow): void {
  c.set('partner', partner)
}
