import { z } from '@hono/zod-openapi'
import { eventTypes } from '../domain/events.js'
import * as ex from './examples.js'
import { deliveryStatus, labCheck, webhookFields } from './fields.js'
import { DeliveryId, WebhookId } from './ids.js'
import { httpUrl } from './partner.js'
import { multiLine } from './text.js'

const validEvents = eventTypes.join(', ')
export const EventName = z.string().refine((e) => (eventTypes as readonly string[]).includes(e), {
  message: `is not an event kind; valid kinds: ${validEvents}`,
})

/**
 * The endpoint row (store/records.ts) less its owner and signing secret, which WebhookWithSecret
 * shows only at creation and rotation; the row's id pattern is not stated in the document.
 */
export const Webhook = z
  .object({
    id: z.string().openapi({ example: 'wh_3kTmW0c7Yq1dJ2Lx8RbN5pZs' }),
    ...webhookFields,
    events: webhookFields.events
      .clone()
      .openapi({ description: 'Event kinds delivered; empty means all.' }),
    primary: webhookFields.primary
      .clone()
      .openapi({ description: "The endpoint that mirrors the partner record's webhook_url." }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Webhook', { example: ex.webhook })

export const WebhookWithSecret = z
  .object({
    webhook: Webhook,
    secret: z.string().openapi({
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      description: 'Signing secret, shown only here (at creation and rotation).',
    }),
  })
  .openapi('WebhookWithSecret')

export const WebhookEnvelope = z.object({ webhook: Webhook }).openapi('WebhookEnvelope')

export const CreateWebhookBody = z
  .object({
    url: httpUrl,
    events: z.array(EventName).max(50).openapi({ description: 'Empty list: every event.' }),
    enabled: z.boolean().optional(),
    description: multiLine(z.string().trim().max(500)).nullable().optional(),
  })
  .strict()
  .openapi('CreateWebhook', {
    example: {
      url: ex.webhook.url,
      events: ex.webhook.events,
      description: ex.webhook.description,
    },
  })

export const PatchWebhookBody = z
  .object({
    url: httpUrl.optional(),
    events: z.array(EventName).max(50).optional(),
    enabled: z.boolean().optional(),
    description: multiLine(z.string().trim().max(500)).nullable().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, {
    when: (payload) => payload.issues.length === 0,
    message: 'give at least one of url, events, enabled, description',
  })
  .openapi('PatchWebhook', {
    minProperties: 1,
    example: { enabled: false },
  })

/** The attempt row as shown: its integer bounds are the store's check, not stated to clients. */
export const Attempt = z
  .object({
    number: z.number().int(),
    at: z.string().openapi({ description: 'Sandbox time the attempt was scheduled for.' }),
    status_code: z.number().int().nullable(),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
  })
  .openapi('DeliveryAttempt')

export const Delivery = z
  .object({
    id: z.string().openapi({ example: 'dlv_9aQ2…' }),
    webhook_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    url: z.string(),
    status: deliveryStatus,
    attempts: z.array(Attempt),
    retries: z.number().int().openapi({ description: 'Attempts after the first.' }),
    next_attempt_at: z.string().nullable(),
    redelivery_of: z.string().nullable(),
    lab: labCheck.nullable().openapi({
      description:
        'Sandbox only: the webhook lab check this delivery is (POST /_sandbox/webhooks/{id}/lab); null for ordinary deliveries.',
    }),
    created_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .openapi('Delivery', { example: ex.delivery })

export const DeliveryList = z
  .object({ data: z.array(Delivery), has_more: z.boolean().openapi({ example: false }) })
  .openapi('DeliveryList')
export const WebhookList = z
  .object({ data: z.array(Webhook), has_more: z.boolean().openapi({ example: false }) })
  .openapi('WebhookList')

export const DeliveryQuery = z.object({
  status: deliveryStatus.optional(),
  event_type: EventName.optional(),
})

export const WebhookIdParam = z.object({ id: WebhookId })
export const DeliveryParams = WebhookIdParam.extend({ deliveryId: DeliveryId })

export const Catalogue = z
  .object({ data: z.array(z.object({ type: z.string(), description: z.string() })) })
  .openapi('EventCatalogue', {
    example: {
      data: [
        { type: 'card.created', description: 'A card was issued after an approved onboarding.' },
      ],
    },
  })
