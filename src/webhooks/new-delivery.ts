import type { PartnerClocks } from '../domain/partner-clocks.js'
import { namesOf, type ProductionNames } from '../domain/production-names.js'
import type { Random } from '../random.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import { type WebhookPolicy, webhookPolicy } from '../scenarios/webhooks.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { DeliveryRow, EventRow, LabCheck, WebhookRow } from '../store/records.js'

/** What making a delivery uses besides the transaction it is made in. */
export interface DeliveryCtx {
  clocks: Pick<PartnerClocks, 'nowOf'>
  random: Random
  scenarios: Pick<ScenarioRegistry, 'ownScenarioOf' | 'default'>
  /** The sandbox-wide production names (a partner's own override them). */
  names: ProductionNames
  /** Told of each delivery made, once its transaction has committed (the dispatcher's hint). */
  scheduled?: (delivery: DeliveryRow) => void
}

/**
 * The retry schedule, timeout and signature header of the partner's own scenario, as the
 * partner row read through `reader` names it (a transaction's: the row as it sees it). The
 * signature header is the scenario's, else the partner's production name, else the sandbox's.
 */
export async function policyOf(
  ctx: Pick<DeliveryCtx, 'scenarios' | 'names'>,
  reader: Pick<StateReader, 'get'>,
  partnerId: string,
): Promise<WebhookPolicy> {
  const partner = await reader.get('partners', partnerId)
  const header = namesOf(ctx.names, partner).signatureHeader
  return webhookPolicy(
    partner ? ctx.scenarios.ownScenarioOf(partner) : ctx.scenarios.default,
    header,
  )
}

export interface NewDeliveryOptions {
  /** The delivery this one sends again (redeliver). */
  redeliveryOf?: string
  /** The webhook lab's check it is. */
  lab?: LabCheck
  /** The partner's policy, when the caller read it already (a fan-out, once per event). */
  policy?: WebhookPolicy
}

/**
 * A new delivery of `event` to `webhook`, due at once (or after the scenario's first delay).
 * Its row is the dispatcher's schedule: it is taken once the transaction has committed (a
 * rolled-back one leaves nothing), sooner when `ctx.scheduled` is told of it.
 */
export async function createDelivery(
  ctx: DeliveryCtx,
  tx: StateTx,
  webhook: WebhookRow,
  event: EventRow,
  options: NewDeliveryOptions = {},
): Promise<DeliveryRow> {
  const policy = options.policy ?? (await policyOf(ctx, tx, webhook.partner_id))
  const now = ctx.clocks.nowOf(webhook.partner_id)
  const delivery: DeliveryRow = {
    id: ctx.random.id('dlv'),
    partner_id: webhook.partner_id,
    webhook_id: webhook.id,
    event_id: event.id,
    event_type: event.type,
    url: webhook.url,
    status: 'pending',
    attempts: [],
    next_attempt_at: new Date(now + (policy.delays[0] ?? 0)).toISOString(),
    redelivery_of: options.redeliveryOf ?? null,
    ...(options.lab ? { lab: options.lab } : {}),
    created_at: new Date(now).toISOString(),
    completed_at: null,
  }
  tx.put('webhook_deliveries', delivery)
  const { scheduled } = ctx
  if (scheduled) tx.afterCommit(() => scheduled(delivery))
  return delivery
}
