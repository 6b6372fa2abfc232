import { expect } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import type { Call } from './helpers.js'

// The steps of the webhook delivery tests that break the dispatcher on purpose (an attempt not
// recorded, an attempt whose process died): an endpoint of the default partner, an event for it,
// its one delivery, and the sandbox clock moved on.

export const WEBHOOKS_API = '/api/v1/partner/webhooks'

/** A webhook endpoint of the default partner for every event; answers its id. */
export async function createEndpoint(call: Call, url: string): Promise<string> {
  const res = await call('POST', WEBHOOKS_API, { body: { url, events: [] } })
  expect(res.status, res.text).toBe(201)
  return res.json.webhook.id as string
}

/** A card.funded event of the default partner (control plane); answers its id. */
export async function trigger(call: Call): Promise<string> {
  const res = await call('POST', '/_sandbox/events', {
    creds: null,
    body: {
      partner_id: DEFAULT_PARTNER.id,
      type: 'card.funded',
      object: { object: 'card', id: 'card_1' },
    },
  })
  expect(res.status, res.text).toBe(201)
  return res.json.event.id as string
}

/** The endpoint's delivery log, which must hold exactly one delivery: that delivery. */
export async function onlyDelivery(call: Call, webhookId: string) {
  const res = await call('GET', `${WEBHOOKS_API}/${webhookId}/deliveries`)
  expect(res.status, res.text).toBe(200)
  expect(res.json.data).toHaveLength(1)
  return res.json.data[0]
}

/** Moves the sandbox clock on by `by` (`1m`, `1h`); answers once what fell due has run. */
export async function advance(call: Call, by: string): Promise<void> {
  const res = await call('POST', '/_sandbox/clock/advance', { creds: null, body: { by } })
  expect(res.status, res.text).toBe(200)
}
