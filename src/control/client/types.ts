import type { z } from '@hono/zod-openapi'
import type { Scenario } from '../../scenarios/schema.js'
import type { Delivery } from '../../schemas/webhooks.js'
import type { JournalEntryView } from '../journal-routes.js'
import type { WalkBody, WalkedOnboarding } from '../onboarding-routes.js'
import type { Ok } from '../router.js'
import type { RuleBody, RuleView } from '../rule-routes.js'
import type { ScenarioSummary } from '../scenario-routes.js'
import type {
  ClockState,
  CreatedPartner,
  CreatePartnerBody,
  Health,
  PartnerClockState as PartnerClockSchema,
  PartnerSnapshotDoc,
  PatchSandboxPartner,
  SandboxEvent,
  SandboxPartner,
  SnapshotDoc,
} from '../schemas.js'
import type { InboxMessage } from '../user-routes.js'
import type { VerifyResult } from '../verify-routes.js'
import type { WaitResultSchema } from '../wait-routes.js'
import type { LabReport } from '../webhook-lab-routes.js'
import type { SinkConfigBody, SinkView, TriggerResult } from '../webhook-routes.js'

// The control plane's request and response types, inferred from the zod schemas its routes
// validate and document with: the client can never drift from the server. Interfaces, not
// aliases, so declarations name them rather than repeat their shape. The published
// declarations carry them expanded into plain TypeScript (scripts/public-types.mjs): users
// have no zod installed.
export interface SandboxHealth extends z.infer<typeof Health> {}
export interface CreatePartnerOptions extends z.input<typeof CreatePartnerBody> {}
export interface CreatedSandboxPartner extends z.infer<typeof CreatedPartner> {}
export interface SandboxPartnerRecord extends z.infer<typeof SandboxPartner> {}
export interface PartnerPatch extends z.input<typeof PatchSandboxPartner> {}
export interface SandboxSnapshot extends z.infer<typeof SnapshotDoc> {}
export interface SandboxPartnerSnapshot extends z.infer<typeof PartnerSnapshotDoc> {}
export interface SandboxClockState extends z.infer<typeof ClockState> {}
export interface SandboxOk extends z.infer<typeof Ok> {}
export interface SandboxEventEnvelope extends z.infer<typeof SandboxEvent> {}
export interface SandboxDelivery extends z.infer<typeof Delivery> {}
export interface SandboxInboxMessage extends z.infer<typeof InboxMessage> {}
export interface SandboxJournalEntry extends z.infer<typeof JournalEntryView> {}
export interface SandboxScenarioSummary extends z.infer<typeof ScenarioSummary> {}
export type SandboxScenarioDocument = Scenario
export interface SandboxSink extends z.infer<typeof SinkView> {}
export interface SandboxSinkConfig extends z.input<typeof SinkConfigBody> {}
export interface SandboxWaitResult extends z.infer<typeof WaitResultSchema> {}
export interface SandboxRule extends z.infer<typeof RuleView> {}
export interface SandboxRuleRequest extends z.input<typeof RuleBody> {}
export interface SandboxWalkedOnboarding extends z.infer<typeof WalkedOnboarding> {}
export type SandboxFlowEnd = NonNullable<z.input<typeof WalkBody>['end']>
export interface SandboxVerifyResult extends z.infer<typeof VerifyResult> {}
export interface SandboxTriggerResult extends z.infer<typeof TriggerResult> {}
export interface SandboxWebhookLabReport extends z.infer<typeof LabReport> {}
export type SandboxLabCheck = SandboxWebhookLabReport['checks'][number]['check']

export interface TriggerOptions {
  /** Chosen fields by dotted path: `{ 'data.object.amount': 12.34 }` (docs/events.md). */
  overrides?: Record<string, unknown>
}

/** Every control list: the items, and whether the limit cut the list. */
export interface ControlList<T> {
  data: T[]
  has_more?: boolean
}

/** A partner's own clock (per-partner offset and freeze over the sandbox clock). */
export interface PartnerClockState extends z.infer<typeof PartnerClockSchema> {}

/** A duration: milliseconds, or `90s`, `10m`, `1h30m`, `2d`. */
export type Duration = number | string

export interface JournalFilter {
  partner_id?: string
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS'
  /** Exact path; `*` matches any run of characters. */
  path?: string
  status?: number
  /** Only requests a rule met (true), or none met (false). */
  ruled?: boolean
  /** Query parameters the request had (values as strings). */
  query?: Record<string, string>
  /** Headers the request had: names in any case, values as journaled (secrets redacted). */
  headers?: Record<string, string>
  /** A JSON subset of the request body; redacted fields cannot be matched by value. */
  body?: unknown
}

/** What `requests.verify` looks for: the journal's criteria, by content and by route. */
export interface VerifyFilter
  extends Pick<JournalFilter, 'partner_id' | 'method' | 'path' | 'query' | 'headers' | 'body'> {}

export interface InboxFilter {
  email?: string
  partner_id?: string
  kind?: SandboxInboxMessage['kind']
  limit?: number
}
