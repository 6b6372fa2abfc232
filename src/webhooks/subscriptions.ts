import type { Deps } from '../deps.js'
import { ApiError } from '../errors.js'
import type { PartnerRow, WebhookRow } from '../store/records.js'
import type { Writer } from '../store/store.js'
import { newWebhookSecret } from './signer.js'

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

export function createWebhook(
  deps: Deps,
  partnerId: string,
  input: WebhookInput,
  primary = false,
  writer?: Writer,
) {
  const now = deps.clocks.forPartner(partnerId).iso()
  const secret = newWebhookSecret(deps.random.bytes(32))
  const row: WebhookRow = {
    id: deps.random.id('wh'),
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
  if (writer) writer.put('webhooks', row)
  else deps.store.put('webhooks', row)
  return { webhook: row, secret }
}

/** An endpoint of this partner, or 404 (also for another partner's id). */
export function requireWebhook(deps: Deps, partnerId: string, id: string): WebhookRow {
  const row = deps.store.get('webhooks', id)
  if (!row || row.partner_id !== partnerId)
    throw new ApiError('not_found', `No webhook endpoint ${id}.`)
  return row
}

export function updateWebhook(
  deps: Deps,
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
    updated_at: deps.clocks.forPartner(row.partner_id).iso(),
  }
  deps.store.put('webhooks', next)
  return next
}

export function deleteWebhook(deps: Deps, row: WebhookRow): void {
  if (row.primary) {
    throw new ApiError(
      'conflict',
      'This is the primary endpoint; remove it by setting webhook_url to null with PATCH /partner/me.',
    )
  }
  deps.store.batch((w) => {
    w.remove('webhooks', row.id)
    if (deps.store.get('webhook_labs', row.id)) w.remove('webhook_labs', row.id)
  })
}

export function rotateWebhookSecret(deps: Deps, row: WebhookRow) {
  const secret = newWebhookSecret(deps.random.bytes(32))
  const next = { ...row, secret, updated_at: deps.clocks.forPartner(row.partner_id).iso() }
  deps.store.put('webhooks', next)
  return { webhook: next, secret }
}

/**
 * Keeps the primary endpoint in step with the partner record's `webhook_url` (spec: "the
 * service delivers webhooks to the partner's registered URL"): created when it is set,
 * moved when it changes, removed when it is cleared. It receives every event.
 */
export function syncPrimaryEndpoint(
  deps: Deps,
  writer: Writer,
  partner: PartnerRow,
): string | undefined {
  const primary = deps.store
    .lookup('webhooks', 'webhooks_by_partner', partner.id)
    .find((w) => w.primary)
  if (!partner.webhook_url) {
    if (primary) writer.remove('webhooks', primary.id)
    return undefined
  }
  if (primary) {
    if (primary.url !== partner.webhook_url) {
      writer.put('webhooks', {
        ...primary,
        url: partner.webhook_url,
        updated_at: deps.clocks.forPartner(partner.id).iso(),
      })
    }
    return undefined
  }
  return createWebhook(deps, partner.id, { url: partner.webhook_url, events: [] }, true, writer)
    .secret
}
