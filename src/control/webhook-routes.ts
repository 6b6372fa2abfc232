import { z } from '@hono/zod-openapi'
import type { Clock } from '../clock.js'
import type { EventType } from '../domain/events.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import * as ex from '../schemas/examples.js'
import { documentedParam } from '../schemas/ids.js'
import { limitParam } from '../schemas/limit.js'
import { EventName } from '../schemas/webhooks.js'
import type { Webhooks } from '../services/webhooks.js'
import type { SinkRegistry } from '../webhooks/sink.js'
import { controlRoute, controlRouter } from './router.js'
import { OkOnly, SandboxEvent } from './schemas.js'

const SinkName = z.object({
  name: documentedParam(
    z.string().regex(/^[\w-]{1,64}$/, 'letters, digits, _ and -, at most 64'),
    'worker-3',
    "The sink's name, of your choosing (one per endpoint or test worker).",
  ),
})

export const SinkConfigBody = z
  .object({
    secret: z
      .string()
      .startsWith('whsec_')
      .nullable()
      .optional()
      .openapi({ description: 'Check signatures with it.' }),
    fail_next: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .optional()
      .openapi({ description: 'Fail this many next requests.' }),
    fail_status: z
      .number()
      .int()
      .min(300)
      .max(599)
      .optional()
      .openapi({ description: 'Status of a failure (500).' }),
    delay_ms: z
      .number()
      .int()
      .min(0)
      .max(30_000)
      .optional()
      .openapi({ description: 'Answer this much later.' }),
    signature_header: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/)
      .optional(),
  })
  .strict()
  .openapi('SandboxSinkConfig')

export const SinkView = z
  .object({
    name: z.string(),
    config: z
      .object({
        secret: z
          .string()
          .nullable()
          .openapi({ description: '"set" when a secret is configured.' }),
        fail_next: z.number(),
        fail_status: z.number(),
        delay_ms: z.number(),
        signature_header: z.string(),
      })
      .openapi({
        example: {
          secret: 'set',
          fail_next: 1,
          fail_status: 503,
          delay_ms: 0,
          signature_header: 'X-Service-Signature',
        },
      }),
    data: z.array(
      z.object({
        id: z.number(),
        received_at: z.string(),
        method: z.string(),
        headers: z.record(z.string(), z.string()),
        body: z.string().openapi({ description: 'The raw body, byte for byte as received.' }),
        signature: z.object({ service: z.boolean(), standard: z.boolean() }).nullable(),
        responded_status: z.number(),
      }),
    ),
    has_more: z.boolean().openapi({ example: false }),
  })
  .openapi('SandboxSink', {
    example: {
      name: 'worker-3',
      config: {
        secret: 'set',
        fail_next: 0,
        fail_status: 500,
        delay_ms: 0,
        signature_header: 'X-Service-Signature',
      },
      has_more: false,
      data: [
        {
          id: 1,
          received_at: ex.times.funded,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'webhook-id': ex.ids.event },
          body: '{"id":"evt_5Tz1Kq8Mw3Xd7Rb2","object":"event","type":"card.funded"}',
          signature: { service: true, standard: true },
          responded_status: 200,
        },
      ],
    },
  })

export const TriggerBody = z
  .object({
    partner_id: z.uuid(),
    type: EventName,
    object: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: 'data.object of the event.' }),
    overrides: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({
        description:
          'Chosen fields, by dotted path of the event: `{ "data.object.amount": 12.34 }`. Checked against the event type\'s object schema (400 naming the path, nothing made). For card.funded and card_transaction.created, `data.object.amount` (and `data.object.merchant…`) shape the real funding or purchase.',
        example: { 'data.object.amount': 12.34 },
      }),
  })
  .strict()
  .openapi('SandboxTriggerEvent', {
    example: {
      partner_id: ex.ids.partner,
      type: 'card.funded',
      overrides: { 'data.object.amount': 12.34 },
    },
  })

export const TriggerResult = z
  .object({
    event: SandboxEvent,
    made: z.array(z.object({ object: z.string(), id: z.string() })).openapi({
      description:
        'Rows the trigger made for real (a funding or purchase transaction), so their ids resolve over the API. Empty when it resent an object.',
      example: [{ object: 'card_transaction', id: ex.ids.funding }],
    }),
  })
  .openapi('SandboxTriggerResult')

/** Control-plane routes of the webhook machinery: flush, trigger, events, and the sink. */
export function controlWebhookRoutes({
  webhooks,
  sinks,
  clock,
}: {
  webhooks: Webhooks
  sinks: SinkRegistry
  clock: Pick<Clock, 'iso'>
}) {
  const app = controlRouter()

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/webhooks/flush',
      operationId: 'flushWebhookDeliveries',
      summary: 'Run every delivery that is due now, and wait for them',
      responses: {
        200: jsonResponse(
          z.object({ attempted: z.number().int().openapi({ example: 3 }) }),
          'Attempts made.',
        ),
        ...errorResponses(401),
      },
    }),
    async (c) => c.json({ attempted: await webhooks.flush() }, 200),
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/events',
      operationId: 'triggerEvent',
      summary: 'Emit an event for a partner (delivered to its endpoints like any other)',
      description:
        'Without `object`, the event carries a real object of that partner: card_transaction.created makes a real purchase and card.funded a real funding on its newest active card; other types resend the object of its newest real event of the type. 409 when there is none. `overrides` set chosen fields of the object (docs/events.md).',
      request: { body: jsonBody(TriggerBody) },
      responses: {
        201: jsonResponse(TriggerResult, 'The event, and what was made for it.'),
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const { partner_id, type, object, overrides } = c.req.valid('json')
      return c.json(await webhooks.trigger(partner_id, type as EventType, object, overrides), 201)
    },
  )

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/events',
      operationId: 'listEvents',
      summary: 'Events emitted, newest first, as delivered to endpoints',
      request: {
        query: z.object({
          partner_id: z.uuid().optional(),
          type: EventName.optional(),
          limit: limitParam(500, 50),
        }),
      },
      responses: {
        200: jsonResponse(
          z.object({
            data: z.array(SandboxEvent),
            has_more: z.boolean().openapi({ example: false }),
          }),
          'Events.',
        ),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => c.json(await webhooks.listEvents(c.req.valid('query')), 200),
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/sink/{name}',
      operationId: 'receiveSinkDelivery',
      summary: 'The built-in webhook receiver (no admin token needed)',
      // Open: webhook deliveries carry no admin token.
      access: 'public',
      description:
        'Point an endpoint at it. It records headers and the raw body, checks both signatures when it has a secret, and answers 200, or fails/answers slowly as configured.',
      request: {
        params: SinkName,
        // Declared, so the sink is not an operation that takes no body (http/no-body.ts): it
        // keeps whatever arrives, byte for byte, unparsed.
        body: {
          required: false,
          description: 'Whatever the sender posts (a webhook delivery: its event), kept as sent.',
          content: {
            '*/*': {
              schema: z.string().openapi({
                format: 'binary',
                example: `{"id":"${ex.ids.event}","object":"event","type":"webhook.test"}`,
              }),
            },
          },
        },
      },
      responses: {
        200: jsonResponse(z.object({ received: z.literal(true) }), 'Recorded.'),
        ...errorResponses(400),
      },
    }),
    async (c) => {
      const { name } = c.req.valid('param')
      const body = await c.req.text()
      const headers: Record<string, string> = {}
      c.req.raw.headers.forEach((value, key) => {
        headers[key] = value
      })
      const { status, delayMs } = await sinks.receive(name, {
        method: c.req.method,
        headers,
        body,
        now: clock.iso(),
      })
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
      if (status !== 200) {
        return c.json({ received: true as const }, status as 200)
      }
      return c.json({ received: true as const }, 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'put',
      path: '/sink/{name}/config',
      operationId: 'configureSink',
      summary: 'Configure a sink: signing secret, fail the next N requests, answer slowly',
      request: { params: SinkName, body: jsonBody(SinkConfigBody) },
      responses: {
        200: jsonResponse(SinkView.shape.config, 'The configuration.'),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const config = await sinks.configure(c.req.valid('param').name, c.req.valid('json'))
      return c.json({ ...config, secret: config.secret ? 'set' : null }, 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/sink/{name}',
      operationId: 'listSinkDeliveries',
      summary: 'What a sink received, newest first',
      request: {
        params: SinkName,
        query: z.object({ limit: limitParam(1000, 100) }),
      },
      responses: { 200: jsonResponse(SinkView, 'The sink.'), ...errorResponses(400, 401) },
    }),
    async (c) =>
      c.json(await sinks.read(c.req.valid('param').name, c.req.valid('query').limit), 200),
  )

  app.openapi(
    controlRoute({
      method: 'delete',
      path: '/sink/{name}',
      operationId: 'clearSink',
      summary: 'Forget a sink (its requests and configuration)',
      request: { params: SinkName },
      responses: {
        200: jsonResponse(OkOnly, 'Forgotten.'),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      await sinks.clear(c.req.valid('param').name)
      return c.json({ ok: true as const }, 200)
    },
  )

  return app
}
