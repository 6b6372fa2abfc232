import type { Context } from 'hono'
import type { Deps } from '../deps.js'
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

/**
 * The same, reading the partner from the synchronous store; answers the partner row.
 * cross-area: routes/bank-connect.ts (money) still calls it; it goes once that route reads the
 * partner through its service and calls `attributePartner`.
 */
export function attributeToPartner(
  deps: Pick<Deps, 'store'>,
  c: Context<AppEnv>,
  partnerId: string,
): PartnerRow | undefined {
  const partner = deps.store.get('partners', partnerId)
  if (partner) attributePartner(c, partner)
  return partner
}
