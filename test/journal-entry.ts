import type { JournalEntry } from '../src/http/journal-entry.js'

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
  fault: null,
  capture: undefined,
})
