import type { PartnerRow, SessionRow, UserRow } from '../store/records.js'
import type { PlainAnswer } from './journal-entry.js'

/** Typed context variables set by our middleware. */
export interface AppEnv {
  Variables: {
    requestId: string
    partner: PartnerRow
    /** Set on Org + User routes by the session middleware. */
    user: UserRow
    session: SessionRow
    /** The request's own scenario (X-Sandbox-Scenario), for the request journal. */
    scenario: string
    /**
     * Headers for the answer, known before the route runs (the rate limit's): a plain c.json
     * answer carries them (fast-path.ts) and is remembered as `extraHeadersSent`; any other
     * answer gets them set afterwards.
     */
    extraHeaders: Record<string, string>
    extraHeadersSent: Response
    /** The last plain JSON answer built (fast-path.ts), for the journal to read it from. */
    plainAnswer: PlainAnswer
    /** The response override that answered, for the request journal. */
    override: { id: string; off_contract: boolean }
    /** An injected fault, for the request journal. */
    fault: {
      type: 'latency' | 'error' | 'drop_connection'
      latency_ms?: number
      status?: number
      rule: string
    }
  }
}
