/**
 * One request as the journal keeps it (request-journal.ts) and the shapes its view is built
 * from (journal-view.ts): here so that both read them without importing each other.
 */
export interface JournalEntry {
  id: string
  /** Sandbox time, epoch ms (made ISO when read). */
  at: number
  method: string
  path: string
  /** The query string as sent (`?limit=5`), or ''; shown parsed and redacted. */
  query?: string
  status: number
  duration_ms: number
  partner_id: string | null
  scenario: string | null
  /** Every rule the request met (http/rules.ts), in the order they were tried. */
  rules?: MetRule[]
  /**
   * Headers and bodies. The journal takes them out of the entry when it adds it, and keeps
   * them apart for the newest BODY_WINDOW requests only.
   */
  capture: Capture | undefined
}

/** A rule a request met, as its journal entry says. */
export interface MetRule {
  /** The rule's id (`rul_…`), or `Prefer: code=503` for the header's one-request rule. */
  id: string
  /** `<scenario> rules[<n>]` for a rule of the scenario in force. */
  scenario?: string
  /** What it did. */
  effect: 'respond' | 'drop_connection' | 'decide' | 'latency'
  /** The status it answered, and whether that answer was off the API's contract. */
  status?: number
  off_contract?: boolean
  /** The decisions it took. */
  decide?: Record<string, string>
  /** The delay it added. */
  latency_ms?: number
}

/** An entry as the journal keeps it: its capture is kept apart. */
export type StoredEntry = Omit<JournalEntry, 'capture'>

/** A request's or response's headers and body as the journal shows them (redacted, cut). */
export interface ShownMessage {
  headers: Record<string, string>
  body: unknown
  truncated: boolean
}

/**
 * A capture as shown (journal-view.ts showCapture): what an engine that keeps copies of its
 * rows (PostgreSQL) stores, since the live objects of a Capture do not survive JSON.
 */
export interface ShownCapture {
  request: ShownMessage | null
  response: ShownMessage | null
}

/**
 * What the journal keeps of a request, by reference only: the request's headers, hono's
 * body cache (the body the route parsed, if it parsed one) and the response.
 */
export interface Capture {
  /** Node's raw name/value list when served (retained lighter than a Headers), else Headers. */
  requestHeaders: Headers | readonly string[]
  requestBody: Record<string, Promise<unknown> | undefined> | 'too_large'
  response: Response
  /** The answer went out on a socket (@hono/node-server), not to a caller in process. */
  served?: boolean
  /** The answer's text, when it was read before it went out (readAnswerFirst). */
  text?: string
  /** Filled on the first read: a response body can be read only once. */
  shown?: Promise<ShownMessage | null>
}
