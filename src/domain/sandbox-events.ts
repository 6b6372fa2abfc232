import type { Deps } from '../deps.js'
import type { EventRow } from '../store/records.js'
import { eventEnvelope } from './events.js'

/**
 * Events as the control plane lists them: across partners, as the envelope a partner's
 * endpoint receives.
 */

/**
 * Newest first, filtered by partner and type, with `has_more` past `limit`. Each partner's
 * events are read from the newest end of its index (the order they were recorded); across
 * partners those walks are merged by time, so a page reads about `limit` events per partner
 * at most, not the whole history.
 */
export function listEvents(
  deps: Deps,
  filter: { partner_id?: string; type?: string; limit: number },
) {
  const partners = filter.partner_id
    ? [filter.partner_id]
    : deps.store.indexKeys('events', 'events_by_partner')
  const walks = partners.map((id) =>
    deps.store.scan('events', 'events_by_partner', id, { reverse: true }),
  )
  const heads = walks.map((walk) => nextMatch(walk, filter.type))
  const data: ReturnType<typeof eventEnvelope>[] = []
  for (;;) {
    // The newest head; ties go to the partner listed first.
    let pick = -1
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i]
      if (head && (pick < 0 || head.created_at > (heads[pick] as EventRow).created_at)) pick = i
    }
    if (pick < 0) return { data, has_more: false }
    if (data.length === filter.limit) return { data, has_more: true }
    data.push(eventEnvelope(heads[pick] as EventRow))
    heads[pick] = nextMatch(walks[pick] as Generator<EventRow>, filter.type)
  }
}

function nextMatch(walk: Generator<EventRow>, type: string | undefined): EventRow | undefined {
  for (;;) {
    const next = walk.next()
    if (next.done) return undefined
    if (!type || next.value.type === type) return next.value
  }
}
