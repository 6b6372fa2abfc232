import type { PartnerRow, SessionRow, UserRow } from '../store/records.js'

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
