import { OpenAPIHono, z } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import { indexPage, ListQuery, newestFirst, paginate } from '../domain/pagination.js'
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
import { eventCatalogue } from '../webhooks/catalogue.js'
import { publicDelivery, requireDelivery, sendTestEvent } from '../webhooks/deliveries.js'
import { redeliver } from '../webhooks/redeliver.js'
import {
  createWebhook,
  deleteWebhook,
  publicWebhook,
  requireWebhook,
  rotateWebhookSecret,
  updateWebhook,
} from '../webhooks/subscriptions.js'

const route = routeFactory(['Webhooks'], 'org')
const notFound = errorResponses(404)

export function webhookRoutes(deps: Deps) {
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
        'An empty `events` list means every event. The signing secret is returned only here.',
      request: { body: jsonBody(CreateWebhookBody) },
      responses: {
        201: jsonResponse(WebhookWithSecret, 'The endpoint and its secret.'),
        ...errorResponses(400, ...orgErrors, 413, 415),
      },
    }),
    (c) => {
      const { webhook, secret } = createWebhook(deps, c.get('partner').id, c.req.valid('json'))
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
    (c) => {
      const rows = newestFirst(
        deps.store.lookup('webhooks', 'webhooks_by_partner', c.get('partner').id),
      )
      return c.json(paginate(rows, c.req.valid('query'), publicWebhook), 200)
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
    (c) =>
      c.json(
        {
          webhook: publicWebhook(
            requireWebhook(deps, c.get('partner').id, c.req.valid('param').id),
          ),
        },
        200,
      ),
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
    (c) => {
      const row = requireWebhook(deps, c.get('partner').id, c.req.valid('param').id)
      return c.json({ webhook: publicWebhook(updateWebhook(deps, row, c.req.valid('json'))) }, 200)
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
    (c) => {
      const row = requireWebhook(deps, c.get('partner').id, c.req.valid('param').id)
      deleteWebhook(deps, row)
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
    (c) => {
      const row = requireWebhook(deps, c.get('partner').id, c.req.valid('param').id)
      const { webhook, secret } = rotateWebhookSecret(deps, row)
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
    (c) => {
      const row = requireWebhook(deps, c.get('partner').id, c.req.valid('param').id)
      return c.json({ delivery: publicDelivery(sendTestEvent(deps, row)) }, 202)
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
    (c) => {
      const row = requireWebhook(deps, c.get('partner').id, c.req.valid('param').id)
      const query = c.req.valid('query')
      // The index is in time order: the page reads only the rows it shows (and those the
      // filters skip), and the cursor is found through it.
      const keep =
        query.status || query.event_type
          ? (d: { status: string; event_type: string }) =>
              (!query.status || d.status === query.status) &&
              (!query.event_type || d.event_type === query.event_type)
          : undefined
      const collection = 'webhook_deliveries'
      const page = indexPage(
        deps.store,
        collection,
        'deliveries_by_webhook',
        row.id,
        query,
        publicDelivery,
        keep,
      )
      return c.json(page, 200)
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
    (c) => {
      const { id, deliveryId } = c.req.valid('param')
      return c.json(
        { delivery: publicDelivery(requireDelivery(deps, c.get('partner').id, id, deliveryId)) },
        200,
      )
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
    (c) => {
      const { id, deliveryId } = c.req.valid('param')
      const original = requireDelivery(deps, c.get('partner').id, id, deliveryId)
      requireWebhook(deps, c.get('partner').id, id)
      return c.json({ delivery: publicDelivery(redeliver(deps, original)) }, 202)
    },
  )

  return app
}
