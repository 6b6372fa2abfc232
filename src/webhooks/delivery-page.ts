import { unknownCursor } from '../domain/pagination.js'
import type { StateReader } from '../state/seam.js'
import type { DeliveryRow } from '../store/records.js'

/** Rows read at a time while filters skip some. */
const CHUNK = 100

export interface DeliveryQuery {
  limit: number
  starting_after?: string
  status?: string
  event_type?: string
}

/**
 * A page of an endpoint's delivery log, newest first. The index is in time order: the page
 * reads only the rows it shows (and those the filters skip), and the cursor is found through it.
 */
export async function deliveryPage(reader: StateReader, webhookId: string, query: DeliveryQuery) {
  const after = query.starting_after
  if (after !== undefined && !(await reader.has('deliveries_by_webhook', webhookId, after)))
    throw unknownCursor()
  const filtered = Boolean(query.status || query.event_type)
  const keep = (d: DeliveryRow) =>
    (!query.status || d.status === query.status) &&
    (!query.event_type || d.event_type === query.event_type)
  const want = query.limit + 1
  const rows: DeliveryRow[] = []
  let cursor = after
  for (;;) {
    const limit = filtered ? Math.max(CHUNK, want) : want - rows.length
    const chunk = await reader.range('deliveries_by_webhook', webhookId, {
      reverse: true,
      after: cursor,
      limit,
    })
    for (const row of chunk) if (rows.length < want && keep(row)) rows.push(row)
    if (rows.length >= want || chunk.length < limit) break
    cursor = (chunk[chunk.length - 1] as DeliveryRow).id
  }
  return {
    data: rows.slice(0, query.limit),
    has_more: rows.length > query.limit,
  }
}
