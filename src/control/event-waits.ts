import type { Deps } from '../deps.js'
import { ApiError, validationError } from '../errors.js'
import type { DeliveryRow, EventRow } from '../store/records.js'

/** A long-poll never holds a request longer than this; a client waiting longer asks again. */
export const MAX_WAIT_MS = 30_000
/** Requests waiting at once, across partners: each holds a socket and two subscriptions. */
export const MAX_WAITERS = 1000

export interface WaitQuery {
  partnerId: string
  /** An event type, or a family such as `card.*`; every type when absent. */
  type?: string
  /** Only events recorded after this one (an event id of the same partner). */
  after?: string
  /** Wait until a delivery of the event succeeded (the partner's endpoint got it). */
  delivered: boolean
  timeoutMs: number
  /** Aborted when the client goes away: the waiter is dropped at once. */
  signal?: AbortSignal
}

export type WaitResult =
  | { status: 'matched'; event: EventRow; delivery: DeliveryRow | null }
  | { status: 'timeout' | 'aborted'; event: null; delivery: null }

const typeMatches = (wanted: string | undefined, type: string) =>
  !wanted || wanted === type || (wanted.endsWith('.*') && type.startsWith(wanted.slice(0, -1)))

/**
 * The first event (in the order recorded) that answers the query, if there is one already:
 * read from just after `after` through the partner's index, and each event's deliveries
 * through theirs, so a waiter costs what comes after its cursor, not the partner's history.
 */
function findMatch(deps: Deps, q: WaitQuery) {
  const { store } = deps
  // An `after` event wiped meanwhile (a partner reset) leaves only newer events behind.
  const after =
    q.after && store.has('events', 'events_by_partner', q.partnerId, q.after) ? q.after : undefined
  for (const event of store.scan('events', 'events_by_partner', q.partnerId, { after })) {
    if (!typeMatches(q.type, event.type)) continue
    if (!q.delivered) return { event, delivery: null }
    for (const delivery of store.scan('webhook_deliveries', 'deliveries_by_event', event.id)) {
      if (delivery.status === 'succeeded') return { event, delivery }
    }
  }
  return undefined
}

/**
 * Answers as soon as an event (or a succeeded delivery) matching the query exists: at once
 * when one does, else when the event bus or the dispatcher reports one, else at the timeout.
 * Nothing polls: the waiter is a pair of subscriptions and one timer, all released on answer.
 */
export class EventWaiters {
  private waiting = 0

  constructor(private readonly deps: Deps) {}

  /** How many requests are waiting now. */
  get size(): number {
    return this.waiting
  }

  wait(q: WaitQuery): Promise<WaitResult> {
    const deps = this.deps
    if (!deps.store.get('partners', q.partnerId))
      throw new ApiError('not_found', `No partner with id ${q.partnerId}.`)
    if (q.after) {
      const after = deps.store.get('events', q.after)
      if (!after || after.partner_id !== q.partnerId)
        throw validationError('after', `is not an event of partner ${q.partnerId}`, 'query')
    }
    const found = findMatch(deps, q)
    if (found) return Promise.resolve({ status: 'matched', ...found })
    if (this.waiting >= MAX_WAITERS)
      throw new ApiError('rate_limited', `Too many waiting requests (at most ${MAX_WAITERS}).`, {
        headers: { 'Retry-After': '1' },
      })
    this.waiting++
    return new Promise((resolve) => {
      let settled = false
      const finish = (result: WaitResult) => {
        if (settled) return
        settled = true
        this.waiting--
        clearTimeout(timer)
        stopEvents()
        stopDeliveries?.()
        q.signal?.removeEventListener('abort', onAbort)
        resolve(result)
      }
      const check = () => {
        const match = findMatch(deps, q)
        if (match) finish({ status: 'matched', ...match })
      }
      const stopEvents = deps.events.subscribe((event) => {
        if (event.partner_id === q.partnerId) check()
      })
      const stopDeliveries = q.delivered
        ? deps.dispatcher.onAttempt((d) => {
            if (d.partner_id === q.partnerId && d.status === 'succeeded') check()
          })
        : undefined
      const timer = setTimeout(
        () => finish({ status: 'timeout', event: null, delivery: null }),
        q.timeoutMs,
      )
      // A pending wait must not keep a process alive that is otherwise done.
      timer.unref?.()
      const onAbort = () => finish({ status: 'aborted', event: null, delivery: null })
      if (q.signal?.aborted) onAbort()
      else q.signal?.addEventListener('abort', onAbort)
    })
  }
}
