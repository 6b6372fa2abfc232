import type { MiddlewareHandler } from 'hono'
import type { AppEnv, Deps } from '../deps.js'

/**
 * The request journal (`GET /_sandbox/requests`): every request with its partner, status,
 * duration, scenario and any injected fault, newest first. In memory, bounded; it holds
 * no header or body, so no secret reaches it.
 */
export interface JournalEntry {
  id: string
  at: string
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

export class RequestJournal {
  private entries: JournalEntry[] = []

  constructor(private readonly capacity = 5000) {}

  add(entry: JournalEntry): void {
    this.entries.push(entry)
    if (this.entries.length > this.capacity)
      this.entries.splice(0, this.entries.length - this.capacity)
  }

  list(filter: {
    partner_id?: string
    status?: number
    path?: string
    faulted?: boolean
    limit: number
  }): JournalEntry[] {
    const out: JournalEntry[] = []
    for (let i = this.entries.length - 1; i >= 0 && out.length < filter.limit; i--) {
      const e = this.entries[i] as JournalEntry
      if (filter.partner_id && e.partner_id !== filter.partner_id) continue
      if (filter.status && e.status !== filter.status) continue
      if (filter.path && !e.path.startsWith(filter.path)) continue
      if (filter.faulted !== undefined && (e.fault !== null) !== filter.faulted) continue
      out.push(e)
    }
    return out
  }

  clear(): void {
    this.entries = []
  }
}

export function requestJournal(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now()
    try {
      await next()
    } finally {
      const partner = c.get('partner')
      deps.journal.add({
        id: c.get('requestId'),
        at: deps.clock.iso(),
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        partner_id: partner?.id ?? null,
        scenario: partner ? deps.scenarios.forPartner(partner).name : null,
        fault: c.get('fault') ?? null,
      })
    }
  }
}
