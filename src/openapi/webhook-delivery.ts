import { type OpenAPIHono, z } from '@hono/zod-openapi'
import { SandboxEvent } from '../control/schemas.js'
import { SPEC_SIGNATURE_HEADER } from '../domain/production-names.js'

type OpenAPIRegistry = OpenAPIHono['openAPIRegistry']

/**
 * What the sandbox POSTs to a partner's endpoint, as the document's `webhooks` (OpenAPI 3.1):
 * the event envelope and the headers that sign it. The signature header carries the spec's
 * placeholder name here; the served document spells the name the sandbox (or the partner
 * asked for with `?partner_id=`) is set to (openapi/named-document.ts).
 */
export function registerWebhookDelivery(registry: OpenAPIRegistry) {
  registry.registerWebhook({
    method: 'post',
    path: 'event',
    operationId: 'receiveEvent',
    // The partner's endpoint: the signatures are its security, not the API's credentials.
    security: [],
    tags: ['Webhooks'],
    summary: 'An event delivered to a partner endpoint',
    description:
      'Sent to each enabled endpoint subscribed to its type; a 2xx answer within 5 s ends the delivery, anything else is retried (4 attempts). Verify either signature over the raw body.',
    request: {
      headers: z.object({
        [SPEC_SIGNATURE_HEADER]: z.string().openapi({
          description:
            "`t=<unix s>,v1=<hex HMAC-SHA256(secret, \"<t>.<raw body>\")>`: the scheme stripe.webhooks.constructEvent verifies. The spec's name is a placeholder for production's (`--signature-header`, a partner's names).",
          example:
            't=1772453160,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
        }),
        'webhook-id': z.string().openapi({
          description: 'Standard Webhooks: the event id, the same on every attempt.',
          example: 'evt_7h2k9x1m4q',
        }),
        'webhook-timestamp': z.string().openapi({
          description: 'Standard Webhooks: unix seconds of this attempt.',
          example: '1772453160',
        }),
        'webhook-signature': z.string().openapi({
          description:
            'Standard Webhooks: `v1,<base64 HMAC-SHA256(base64-decoded secret, "<id>.<ts>.<body>")>`.',
          example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
        }),
      }),
      body: { content: { 'application/json': { schema: SandboxEvent } }, required: true },
    },
    responses: {
      200: { description: 'Received: any 2xx ends the delivery.' },
    },
  })
}
