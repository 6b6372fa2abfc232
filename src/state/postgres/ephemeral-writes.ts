import type { CollectionName } from '../../store/records.js'
import type { EphemeralPut } from '../seam.js'
import { batchParamsOf, batchUpsertOf } from './statements.js'

type Query = (text: string, params: unknown[]) => Promise<unknown>

interface Waiter {
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * The ephemeral puts of a PostgreSQL replica (the request journal: two rows a request),
 * written together. While one statement is on its way, the puts asked for meanwhile wait and
 * then go as the next one, whatever their number (statements.ts batchUpsertOf): under load a
 * statement carries many requests' rows, not one, which was most of the database's work and
 * of the driver's for an authenticated read. A lone put is sent at once, so nothing waits for
 * a timer.
 *
 * A row put again before it was sent is sent once, as last put (a ring's slot written by two
 * requests in a row): one INSERT cannot write a row twice. A put resolves once the statement
 * carrying it ended, and fails with it: every waiter of a failed statement hears its error.
 */
export class EphemeralWrites {
  private pending = new Map<string, EphemeralPut>()
  private waiters: Waiter[] = []
  private sending = false

  constructor(private readonly query: Query) {}

  put(puts: readonly EphemeralPut[]): Promise<void> {
    for (const put of puts) {
      const key = `${put.collection}\0${put.row.id}`
      // Taken out first, so a row put again goes after the rows put since (its new place).
      this.pending.delete(key)
      this.pending.set(key, put)
    }
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject })
      if (!this.sending) this.send()
    })
  }

  private send(): void {
    const puts = [...this.pending.values()]
    const waiters = this.waiters
    this.pending = new Map()
    this.waiters = []
    this.sending = true
    const rows = new Map<CollectionName, Record<string, unknown>[]>()
    for (const { collection, row } of puts) {
      const list = rows.get(collection)
      if (list) list.push(row as unknown as Record<string, unknown>)
      else rows.set(collection, [row as unknown as Record<string, unknown>])
    }
    // In one order of the collections: one statement text for each set of them.
    const collections = [...rows.keys()].sort()
    const params = collections.flatMap((c) => batchParamsOf(c, rows.get(c) ?? []))
    let sent: Promise<unknown>
    try {
      sent = this.query(batchUpsertOf(collections), params)
    } catch (error) {
      sent = Promise.reject(error)
    }
    sent
      .then(
        () => {
          for (const waiter of waiters) waiter.resolve()
        },
        (error: unknown) => {
          for (const waiter of waiters) waiter.reject(error)
        },
      )
      .finally(() => {
        this.sending = false
        if (this.waiters.length > 0) this.send()
      })
  }
}
