import { EventWaiters } from '../control/event-waits.js'
import type { EventBus, EventType } from '../domain/events.js'
import { newestFirst, paginate } from '../domain/pagination.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import type { ProductionNames } from '../domain/production-names.js'
import { listEvents } from '../domain/sandbox-events.js'
import { ApiError } from '../errors.js'
import type { Random } from '../random.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { State } from '../state/seam.js'
import type { LabCheck, WebhookRow } from '../store/records.js'
import { requireDelivery, sendTestEvent } from '../webhooks/deliveries.js'
import { type DeliveryQuery, deliveryPage } from '../webhooks/delivery-page.js'
import type { Dispatcher } from '../webhooks/dispatcher.js'
import type { EventOverrides } from '../webhooks/event-overrides.js'
import { armLab } from '../webhooks/lab.js'
import type { DeliveryCtx } from '../webhooks/new-delivery.js'
import { redeliver } from '../webhooks/redeliver.js'
import { assertNotSelf, type SelfTarget } from '../webhooks/self-target.js'
import {
  addWebhook,
  deleteWebhook,
  requireWebhook,
  rotateWebhookSecret,
  updateWebhook,
  type WebhookInput,
} from '../webhooks/subscriptions.js'
import { type TriggerMoney, triggerEvent } from '../webhooks/trigger.js'

export interface WebhooksOptions {
  state: State
  clocks: PartnerClocks
  random: Random
  scenarios: ScenarioRegistry
  /** The sandbox-wide production names (the signature header of deliveries). */
  names: ProductionNames
  events: EventBus
  dispatcher: Dispatcher
  /** The money a trigger makes for real (the money area's operations). */
  money: TriggerMoney
  /** How many endpoints a partner may have (`--webhook-limit`). */
  webhookLimit: number
  /** The sandbox's own address, which no endpoint may point at (but its sink). */
  self: Pick<SelfTarget, 'reason'>
}

/**
 * Webhook endpoints, their deliveries, the lab, triggered events and event waits: what the
 * partner API's webhook routes and the control plane's call. Every write of a call is one
 * transaction; the sends happen in the dispatcher, outside any.
 */
export class Webhooks {
  /** The control plane's long-polls for a partner's events. */
  readonly waits: EventWaiters

  private readonly o: WebhooksOptions & Required<Pick<DeliveryCtx, 'scheduled'>>

  constructor(o: WebhooksOptions) {
    // The deliveries its calls make are the dispatcher's to send: told of each once committed.
    this.o = { ...o, scheduled: (delivery) => o.dispatcher.scheduled(delivery) }
    this.waits = new EventWaiters(o.state, {
      onEvent: (listener) => o.events.subscribe(listener),
      onAttempt: (listener) => o.dispatcher.onAttempt(listener),
    })
  }

  create(partnerId: string, input: WebhookInput) {
    assertNotSelf(this.o.self, input.url, 'url')
    return this.o.state.transaction(async (tx) => addWebhook(this.o, tx, partnerId, input), {
      partner: partnerId,
    })
  }

  /** A page of the partner's endpoints, newest first. */
  async list(partnerId: string, query: { limit: number; starting_after?: string }) {
    const rows = newestFirst(
      await this.o.state.tenant(partnerId).lookup('webhooks_by_partner', partnerId),
    )
    return paginate(rows, query, (row) => row)
  }

  get(partnerId: string, id: string): Promise<WebhookRow> {
    return requireWebhook(this.o.state.tenant(partnerId), partnerId, id)
  }

  update(partnerId: string, id: string, patch: Partial<WebhookInput>): Promise<WebhookRow> {
    if (patch.url !== undefined) assertNotSelf(this.o.self, patch.url, 'url')
    return this.o.state.transaction(
      async (tx) => updateWebhook(this.o, tx, await requireWebhook(tx, partnerId, id), patch),
      { partner: partnerId },
    )
  }

  /** Removes the endpoint (its pending retries stop); the row as it was. */
  remove(partnerId: string, id: string): Promise<WebhookRow> {
    return this.o.state.transaction(
      async (tx) => {
        const row = await requireWebhook(tx, partnerId, id)
        await deleteWebhook(tx, row)
        return row
      },
      { partner: partnerId },
    )
  }

  rotateSecret(partnerId: string, id: string) {
    return this.o.state.transaction(
      async (tx) => rotateWebhookSecret(this.o, tx, await requireWebhook(tx, partnerId, id)),
      { partner: partnerId },
    )
  }

  sendTest(partnerId: string, id: string) {
    return this.o.state.transaction(
      async (tx) => sendTestEvent(this.o, tx, await requireWebhook(tx, partnerId, id)),
      { partner: partnerId },
    )
  }

  async deliveries(partnerId: string, webhookId: string, query: DeliveryQuery) {
    const own = this.o.state.tenant(partnerId)
    const row = await requireWebhook(own, partnerId, webhookId)
    return deliveryPage(own, row.id, query)
  }

  delivery(partnerId: string, webhookId: string, deliveryId: string) {
    return requireDelivery(this.o.state.tenant(partnerId), partnerId, webhookId, deliveryId)
  }

  redeliver(partnerId: string, webhookId: string, deliveryId: string) {
    return this.o.state.transaction(
      async (tx) => {
        const original = await requireDelivery(tx, partnerId, webhookId, deliveryId)
        await requireWebhook(tx, partnerId, webhookId)
        return redeliver(this.o, tx, original)
      },
      { partner: partnerId },
    )
  }

  /** Any partner's delivery again (the control plane's button). */
  redeliverAny(deliveryId: string) {
    return this.o.state.transaction(async (tx) => {
      const original = await tx.get('webhook_deliveries', deliveryId)
      if (!original) throw new ApiError('not_found', `No delivery ${deliveryId}.`)
      return redeliver(this.o, tx, original)
    })
  }

  armLab(webhookId: string, checks: LabCheck[]) {
    return this.o.state.transaction(async (tx) =>
      armLab(this.o, tx, await this.endpoint(tx, webhookId), checks),
    )
  }

  /** The lab report of an endpoint; 404 when the endpoint or its lab does not exist. */
  async labReport(webhookId: string) {
    await this.endpoint(this.o.state, webhookId)
    const row = await this.o.state.get('webhook_labs', webhookId)
    if (!row)
      throw new ApiError(
        'not_found',
        `The lab was never armed on ${webhookId}: POST /_sandbox/webhooks/${webhookId}/lab { "checks": [...] }.`,
      )
    return row
  }

  /** Emits an event of `type` for a partner (webhooks/trigger.ts). */
  async trigger(
    partnerId: string,
    type: EventType,
    object?: Record<string, unknown>,
    overrides?: EventOverrides,
  ) {
    const partner = await this.o.state.get('partners', partnerId)
    if (!partner) throw new ApiError('not_found', `No partner with id ${partnerId}.`)
    return triggerEvent(this.o, partner, type, object, overrides)
  }

  /** Events as the control plane lists them, newest first. */
  listEvents(filter: Parameters<typeof listEvents>[1]) {
    return listEvents(this.o.state, filter)
  }

  /** Runs every delivery due now and waits for them; how many attempts were made. */
  flush(): Promise<number> {
    return this.o.dispatcher.runDue()
  }

  private async endpoint(reader: Pick<State, 'get'>, id: string): Promise<WebhookRow> {
    const webhook = await reader.get('webhooks', id)
    if (!webhook) throw new ApiError('not_found', `No webhook endpoint ${id}.`)
    return webhook
  }
}
