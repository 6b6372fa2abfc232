import { OpenAPIHono, z } from '@hono/zod-openapi'
import { ListQuery } from '../domain/pagination.js'
import { routeFactory } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import { errorResponses, jsonBody, jsonResponse, orgErrors } from '../schemas/common.js'
import {
  Catalogue,
  CreateWebhookBody,
  DeliveryList,
  DeliveryParams,
  DeliveryQuery,
  Delivery as DeliverySchema,
  PatchWebhookBody,
  WebhookEnvelope,
  WebhookIdParam,
  WebhookList,
  WebhookWithSecret,
} from '../schemas/webhooks.js'
import type { Webhooks } from '../services/webhooks.js'
import { eventCatalogue } from '../webhooks/catalogue.js'
import { publicDelivery } from '../webhooks/deliveries.js'
import { publicWebhook } from '../webhooks/subscriptions.js'

const route = routeFactory(['Webhooks'], 'org')
const notFound = errorResponses(404)

export function webhookRoutes({ webhooks }: { webhooks: Webhooks }) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.openapi(
    route({
      method: 'get',
      path: '/partner/webhooks/events',
      operationId: 'listWebhookEventTypes',
      summary: 'The event catalogue',
      responses: {
        200: jsonResponse(Catalogue, 'Every event kind, with what it means.'),
        ...errorResponses(...orgErrors),
      },
    }),
    (c) =>
      c.json(
        {
          data: Object.entries(eventCatalogue).map(([type, description]) => ({
            type,
            description,
          })),
        },
        200,
      ),
  )

  app.openapi(
    route({
      method: 'post',
      path: '/partner/webhooks',
      operationId: 'createWebhook',
      summary: 'Subscribe an endpoint',
      description:
        'An empty `events` list means every event. The signing secret is returned only here. A partner has at most 16 endpoints, its primary one included (the sandbox setting `--webhook-limit`): 409 beyond.',
      request: { body: jsonBody(CreateWebhookBody) },
      responses: {
        201: jsonResponse(WebhookWithSecret, 'The endpoint and its secret.'),
        ...errorResponses(400, ...orgErrors, 409, 413, 415),
      },
    }),
    async (c) => {
      const { webhook, secret } = await webhooks.create(c.get('partner').id, c.req.valid('json'))
      return c.json({ webhook: publicWebhook(webhook), secret }, 201)
    },
  )

  app.openapi(
    route({
      method: 'get',
      path: '/partner/webhooks',
      operationId: 'listWebhooks',
      summary: 'List endpoints',
      request: { query: ListQuery },
      responses: {
        200: jsonResponse(WebhookList, 'Endpoints, newest first.'),
        ...errorResponses(400, ...orgErrors),
      },
    }),
    async (c) => {
      const page = await webhooks.list(c.get('partner').id, c.req.valid('query'))
      return c.json({ data: page.data.map(publicWebhook), has_more: page.has_more }, 200)
    },
  )

  app.openapi(
    route({
      method: 'get',
      path: '/partner/webhooks/{id}',
      operationId: 'getWebhook',
      summary: 'Read an endpoint',
      request: { params: WebhookIdParam },
      responses: {
        200: jsonResponse(WebhookEnvelope, 'The endpoint.'),
        ...errorResponses(400, ...orgErrors),
        ...notFound,
      },
    }),
    async (c) => {
      const row = await webhooks.get(c.get('partner').id, c.req.valid('param').id)
      return c.json({ webhook: publicWebhook(row) }, 200)
    },
  )

  app.openapi(
    route({
      method: 'patch',
      path: '/partner/webhooks/{id}',
      operationId: 'updateWebhook',
      summary: 'Update an endpoint (url, events, enabled, description)',
      request: { params: WebhookIdParam, body: jsonBody(PatchWebhookBody) },
      responses: {
        200: jsonResponse(WebhookEnvelope, 'The endpoint.'),
        ...errorResponses(400, ...orgErrors, 404, 409, 413, 415),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const row = await webhooks.update(c.get('partner').id, id, c.req.valid('json'))
      return c.json({ webhook: publicWebhook(row) }, 200)
    },
  )

  app.openapi(
    route({
      method: 'delete',
      path: '/partner/webhooks/{id}',
      operationId: 'deleteWebhook',
      summary: 'Delete an endpoint',
      description:
        'Its pending retries stop. The primary endpoint is removed by clearing webhook_url instead (409).',
      request: { params: WebhookIdParam },
      responses: {
        200: jsonResponse(
          z.object({
            id: z.string().openapi({ example: 'wh_3kTmW0c7Yq1dJ2Lx8RbN5pZs' }),
            deleted: z.literal(true),
          }),
          'Deleted.',
        ),
        ...errorResponses(400, ...orgErrors, 404, 409),
      },
    }),
    async (c) => {
      const row = await webhooks.remove(c.get('partner').id, c.req.valid('param').id)
      return c.json({ id: row.id, deleted: true as const }, 200)
    },
  )

  app.openapi(
    route({
      method: 'post',
      path: '/partner/webhooks/{id}/rotate-secret',
      operationId: 'rotateWebhookSecret',
      summary: "Rotate an endpoint's signing secret",
      description: 'Deliveries from now on are signed with the new secret, shown only here.',
      request: { params: WebhookIdParam },
      responses: {
        200: jsonResponse(WebhookWithSecret, 'The new secret.'),
        ...errorResponses(400, ...orgErrors, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const { webhook, secret } = await webhooks.rotateSecret(c.get('partner').id, id)
      return c.json({ webhook: publicWebhook(webhook), secret }, 200)
    },
  )

  app.openapi(
    route({
      method: 'post',
      path: '/partner/webhooks/{id}/test',
      operationId: 'sendTestWebhook',
      summary: 'Send a webhook.test event to this endpoint only',
      request: { params: WebhookIdParam },
      responses: {
        202: jsonResponse(z.object({ delivery: DeliverySchema }), 'The delivery, queued.'),
        ...errorResponses(400, ...orgErrors, 404, 409),
      },
    }),
    async (c) => {
      const delivery = await webhooks.sendTest(c.get('partner').id, c.req.valid('param').id)
      return c.json({ delivery: publicDelivery(delivery) }, 202)
    },
  )

  app.openapi(
    route({
      method: 'get',
      path: '/partner/webhooks/{id}/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'The delivery log of an endpoint',
      description:
        'Newest first, each with its attempts (time, response status, duration, error). Filter by status and event_type.',
      request: { params: WebhookIdParam, query: ListQuery.extend(DeliveryQuery.shape) },
      responses: {
        200: jsonResponse(DeliveryList, 'Deliveries.'),
        ...errorResponses(400, ...orgErrors, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const page = await webhooks.deliveries(c.get('partner').id, id, c.req.valid('query'))
      return c.json({ data: page.data.map(publicDelivery), has_more: page.has_more }, 200)
    },
  )

  app.openapi(
    route({
      method: 'get',
      path: '/partner/webhooks/{id}/deliveries/{deliveryId}',
      operationId: 'getWebhookDelivery',
      summary: 'Read one delivery',
      request: { params: DeliveryParams },
      responses: {
        200: jsonResponse(z.object({ delivery: DeliverySchema }), 'The delivery.'),
        ...errorResponses(400, ...orgErrors, 404),
      },
    }),
    async (c) => {
      const { id, deliveryId } = c.req.valid('param')
      const delivery = await webhooks.delivery(c.get('partner').id, id, deliveryId)
      return c.json({ delivery: publicDelivery(delivery) }, 200)
    },
  )

  app.openapi(
    route({
      method: 'post',
      path: '/partner/webhooks/{id}/deliveries/{deliveryId}/redeliver',
      operationId: 'redeliverWebhookDelivery',
      summary: 'Send a delivery again',
      description:
        'A new delivery of the same event (same webhook-id header) with a fresh 4-attempt schedule.',
      request: { params: DeliveryParams },
      responses: {
        202: jsonResponse(z.object({ delivery: DeliverySchema }), 'The new delivery, queued.'),
        ...errorResponses(400, ...orgErrors, 404, 409),
      },
    }),
    async (c) => {
      const { id, deliveryId } = c.req.valid('param')
      const delivery = await webhooks.redeliver(c.get('partner').id, id, deliveryId)
      return c.json({ delivery: publicDelivery(delivery) }, 202)
    },
  )

  return app
}
