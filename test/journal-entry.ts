import type { JournalEntry } from '../src/http/journal-entry.js'
import { RequestJournal } from '../src/services/journal.js'
import { MemoryState } from '../src/state/memory-state.js'
import { PostgresState } from '../src/state/postgres/postgres-state.js'
import { defineIndexes } from '../src/store/indexes.js'
import { emptyCollections, ephemeralCollections } from '../src/store/records.js'
import { Store } from '../src/store/store.js'
import { freshDatabaseUrl } from './postgres.js'

/** A request-journal entry numbered `n` (a GET of /p/n), without headers or bodies. */
export const journalEntry = (n: number, partnerId: string | null = null): JournalEntry => ({
  id: `req_${n}`,
  at: n,
  method: 'GET',
  path: `/p/${n}`,
  status: 200,
  duration_ms: 1,
  partner_id: partnerId,
  scenario: null,
  capture: undefined,
})

/**
 * A request journal of its own (capacity, body window) over a memory state (its rings), or over
 * a new PostgreSQL schema (the journal's rows, as a sandbox on PostgreSQL keeps them).
 */
export async function standaloneJournal(
  capacity: number,
  bodyWindow: number,
  engine: 'memory' | 'postgres' = 'memory',
) {
  if (engine === 'postgres') {
    const state = await PostgresState.open({ url: freshDatabaseUrl(), seed: emptyCollections })
    return new RequestJournal({ state, capacity, bodyWindow })
  }
  const store = await Store.open({ seed: emptyCollections, ephemeral: ephemeralCollections })
  defineIndexes(store)
  return new RequestJournal({
    state: new MemoryState(store),
    inProcess: true,
    capacity,
    bodyWindow,
  })
}
