import type { Deps } from '../deps.js'
import { eventEnvelope } from './events.js'
import { newestFirst } from './pagination.js'

/**
 * Events as the control plane lists them: across partners, as the envelope a partner's
 * endpoint receives.
 */

/** Newest first, filtered by partner and type, with `has_more` past `limit`. */
export function listEvents(
  deps: Deps,
  filter: { partner_id?: string; type?: string; limit: number },
) {
  const rows = filter.partner_id
    ? deps.store.lookup('events', 'events_by_partner', filter.partner_id)
    : deps.store.all('events')
  const matching = newestFirst(rows.filter((e) => !filter.type || e.type === filter.type))
  return {
    data: matching.slice(0, filter.limit).map(eventEnvelope),
    has_more: matching.length > filter.limit,
  }
}
