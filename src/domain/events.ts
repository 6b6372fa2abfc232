import type { Random } from '../random.js'
import type { StateTx } from '../state/seam.js'
import type { EventRow } from '../store/records.js'
import type { PartnerClocks } from './partner-clocks.js'
import {
  namesOf,
  type ProductionNames,
  renameProviderFields,
  specNames,
} from './production-names.js'

/**
 * The one event bus. Domain code records an event in the same transaction as the change it
 * describes, and the fan-out given at construction adds the event's webhook deliveries to that
 * transaction too (so after a crash all of them exist or none); subscribers hear of the event
 * once it has committed.
 */

export const eventTypes = [
  'user.created',
  'user.updated',
  'onboarding.started',
  'onboarding.completed',
  'onboarding.failed',
  'card.created',
  'card.funded',
  'deposit.created',
  'deposit.succeeded',
  'deposit.failed',
  'card_transaction.created',
  'card_transaction.updated',
  'dispute.created',
  'dispute.updated',
  'external_bank_account.created',
  'api_key.rotated',
  'webhook.test',
] as const
export type EventType = (typeof eventTypes)[number]

export type EventListener = (event: EventRow) => void

/**
 * Runs inside the transaction that records the event, so derived rows (deliveries) commit with
 * it; it reads what it needs (the partner's endpoints, their labs) in that transaction.
 */
export type FanOut = (tx: StateTx, event: EventRow) => Promise<void>

export class EventBus {
  constructor(
    private readonly random: Random,
    private readonly clocks: PartnerClocks,
    /** The webhook deliveries of each event (webhooks/fan-out.ts); none without it. */
    private readonly fanOut?: FanOut,
    /** The sandbox-wide production names; an event's object carries its partner's. */
    private readonly names: ProductionNames = specNames,
  ) {}

  private readonly listeners = new Set<EventListener>()
  /** Rewrites of the objects of some types while a trigger with overrides runs. */
  private readonly patches = new Map<
    string,
    (object: Record<string, unknown>) => Record<string, unknown>
  >()

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Runs `fn` with the object of every `type` event it records rewritten by `patch`, inside the
   * batch that records it: a patch that throws leaves the whole batch (and its change) undone.
   */
  async patching<T>(
    type: EventType,
    patch: (object: Record<string, unknown>) => Record<string, unknown>,
    fn: () => Promise<T>,
  ): Promise<T> {
    // Held until `fn` settles: call it inside a transaction, where writers are serialized,
    // so no other request records an event while the patch is set.
    this.patches.set(type, patch)
    try {
      return await fn()
    } finally {
      this.patches.delete(type)
    }
  }

  /**
   * Adds the event, and its deliveries, to the transaction `tx`; listeners hear of it once the
   * transaction has committed, after the commit's own work is done, in the order recorded
   * (rows written otherwise, a partner's snapshot restored, are not news).
   */
  async record(
    tx: StateTx,
    partnerId: string,
    type: EventType,
    object: Record<string, unknown>,
    options: { fanOut?: boolean; chosen?: boolean } = {},
  ): Promise<EventRow> {
    // A patch that changes nothing hands the object back as is; one that sets fields, a copy.
    const patched = this.patches.get(type)?.(object) ?? object
    // Written with the partner's production names, as Stripe renders an event with the API
    // version of its account when it happens: what is delivered and listed is what was recorded.
    const { provider } = namesOf(this.names, await tx.get('partners', partnerId))
    const event: EventRow = {
      id: this.random.id('evt'),
      partner_id: partnerId,
      type,
      created_at: this.clocks.forPartner(partnerId).iso(),
      data: { object: renameProviderFields(patched, provider) },
      ...(options.chosen || patched !== object ? { chosen: true as const } : {}),
    }
    tx.put('events', event)
    tx.afterCommit(() => queueMicrotask(() => this.heard(event)))
    if (options.fanOut !== false) await this.fanOut?.(tx, event)
    return event
  }

  private heard(event: EventRow): void {
    for (const listener of this.listeners) listener(event)
  }
}

/** The envelope a partner receives (DESIGN.md section 3). */
export function eventEnvelope(event: EventRow) {
  return {
    id: event.id,
    object: 'event' as const,
    type: event.type,
    created: Math.floor(Date.parse(event.created_at) / 1000),
    livemode: false as const,
    api_version: 'v1' as const,
    data: event.data,
  }
}
