import type { Context } from 'hono'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import type { PartnerRow } from '../store/records.js'

/**
 * Journals a public request (a hosted page, its calls) as the request of the partner its token
 * names, so the dashboard lists it with the partner's API requests. Set after the route's own
 * checks: only the journal and the request log read it. Answers the partner row.
 */
export function attributeToPartner(
  deps: Deps,
  c: Context<AppEnv>,
  partnerId: string,
): PartnerRow | undefined {
  const partner = deps.store.get('partners', partnerId)
  if (partner) c.set('partner', partner)
  return partner
}
