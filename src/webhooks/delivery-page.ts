import { statePage } from '../domain/state-page.js'
import type { StateReader } from '../state/seam.js'
import type { DeliveryRow } from '../store/records.js'

export interface DeliveryQuery {
  limit: number
  starting_after?: string
  status?: string
  event_type?: string
}

/**
 * A page of an endpoint's delivery log, newest first (statePage: the index is in time order,
 * so the page reads only the rows it shows and those the filters skip).
 */
export function deliveryPage(reader: StateReader, webhookId: string, query: DeliveryQuery) {
  const filtered = Boolean(query.status || query.event_type)
  const keep = (d: DeliveryRow) =>
    (!query.status || d.status === query.status) &&
    (!query.event_type || d.event_type === query.event_type)
  return statePage(reader, 'deliveries_by_webhook', webhookId, query, filtered ? keep : undefined)
}
