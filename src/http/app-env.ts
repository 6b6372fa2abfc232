import type { IncomingMessage } from 'node:http'
import type { PartnerRow, SessionRow, UserRow } from '../store/records.js'
import type { MetRule } from './journal-entry.js'

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
    /** The rules the request met (http/rules.ts), for the request journal. */
    rules: MetRule[]
  }
}

/**
 * The Node request behind @hono/node-server (its HttpBindings' `incoming`): present when the
 * request came on a socket, absent in process (`app.request`).
 */
export const nodeRequest = (c: { env: unknown }): IncomingMessage | undefined =>
  (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
