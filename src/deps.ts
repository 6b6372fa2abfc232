import type { Clock } from './clock.js'
import type { SandboxConfig } from './config.js'
import type { CredentialCache } from './domain/credential-cache.js'
import type { EventBus } from './domain/events.js'
import type { FileStore } from './domain/file-store.js'
import type { Inbox } from './domain/inbox.js'
import type { PartnerClocks } from './domain/partner-clocks.js'
import type { SessionVerifier } from './domain/sessions.js'
import type { Sweeper } from './domain/sweeper.js'
import type { RequestOrigins } from './http/request-origin.js'
import type { Logger } from './logger.js'
import type { Random } from './random.js'
import type { LoadedScenarios } from './scenarios/loaded-scenarios.js'
import type { ScenarioRegistry } from './scenarios/registry.js'
import type { Accounts } from './services/accounts.js'
import type { BankConnect } from './services/bank-connect.js'
import type { Faults } from './services/faults.js'
import type { RequestJournal } from './services/journal.js'
import type { Money } from './services/money.js'
import type { Onboarding } from './services/onboarding.js'
import type { Overrides } from './services/overrides.js'
import type { Partners } from './services/partners.js'
import type { Platform } from './services/platform.js'
import type { Webhooks } from './services/webhooks.js'
import type { MemoryState } from './state/memory-state.js'
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
  faults: Faults
  overrides: Overrides
  sweeper: Sweeper
  sinks: SinkRegistry
  webhooks: Webhooks
  /** Where link origins come from: --public-url, else each request's Host. */
  origins: RequestOrigins
  onboarding: Onboarding
  /** The base URL for links the sandbox returns (`origins.baseUrl`). */
  baseUrl(): string
  /** End users: registration, login, sessions, passwords, profile (services/accounts.ts). */
  accounts: Accounts
  /** Partner organizations and their credentials (services/partners.ts). */
  partners: Partners
  /** The sandbox as a whole for the control plane: health, reset, snapshots, partner state. */
  platform: Platform
  /** Scenarios loaded through the control plane, kept in the state. */
  loadedScenarios: LoadedScenarios
  money: Money
  bankConnect: BankConnect
}
