import type { z } from '@hono/zod-openapi'
import type { FaultRule } from '../../scenarios/faults.js'
import type { Scenario } from '../../scenarios/schema.js'
import type { Delivery } from '../../schemas/webhooks.js'
import type { JournalEntryView } from '../journal-routes.js'
import type { Ok } from '../router.js'
import type { RuntimeFault, ScenarioSummary } from '../scenario-routes.js'
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
import type { WaitResultSchema } from '../wait-routes.js'
import type { SinkConfigBody, SinkView } from '../webhook-routes.js'

/**
 * The control plane's request and response types, inferred from the zod schemas its routes
 * validate and document with: the client can never drift from the server.
 */
export type SandboxHealth = z.infer<typeof Health>
export type CreatePartnerOptions = z.input<typeof CreatePartnerBody>
export type CreatedSandboxPartner = z.infer<typeof CreatedPartner>
export type SandboxPartnerRecord = z.infer<typeof SandboxPartner>
export type PartnerPatch = z.input<typeof PatchSandboxPartner>
export type SandboxSnapshot = z.infer<typeof SnapshotDoc>
export type SandboxPartnerSnapshot = z.infer<typeof PartnerSnapshotDoc>
export type SandboxClockState = z.infer<typeof ClockState>
export type SandboxOk = z.infer<typeof Ok>
export type SandboxEventEnvelope = z.infer<typeof SandboxEvent>
export type SandboxDelivery = z.infer<typeof Delivery>
export type SandboxInboxMessage = z.infer<typeof InboxMessage>
export type SandboxJournalEntry = z.infer<typeof JournalEntryView>
export type SandboxFault = z.infer<typeof RuntimeFault>
export type SandboxFaultRule = FaultRule
export type SandboxScenarioSummary = z.infer<typeof ScenarioSummary>
export type SandboxScenarioDocument = Scenario
export type SandboxSink = z.infer<typeof SinkView>
export type SandboxSinkConfig = z.input<typeof SinkConfigBody>
export type SandboxWaitResult = z.infer<typeof WaitResultSchema>

/** Every control list: the items, and whether the limit cut the list. */
export interface ControlList<T> {
  data: T[]
  has_more?: boolean
}

/** A partner's own clock (per-partner offset and freeze over the sandbox clock). */
export type PartnerClockState = z.infer<typeof PartnerClockSchema>

/** A duration: milliseconds, or `90s`, `10m`, `1h30m`, `2d`. */
export type Duration = number | string

export interface JournalFilter {
  partner_id?: string
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS'
  /** Exact path; `*` matches any run of characters. */
  path?: string
  status?: number
  faulted?: boolean
}

export interface InboxFilter {
  email?: string
  partner_id?: string
  kind?: SandboxInboxMessage['kind']
  limit?: number
}
