import { z } from 'zod'
import type { Capture, ShownCapture, StoredEntry } from '../http/journal-entry.js'

/**
 * The rows of the sandbox's traffic: the request journal.
 * They are ephemeral (never journaled to the data file nor snapshotted) and survive a reset or
 * restore, which replace the data, not the traffic.
 */

const isObject = (value: unknown) => typeof value === 'object' && value !== null

/**
 * One journaled request, in a ring: its id (`jrn_<slot>`) is its slot, so journaling a
 * request writes over the oldest one in one upsert. The entry is kept as the front door made
 * it (its id is the request id: a client may send the same X-Request-Id twice, and both are
 * kept), without its capture (see requestCaptureRow).
 */
export const requestJournalRow = z.object({
  id: z.string().startsWith('jrn_'),
  /** Its place among every request journaled, zero-padded: it sorts as a string. */
  seq: z.string(),
  /** The partner whose request it was (the entry's), as a column a list can be found by. */
  partner_id: z.string().nullable(),
  entry: z.custom<StoredEntry>(isObject),
})
export type RequestJournalRow = z.infer<typeof requestJournalRow>

/** A request's place among every request journaled, zero-padded: sorts as the number does. */
export const seqOf = (n: number) => String(n).padStart(15, '0')
/** The number of a request, the end of its `seq` (its slot in each ring). */
export const numberOf = (seq: string) => Number(seq.slice(-15))
/** The row ids of a ring's slots, made once: a string a write reuses is hashed once. */
export const slotIds = (size: number) => Array.from({ length: size }, (_, slot) => `jrn_${slot}`)

/**
 * The headers and bodies of the newest BODY_WINDOW journaled requests, in a ring of their own
 * (`jrn_<slot>`); a request's are those with its `seq`. In memory, references, not copies: the
 * capture runs on every request, and redaction happens when the journal is read
 * (journal-view.ts). An engine that keeps rows as JSON (PostgreSQL) keeps them as shown.
 */
export const requestCaptureRow = z.object({
  id: z.string().startsWith('jrn_'),
  seq: z.string(),
  /** Null for a request that keeps none (the control plane's own). */
  capture: z
    .custom<Capture | ShownCapture>(
      (v) => isObject(v) && ((v as Capture).response instanceof Response || 'request' in v),
    )
    .nullable(),
})
export type RequestCaptureRow = z.infer<typeof requestCaptureRow>
