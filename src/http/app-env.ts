import type { PartnerRow, SessionRow, UserRow } from '../store/records.js'
import type { MetRule, PlainAnswer } from './journal-entry.js'

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
    /** The rules the request met (http/rules.ts), for the request journal. */
    rules: MetRule[]
  }
}
