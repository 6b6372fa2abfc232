import type { Clock } from './clock.js'
import type { SandboxConfig } from './config.js'
import type { CredentialCache } from './domain/credential-cache.js'
import type { EventBus } from './domain/events.js'
import type { FileStore } from './domain/file-store.js'
import type { Inbox } from './domain/inbox.js'
import type { PartnerClocks } from './domain/partner-clocks.js'
import type { SessionVerifier } from './domain/sessions.js'
import type { Sweeper } from './domain/sweeper.js'
import type { FaultInjector } from './http/faults.js'
import type { RequestJournal } from './http/request-journal.js'
import type { RequestOrigins } from './http/request-origin.js'
import type { Logger } from './logger.js'
import type { Random } from './random.js'
import type { ScenarioRegistry } from './scenarios/registry.js'
import type { BankConnect } from './services/bank-connect.js'
import type { Money } from './services/money.js'
import type { MemoryState } from './state/memory-state.js'
import type { PartnerRow, SessionRow, UserRow } from './store/records.js'
import type { Store } from './store/store.js'
import type { Dispatcher } from './webhooks/dispatcher.js'
import type { SinkRegistry } from './webhooks/sink.js'

/** What routes and domain functions are built from; one per sandbox instance, no singletons. */
export interface Deps {
  config: SandboxConfig
  store: Store
  /** The state seam (state/seam.ts) over `store`: what code moved to services reads and writes. */
  state: MemoryState
  /** The sandbox-wide clock; partner-scoped code reads `clocks.forPartner(id)` instead. */
  clock: Clock
  /** Each partner's own clock over the sandbox clock (offset and freeze per partner). */
  clocks: PartnerClocks
  random: Random
  scenarios: ScenarioRegistry
  logger: Logger
  credentials: CredentialCache
  events: EventBus
  inbox: Inbox
  sessions: SessionVerifier
  files: FileStore
  dispatcher: Dispatcher
  journal: RequestJournal
  faults: FaultInjector
  sweeper: Sweeper
  sinks: SinkRegistry
  /** Where link origins come from: --public-url, else each request's Host. */
  origins: RequestOrigins
  /** The base URL for links the sandbox returns (`origins.baseUrl`). */
  baseUrl(): string
  money: Money
  bankConnect: BankConnect
}

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
     * answer carries them (request-id.ts) and is remembered as `extraHeadersSent`; any other
     * answer gets them set afterwards.
     */
    extraHeaders: Record<string, string>
    extraHeadersSent: Response
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
