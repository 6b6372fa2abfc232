import { ApiError, validationError } from '../errors.js'
import type { StateReader } from '../state/seam.js'
import type { DeliveryRow, EventRow } from '../store/records.js'

/** A long-poll never holds a request longer than this; a client waiting longer asks again. */
export const MAX_WAIT_MS = 30_000
/** Requests waiting at once, across partners: each holds a socket, two hints and two timers. */
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

/** Events read at a time while looking for a match. */
const PAGE = 100
/** How often (real time) a waiter reads its partner's events again while it waits. */
export const POLL_MS = 200

/**
 * The first event (in the order recorded) that answers the query, if there is one already:
 * read from just after `after` through the partner's index, and each event's deliveries
 * through theirs, so a waiter costs what comes after its cursor, not the partner's history.
 */
async function findMatch(reader: StateReader, q: WaitQuery) {
  // An `after` event wiped meanwhile (a partner reset) leaves only newer events behind.
  let after =
    q.after && (await reader.has('events_by_partner', q.partnerId, q.after)) ? q.after : undefined
  for (;;) {
    const events = await reader.range('events_by_partner', q.partnerId, { after, limit: PAGE })
    for (const event of events) {
      if (!typeMatches(q.type, event.type)) continue
      if (!q.delivered) return { event, delivery: null }
      for (const delivery of await reader.lookup('deliveries_by_event', event.id)) {
        if (delivery.status === 'succeeded') return { event, delivery }
      }
    }
    if (events.length < PAGE) return undefined
    after = (events[events.length - 1] as EventRow).id
  }
}

/**
 * What this process tells a waiter of its own commits (hints: another process's are read at
 * the next poll): an event recorded, and a delivery attempt recorded. Each answers a function
 * that stops the listening.
 */
export interface WaitHints {
  onEvent(listener: (event: EventRow) => void): () => void
  onAttempt(listener: (delivery: DeliveryRow) => void): () => void
}

/**
 * Answers as soon as an event (or a succeeded delivery) matching the query exists: at once
 * when one does, else when a look at the rows finds one, else at the timeout. The rows are
 * read again every POLL_MS while the waiter waits, so an event recorded through any process
 * answers it; an event or an attempt this process recorded for the partner looks at once (a
 * hint only, WaitHints). The waiter is two hints and two timers, all released on answer.
 */
export class EventWaiters {
  private waiting = 0

  constructor(
    private readonly state: StateReader,
    private readonly hints: WaitHints,
  ) {}

  /** How many requests are waiting now. */
  get size(): number {
    return this.waiting
  }

  async wait(q: WaitQuery): Promise<WaitResult> {
    const state = this.state
    if (!(await state.get('partners', q.partnerId)))
      throw new ApiError('not_found', `No partner with id ${q.partnerId}.`)
    if (q.after) {
      const after = await state.get('events', q.after)
      if (!after || after.partner_id !== q.partnerId)
        throw validationError('after', `is not an event of partner ${q.partnerId}`, 'query')
    }
    const found = await findMatch(state, q)
    if (found) return { status: 'matched', ...found }
    if (this.waiting >= MAX_WAITERS)
      throw new ApiError('rate_limited', `Too many waiting requests (at most ${MAX_WAITERS}).`, {
        headers: { 'Retry-After': '1' },
      })
    this.waiting++
    return new Promise((resolve) => {
      let settled = false
      let checking = false
      let again = false
      const finish = (result: WaitResult) => {
        if (settled) return
        settled = true
        this.waiting--
        clearTimeout(timer)
        clearInterval(poll)
        for (const stop of stops) stop()
        q.signal?.removeEventListener('abort', onAbort)
        resolve(result)
      }
      // One look at a time; a commit heard meanwhile makes it look once more. A look that
      // fails (a database outage) is tried again at the next poll.
      const check = async () => {
        if (checking) {
          again = true
          return
        }
        checking = true
        try {
          do {
            again = false
            const match = await findMatch(state, q)
            if (match && !settled) finish({ status: 'matched', ...match })
          } while (again && !settled)
        } catch {
          // Looked at again at the next poll.
        } finally {
          checking = false
        }
      }
      const hinted = (row: EventRow | DeliveryRow) => {
        if (!settled && row.partner_id === q.partnerId) void check()
      }
      const stops = [
        this.hints.onEvent(hinted),
        this.hints.onAttempt((delivery) => {
          if (q.delivered && delivery.status === 'succeeded') hinted(delivery)
        }),
      ]
      const timer = setTimeout(
        () => finish({ status: 'timeout', event: null, delivery: null }),
        q.timeoutMs,
      )
      const poll = setInterval(() => {
        if (!settled && !checking) void check()
      }, POLL_MS)
      // A pending wait must not keep a process alive that is otherwise done.
      timer.unref?.()
      poll.unref?.()
      const onAbort = () => finish({ status: 'aborted', event: null, delivery: null })
      if (q.signal?.aborted) onAbort()
      else {
        q.signal?.addEventListener('abort', onAbort)
        // What committed between the first look and the subscription.
        void check()
      }
    })
  }
}
