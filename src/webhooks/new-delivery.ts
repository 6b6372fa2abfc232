import type { PartnerClocks } from '../domain/partner-clocks.js'
import type { Random } from '../random.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import { type WebhookPolicy, webhookPolicy } from '../scenarios/webhooks.js'
import type { StateWriter } from '../state/seam.js'
import type { DeliveryRow, EventRow, LabCheck, WebhookRow } from '../store/records.js'
import type { WebhookDirectory } from './directory.js'

/** What making a delivery reads: synchronous, so an event's fan-out can run inside `record`. */
export interface DeliveryCtx {
  directory: WebhookDirectory
  clocks: Pick<PartnerClocks, 'nowOf'>
  random: Random
  scenarios: Pick<ScenarioRegistry, 'ownScenarioOf' | 'default'>
}

/** The retry schedule, timeout and signature header of the partner's own scenario. */
export function policyOf(ctx: Omit<DeliveryCtx, 'random'>, partnerId: string): WebhookPolicy {
  const partner = ctx.directory.scenarioOf(partnerId)
  return webhookPolicy(partner ? ctx.scenarios.ownScenarioOf(partner) : ctx.scenarios.default)
}

/**
 * A new delivery of `event` to `webhook`, due at once (or after the scenario's first delay).
 * The dispatcher hears of it when its transaction commits (a rolled-back one leaves nothing).
 */
export function createDelivery(
  ctx: DeliveryCtx,
  writer: StateWriter,
  webhook: WebhookRow,
  event: EventRow,
  redeliveryOf?: string,
  lab?: LabCheck,
): DeliveryRow {
  const policy = policyOf(ctx, webhook.partner_id)
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
    redelivery_of: redeliveryOf ?? null,
    ...(lab ? { lab } : {}),
    created_at: new Date(now).toISOString(),
    completed_at: null,
  }
  writer.put('webhook_deliveries', delivery)
  return delivery
}
