import type { Deps } from '../deps.js'
import { type EventType, eventEnvelope } from '../domain/events.js'
import { simulateFund } from '../domain/funding.js'
import { newestFirst } from '../domain/pagination.js'
import { simulatePurchase } from '../domain/purchases.js'
import { ApiError } from '../errors.js'
import type { EventRow, PartnerRow, UserRow } from '../store/records.js'

/** Amounts of the objects a trigger makes: small, so repeated triggers never hit a limit. */
const TRIGGER_FUND = 25
const TRIGGER_PURCHASE = 4.2

/**
 * Emits an event of `type` for a partner with a fully formed object from its real state, as
 * `stripe trigger` does: a money event makes the real thing through the domain (a purchase for
 * card_transaction.created, a funding for card.funded), so the ids in the payload resolve over
 * the API; any other type re-sends the object of that partner's newest real event of the type.
 * An explicit `object` is sent as given.
 */
export function triggerEvent(
  deps: Deps,
  partner: PartnerRow,
  type: EventType,
  object?: Record<string, unknown>,
) {
  if (object) {
    let event!: EventRow
    deps.store.batch((w) => {
      event = deps.events.record(deps, w, partner.id, type, object)
    })
    return eventEnvelope(event)
  }
  const made = makeReal(deps, partner, type)
  if (made) return eventEnvelope(made)
  const last = newestEvent(deps, partner.id, type)
  if (!last)
    throw new ApiError(
      'conflict',
      `Partner ${partner.slug} has no ${type} event to base one on yet: ${howTo[type.split('.')[0] as string] ?? 'cause one through the API'}, or pass "object".`,
    )
  let event!: EventRow
  deps.store.batch((w) => {
    event = deps.events.record(deps, w, partner.id, type, last.data.object)
  })
  return eventEnvelope(event)
}

function makeReal(deps: Deps, partner: PartnerRow, type: EventType): EventRow | undefined {
  if (type !== 'card_transaction.created' && type !== 'card.funded') return undefined
  const holder = cardholder(deps, partner)
  if (type === 'card.funded') simulateFund(deps, partner, holder, TRIGGER_FUND)
  else simulatePurchase(deps, partner, holder, TRIGGER_PURCHASE, { name: 'Sandbox Trigger Store' })
  return newestEvent(deps, partner.id, type)
}

/** The user of the partner's newest active card, or a 409 saying how to get one. */
function cardholder(deps: Deps, partner: PartnerRow): UserRow {
  for (const card of newestFirst(deps.store.all('cards'))) {
    if (card.status !== 'active') continue
    const user = deps.store.get('users', card.user_id)
    if (user?.partner_id === partner.id) return user
  }
  throw new ApiError(
    'conflict',
    `Partner ${partner.slug} has no user with an active card: onboard one (POST /api/v1/partner/cards/onboarding, then complete it), or pass "object".`,
  )
}

function newestEvent(deps: Deps, partnerId: string, type: string): EventRow | undefined {
  let newest: EventRow | undefined
  for (const e of deps.store.all('events')) {
    if (e.partner_id !== partnerId || e.type !== type) continue
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
