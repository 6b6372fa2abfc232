import type { StateReader } from '../state/seam.js'
import type { EventRow } from '../store/records.js'
import { eventEnvelope } from './events.js'

/**
 * Events as the control plane lists them: across partners, as the envelope a partner's
 * endpoint receives.
 */

/**
 * Newest first, filtered by partner and type, with `has_more` past `limit`. Each partner's
 * events are read from the newest end of its index (the order they were recorded) a page at
 * a time; across partners those walks are merged by time, so a page reads about `limit`
 * events per partner at most, not the whole history.
 */
export async function listEvents(
  reader: StateReader,
  filter: { partner_id?: string; type?: string; limit: number },
) {
  const partners = filter.partner_id ? [filter.partner_id] : await reader.keys('events_by_partner')
  const walks = partners.map((id) => new NewestFirst(reader, id, filter.type, filter.limit + 1))
  const heads = await Promise.all(walks.map((walk) => walk.next()))
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
    heads[pick] = await (walks[pick] as NewestFirst).next()
  }
}

/** One partner's events of a type, newest first, read a page at a time. */
class NewestFirst {
  private page: EventRow[] = []
  private at = 0
  private after?: string
  private done = false

  constructor(
    private readonly reader: StateReader,
    private readonly partnerId: string,
    private readonly type: string | undefined,
    private readonly pageSize: number,
  ) {}

  async next(): Promise<EventRow | undefined> {
    for (;;) {
      while (this.at < this.page.length) {
        const row = this.page[this.at++] as EventRow
        if (!this.type || row.type === this.type) return row
      }
      if (this.done) return undefined
      this.page = await this.reader.range('events_by_partner', this.partnerId, {
        reverse: true,
        after: this.after,
        limit: this.pageSize,
      })
      this.at = 0
      this.done = this.page.length < this.pageSize
      this.after = this.page.at(-1)?.id
    }
  }
}
