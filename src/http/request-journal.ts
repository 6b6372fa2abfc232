import type { MiddlewareHandler } from 'hono'
import type { AppEnv, Deps } from '../deps.js'
import { assignRequestId } from './request-id.js'

/**
 * The request journal (`GET /_sandbox/requests`): every request with its partner, status,
 * duration, scenario and any injected fault, newest first. In memory, bounded; it holds
 * no header or body, so no secret reaches it.
 */
export interface JournalEntry {
  id: string
  /** Sandbox time, epoch ms (made ISO when listed: cheaper on the hot path). */
  at: number | string
  method: string
  path: string
  status: number
  duration_ms: number
  partner_id: string | null
  scenario: string | null
  fault: {
    type: 'latency' | 'error' | 'drop_connection'
    latency_ms?: number
    status?: number
    rule: string
  } | null
}

/** A ring buffer: adding is O(1) however full it is (it runs on every request). */
export class RequestJournal {
  private entries: (JournalEntry | undefined)[]
  private next = 0
  private size = 0

  constructor(private readonly capacity = 5000) {
    this.entries = new Array(capacity)
  }

  add(entry: JournalEntry): void {
    this.entries[this.next] = entry
    this.next = (this.next + 1) % this.capacity
    if (this.size < this.capacity) this.size++
  }

  /** Newest first. */
  list(filter: {
    partner_id?: string
    status?: number
    path?: string
    faulted?: boolean
    limit: number
  }): JournalEntry[] {
    const out: JournalEntry[] = []
    for (let n = 1; n <= this.size && out.length < filter.limit; n++) {
      const e = this.entries[(this.next - n + this.capacity) % this.capacity] as JournalEntry
      if (filter.partner_id && e.partner_id !== filter.partner_id) continue
      if (filter.status && e.status !== filter.status) continue
      if (filter.path && !e.path.startsWith(filter.path)) continue
      if (filter.faulted !== undefined && (e.fault !== null) !== filter.faulted) continue
      out.push({ ...e, at: new Date(e.at).toISOString() })
    }
    return out
  }

  clear(): void {
    this.entries = new Array(this.capacity)
    this.next = 0
    this.size = 0
  }
}

/**
 * The first middleware of every request: gives it its id (see request-id.ts), runs `inner`
 * (the request-origin tracking) around the rest, and journals it when it is answered. One
 * layer for all three: each hono layer costs a dispatch and a promise on every request.
 */
export function requestJournal(
  deps: Deps,
  generateId: () => string,
  inner?: MiddlewareHandler<AppEnv>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now()
    assignRequestId(c, generateId)
    try {
      await (inner ? inner(c, next) : next())
    } finally {
      const partner = c.get('partner')
      deps.journal.add({
        id: c.get('requestId'),
        at: deps.clock.now(),
        method: c.req.method,
        // Bounded in bytes too: a 16 KB URL is journaled by its first 2 KB (README "Retention").
        path: c.req.path.length > 2048 ? c.req.path.slice(0, 2048) : c.req.path,
        status: c.res.status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        partner_id: partner?.id ?? null,
        // The request's own scenario, when it had one: the journal runs outside its context.
        scenario: partner ? (c.get('scenario') ?? deps.scenarios.forPartner(partner).name) : null,
        fault: c.get('fault') ?? null,
      })
    }
  }
}
