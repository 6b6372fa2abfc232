import type { PartnerClocks } from '../domain/partner-clocks.js'
import { ApiError } from '../errors.js'
import type { Random } from '../random.js'
import type { StateReader, StateTx, StateWriter } from '../state/seam.js'
import type { PartnerRow, WebhookRow } from '../store/records.js'
import { assertEndpointRoom } from './endpoint-limit.js'
import { newWebhookSecret } from './signer.js'

/** What managing endpoints uses: the partner's time and fresh ids and secrets. */
export interface EndpointCtx {
  clocks: Pick<PartnerClocks, 'forPartner'>
  random: Random
}

/** What adding an endpoint also checks: how many a partner may have. */
export interface NewEndpointCtx extends EndpointCtx {
  webhookLimit: number
}

/** What a partner sees of an endpoint: never the secret. */
export function publicWebhook(w: WebhookRow) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    enabled: w.enabled,
    description: w.description,
    primary: w.primary,
    created_at: w.created_at,
    updated_at: w.updated_at,
  }
}

export interface WebhookInput {
  url: string
  events: string[]
  enabled?: boolean
  description?: string | null
}

const dedupe = (events: string[]) => [...new Set(events)]

/** A new endpoint of the partner, within its cap. */
export async function addWebhook(
  ctx: NewEndpointCtx,
  tx: StateTx,
  partnerId: string,
  input: WebhookInput,
) {
  await assertEndpointRoom(tx, partnerId, ctx.webhookLimit)
  return createWebhook(ctx, tx, partnerId, input)
}

function createWebhook(
  ctx: EndpointCtx,
  writer: StateWriter,
  partnerId: string,
  input: WebhookInput,
  primary = false,
) {
  const now = ctx.clocks.forPartner(partnerId).iso()
  const secret = newWebhookSecret(ctx.random.bytes(32))
  const row: WebhookRow = {
    id: ctx.random.id('wh'),
    partner_id: partnerId,
    url: input.url,
    events: dedupe(input.events),
    enabled: input.enabled ?? true,
    description: input.description ?? null,
    primary,
    secret,
    created_at: now,
    updated_at: now,
  }
  writer.put('webhooks', row)
  return { webhook: row, secret }
}

/** An endpoint of this partner, or 404 (also for another partner's id). */
export async function requireWebhook(
  reader: StateReader,
  partnerId: string,
  id: string,
): Promise<WebhookRow> {
  const row = await reader.get('webhooks', id)
  if (!row || row.partner_id !== partnerId)
    throw new ApiError('not_found', `No webhook endpoint ${id}.`)
  return row
}

export function updateWebhook(
  ctx: EndpointCtx,
  writer: StateWriter,
  row: WebhookRow,
  patch: Partial<WebhookInput>,
): WebhookRow {
  if (row.primary && patch.url !== undefined && patch.url !== row.url) {
    throw new ApiError(
      'conflict',
      'This is the primary endpoint mirroring webhook_url; change its URL with PATCH /partner/me.',
      {
        details: [
          {
            field: 'url',
            message: 'is set through PATCH /partner/me for the primary endpoint',
            location: 'body',
          },
        ],
      },
    )
  }
  const next: WebhookRow = {
    ...row,
    ...(patch.url !== undefined ? { url: patch.url } : {}),
    ...(patch.events !== undefined ? { events: dedupe(patch.events) } : {}),
    ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
    ...(patch.description !== undefined ? { description: patch.description } : {}),
    updated_at: ctx.clocks.forPartner(row.partner_id).iso(),
  }
  writer.put('webhooks', next)
  return next
}

export async function deleteWebhook(tx: StateTx, row: WebhookRow): Promise<void> {
  if (row.primary) {
    throw new ApiError(
      'conflict',
      'This is the primary endpoint; remove it by setting webhook_url to null with PATCH /partner/me.',
    )
  }
  tx.remove('webhooks', row.id)
  if (await tx.get('webhook_labs', row.id)) tx.remove('webhook_labs', row.id)
}

export function rotateWebhookSecret(ctx: EndpointCtx, writer: StateWriter, row: WebhookRow) {
  const secret = newWebhookSecret(ctx.random.bytes(32))
  const next = { ...row, secret, updated_at: ctx.clocks.forPartner(row.partner_id).iso() }
  writer.put('webhooks', next)
  return { webhook: next, secret }
}

/**
 * Keeps the primary endpoint in step with the partner record's `webhook_url` (spec: "the
 * service delivers webhooks to the partner's registered URL"): created when it is set,
 * moved when it changes, removed when it is cleared. It receives every event, and counts
 * toward the partner's cap when it is created. Reads the partner's endpoints in the partner's
 * own transaction.
 */
export async function syncPrimaryEndpoint(
  ctx: NewEndpointCtx,
  tx: StateTx,
  partner: PartnerRow,
): Promise<string | undefined> {
  let primary: WebhookRow | undefined
  for (const w of await tx.lookup('webhooks_by_partner', partner.id)) if (w.primary) primary ??= w
  if (!partner.webhook_url) {
    if (primary) tx.remove('webhooks', primary.id)
    return undefined
  }
  if (primary) {
    if (primary.url !== partner.webhook_url) {
      tx.put('webhooks', {
        ...primary,
        url: partner.webhook_url,
        updated_at: ctx.clocks.forPartner(partner.id).iso(),
      })
    }
    return undefined
  }
  await assertEndpointRoom(tx, partner.id, ctx.webhookLimit, 'webhook_url')
  return createWebhook(ctx, tx, partner.id, { url: partner.webhook_url, events: [] }, true).secret
}
