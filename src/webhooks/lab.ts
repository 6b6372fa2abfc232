import { randomBytes } from 'node:crypto'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import { ApiError } from '../errors.js'
import type { WebhookPolicy } from '../scenarios/webhooks.js'
import type { StateTx } from '../state/seam.js'
import type {
  DeliveryRow,
  EventRow,
  LabCheck,
  LabCheckRow,
  WebhookLabRow,
  WebhookRow,
} from '../store/records.js'
import { labVerdict, REPLAY_AGE_S } from './lab-verdict.js'
import { createDelivery, type DeliveryCtx } from './new-delivery.js'
import { newWebhookSecret, signatureHeaders } from './signer.js'

/**
 * The webhook lab: tests the partner's receiver with what production sends it besides clean
 * deliveries. Armed on an endpoint, it acts on the endpoint's next events:
 * - duplicate: the event again (same event id, new delivery id) after its delivery;
 * - out_of_order: the event is held and delivered after its successor's delivery;
 * - forged_signature: a copy signed with a wrong secret (both signatures wrong);
 * - replay: a copy whose signed timestamp is REPLAY_AGE_S old (past both libraries' 300 s);
 * and reports what the receiver answered to each. Copies get one attempt (a retry would be
 * another copy); the held out-of-order delivery is the event's own, retried as usual. Every
 * lab delivery carries `lab` in the delivery log and an `X-Sandbox-Lab` header. All of its
 * state is stored (`webhook_labs`, one row per endpoint).
 */

const COPIES: readonly LabCheck[] = ['duplicate', 'forged_signature', 'replay']

/** A lab copy: sent once, never retried. */
export const isLabCopy = (row: DeliveryRow) => row.lab !== undefined && COPIES.includes(row.lab)

/** The signature headers of a delivery; a lab delivery's are forged or replayed as it says. */
export function deliveryHeaders(
  row: DeliveryRow,
  secret: string,
  eventId: string,
  body: string,
  headerName: string,
): Record<string, string> {
  const now = Math.floor(Date.now() / 1000)
  if (!row.lab) return signatureHeaders(secret, eventId, body, now, headerName)
  const key = row.lab === 'forged_signature' ? newWebhookSecret(randomBytes(32)) : secret
  const at = row.lab === 'replay' ? now - REPLAY_AGE_S : now
  return { ...signatureHeaders(key, eventId, body, at, headerName), 'x-sandbox-lab': row.lab }
}

const armed = (check: LabCheck): LabCheckRow => ({
  check,
  event_id: null,
  after_delivery_id: null,
  delivery_id: null,
  receiver_status: null,
  verdict: 'pending',
  why: "armed: waits for the endpoint's next event",
})

/** Arms `checks` on the endpoint's next events; a new report replaces the last one. */
export async function armLab(
  ctx: DeliveryCtx & { clocks: Pick<PartnerClocks, 'forPartner'> },
  tx: StateTx,
  webhook: WebhookRow,
  checks: LabCheck[],
): Promise<WebhookLabRow> {
  if (!webhook.enabled)
    throw new ApiError('conflict', `Endpoint ${webhook.id} is disabled; enable it to use the lab.`)
  const row: WebhookLabRow = {
    id: webhook.id,
    partner_id: webhook.partner_id,
    armed_at: ctx.clocks.forPartner(webhook.partner_id).iso(),
    checks: checks.map(armed),
  }
  const previous = await tx.get('webhook_labs', webhook.id)
  const held = previous?.checks.find(
    (c) => c.check === 'out_of_order' && c.event_id !== null && c.delivery_id === null,
  )
  const event = held?.event_id ? await tx.get('events', held.event_id) : undefined
  tx.put('webhook_labs', row)
  // A held event is not lost to a new report: it goes now, as an ordinary delivery.
  if (event) await createDelivery(ctx, tx, webhook, event)
  return row
}

/**
 * Delivers `event` to `webhook` through its lab, if one is armed (the fan-out calls this inside
 * the transaction recording the event, which reads the lab as it stands there: several events
 * of one transaction reach the lab one after the other).
 */
export async function routeThroughLab(
  ctx: DeliveryCtx,
  tx: StateTx,
  webhook: WebhookRow,
  event: EventRow,
  policy: WebhookPolicy,
): Promise<void> {
  const lab = await tx.get('webhook_labs', webhook.id)
  if (!lab?.checks.some((c) => c.event_id === null || isHeld(c))) {
    await createDelivery(ctx, tx, webhook, event, { policy })
    return
  }
  const checks = lab.checks.map((c) => ({ ...c }))
  const order = checks.find((c) => c.check === 'out_of_order' && c.event_id === null)
  const held = checks.find((c) => isHeld(c))
  if (order) {
    // This event waits for its successor; copies of it go after its own (late) delivery.
    for (const c of checks.filter((c) => c.event_id === null)) {
      c.event_id = event.id
      c.why =
        c === order
          ? `holding ${event.id} until the endpoint's next event, to deliver it after that one`
          : `waits for the late delivery of ${event.id}`
    }
  } else {
    const delivery = await createDelivery(ctx, tx, webhook, event, { policy })
    if (held) {
      held.after_delivery_id = delivery.id
      held.why = `${held.event_id} goes once ${event.id} (${delivery.id}) has been attempted`
    }
    for (const c of checks.filter((c) => c.event_id === null)) {
      c.event_id = event.id
      c.after_delivery_id = delivery.id
      c.why = `waits for the first attempt of ${delivery.id} (${event.id})`
    }
  }
  tx.put('webhook_labs', { ...lab, checks })
}

/**
 * After a delivery's first attempt, in the transaction recording it: a verdict for a lab
 * delivery, and the lab deliveries it lets go.
 */
export async function labAttempted(
  ctx: DeliveryCtx,
  tx: StateTx,
  delivery: DeliveryRow,
): Promise<void> {
  if (delivery.attempts.length !== 1) return
  const lab = await tx.get('webhook_labs', delivery.webhook_id)
  if (
    !lab?.checks.some((c) => c.delivery_id === delivery.id || c.after_delivery_id === delivery.id)
  )
    return
  const checks = lab.checks.map((c) => ({ ...c }))
  const attempt = delivery.attempts[0] as DeliveryRow['attempts'][number]
  const webhook = await tx.get('webhooks', delivery.webhook_id)
  for (const c of checks) {
    if (c.delivery_id === delivery.id) {
      c.receiver_status = attempt.status_code
      Object.assign(c, labVerdict(c.check, attempt.status_code, attempt.error))
    } else if (c.after_delivery_id === delivery.id && c.delivery_id === null) {
      const event = c.event_id ? await tx.get('events', c.event_id) : undefined
      if (!webhook?.enabled || !event) {
        c.why = 'not sent: the endpoint or the event is gone'
        continue
      }
      const made = await createDelivery(ctx, tx, webhook, event, { lab: c.check })
      c.delivery_id = made.id
      c.why = `sent as ${made.id}; waits for the receiver's answer`
      // Copies of a held event follow its late delivery.
      if (c.check === 'out_of_order')
        for (const copy of checks)
          if (copy.event_id === c.event_id && copy !== c && copy.after_delivery_id === null) {
            copy.after_delivery_id = made.id
            copy.why = `waits for the first attempt of ${made.id} (${c.event_id})`
          }
    }
  }
  tx.put('webhook_labs', { ...lab, checks })
}

/** An out-of-order check holding its event (no successor seen yet). */
const isHeld = (c: LabCheckRow) =>
  c.check === 'out_of_order' && c.event_id !== null && c.after_delivery_id === null
