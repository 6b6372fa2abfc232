import { type EventBus, type EventType, eventEnvelope } from '../domain/events.js'
import { newestFirst } from '../domain/pagination.js'
import { ApiError } from '../errors.js'
import type { State, StateReader, StateTx } from '../state/seam.js'
import type { EventRow, PartnerRow, UserRow } from '../store/records.js'
import {
  applyOverrides,
  checkOverrides,
  type EventOverrides,
  overridesRefused,
  requireValidObject,
} from './event-overrides.js'

/** Amounts of the objects a trigger makes: small, so repeated triggers never hit a limit. */
const TRIGGER_FUND = 25
const TRIGGER_PURCHASE = 4.2

/** The money a trigger makes for real: the money area's own operations, as partners call them. */
export interface TriggerMoney {
  /** A funding of the user's card, written by `tx`; the funding transaction. */
  fund(tx: StateTx, partner: PartnerRow, user: UserRow, amount: number): Promise<{ id: string }>
  /** A purchase on the user's card at `merchant`, written by `tx`; the purchase transaction. */
  purchase(
    tx: StateTx,
    partner: PartnerRow,
    user: UserRow,
    amount: number,
    merchant: { name: string } & Record<string, unknown>,
  ): Promise<{ id: string }>
}

export interface TriggerCtx {
  state: State
  events: EventBus
  money: TriggerMoney
}

/** A row the trigger made for real (so its id resolves over the API). */
export interface MadeObject {
  object: string
  id: string
}

/**
 * Emits an event of `type` for a partner with a fully formed object from its real state, as
 * `stripe trigger` does: a money event makes the real thing through the domain (a purchase for
 * card_transaction.created, a funding for card.funded), so the ids in the payload resolve over
 * the API; any other type re-sends the object of that partner's newest real event of the type
 * (not one a trigger chose the fields of).
 * An explicit `object` is sent as given. `overrides` (event-overrides.ts) set chosen fields;
 * for the money events, `data.object.amount` (and a purchase's merchant) shape the real thing.
 */
export async function triggerEvent(
  ctx: TriggerCtx,
  partner: PartnerRow,
  type: EventType,
  object?: Record<string, unknown>,
  overrides?: EventOverrides,
): Promise<{ event: ReturnType<typeof eventEnvelope>; made: MadeObject[] }> {
  const chosen = overrides && Object.keys(overrides).length > 0 ? overrides : undefined
  if (chosen) {
    const details = checkOverrides(type, chosen)
    if (details.length > 0) throw overridesRefused(details, type)
  }
  const patched = (base: Record<string, unknown>) => {
    if (!chosen) return base
    const next = applyOverrides(base, chosen)
    requireValidObject(type, next)
    return next
  }
  if (!object) {
    const made = await makeReal(ctx, partner, type, patched, chosen)
    if (made) return { event: eventEnvelope(made.event), made: made.made }
  }
  const base = object ?? (await newestEvent(ctx.state, partner.id, type))?.data.object
  if (!base)
    throw new ApiError(
      'conflict',
      `Partner ${partner.slug} has no ${type} event to base one on yet: ${howTo[type.split('.')[0] as string] ?? 'cause one through the API'}, or pass "object".`,
    )
  const next = patched(base)
  const event = await ctx.state.transaction(async (tx) =>
    ctx.events.record(tx, partner.id, type, next, { chosen: chosen !== undefined || !!object }),
  )
  return { event: eventEnvelope(event), made: [] }
}

async function makeReal(
  ctx: TriggerCtx,
  partner: PartnerRow,
  type: EventType,
  patched: (object: Record<string, unknown>) => Record<string, unknown>,
  overrides: EventOverrides = {},
): Promise<{ event: EventRow; made: MadeObject[] } | undefined> {
  if (type !== 'card_transaction.created' && type !== 'card.funded') return undefined
  const holder = await cardholder(ctx.state, partner)
  const amount = overrides['data.object.amount'] as number | undefined
  try {
    // The patch applies to the event the money operation records, inside its transaction.
    // The event is read back in the same transaction: another request's event of this type,
    // committed right after, cannot be taken for it.
    const { id, event } = await ctx.state.transaction(async (tx) => {
      const made = await ctx.events.patching(type, patched, () => {
        if (type === 'card.funded')
          return ctx.money.fund(tx, partner, holder, amount ?? TRIGGER_FUND)
        const merchant = {
          name: 'Sandbox Trigger Store',
          ...(overrides['data.object.merchant'] as object | undefined),
          ...merchantFields(overrides),
        }
        return ctx.money.purchase(tx, partner, holder, amount ?? TRIGGER_PURCHASE, merchant)
      })
      return { id: made.id, event: (await lastRecorded(tx, partner.id, type)) as EventRow }
    })
    return { event, made: [{ object: 'card_transaction', id }] }
  } catch (error) {
    // The domain's own checks of the amount, said of the override that gave it.
    if (error instanceof ApiError && error.code === 'validation_error' && amount !== undefined)
      throw overridesRefused(
        [{ field: 'data.object.amount', message: messageOf(error), location: 'body' }],
        type,
      )
    throw error
  }
}

/** `data.object.merchant.name` and the like, as purchase merchant fields. */
function merchantFields(overrides: EventOverrides) {
  const prefix = 'data.object.merchant.'
  return Object.fromEntries(
    Object.entries(overrides)
      .filter(([path]) => path.startsWith(prefix))
      .map(([path, value]) => [path.slice(prefix.length), value]),
  )
}

const messageOf = (error: ApiError) => error.details?.[0]?.message ?? error.message

/** The user of the partner's newest active card, or a 409 saying how to get one. */
async function cardholder(reader: StateReader, partner: PartnerRow): Promise<UserRow> {
  const cards = (await reader.all('cards')).filter((c) => c.partner_id === partner.id)
  for (const card of newestFirst(cards)) {
    if (card.status !== 'active') continue
    const user = await reader.get('users', card.user_id)
    if (user?.partner_id === partner.id) return user
  }
  throw new ApiError(
    'conflict',
    `Partner ${partner.slug} has no user with an active card: onboard one (POST /api/v1/partner/cards/onboarding, then complete it), or pass "object".`,
  )
}

/** The partner's last recorded event of `type`, read from the newest back a few at a time. */
async function lastRecorded(
  reader: StateReader,
  partnerId: string,
  type: string,
): Promise<EventRow | undefined> {
  let after: string | undefined
  for (;;) {
    const rows = await reader.range('events_by_partner', partnerId, {
      reverse: true,
      after,
      limit: 8,
    })
    const found = rows.find((e) => e.type === type)
    if (found || rows.length < 8) return found
    after = (rows.at(-1) as EventRow).id
  }
}

async function newestEvent(
  reader: StateReader,
  partnerId: string,
  type: string,
): Promise<EventRow | undefined> {
  let newest: EventRow | undefined
  for (const e of await reader.lookup('events_by_partner', partnerId)) {
    // A triggered event's chosen fields are not the partner's state: never resend them.
    if (e.type !== type || e.chosen) continue
    if (!newest || e.created_at >= newest.created_at) newest = e
  }
  return newest
}

const howTo: Record<string, string> = {
  user: 'register a user (POST /api/v1/partner/auth/register)',
  onboarding: 'start an onboarding (POST /api/v1/partner/cards/onboarding)',
  card: 'complete an onboarding',
  deposit: 'create a deposit (POST /api/v1/partner/cards/deposits)',
  dispute: 'open a dispute (POST /api/v1/partner/disputes)',
  external_bank_account: 'connect a bank account (hosted connect page)',
  api_key: 'rotate the key (POST /api/v1/partner/me/rotate-api-key)',
  webhook: 'send a test (POST /api/v1/partner/webhooks/{id}/test)',
  card_transaction: 'make a purchase (POST /api/v1/partner/cards/simulate-purchase)',
}
