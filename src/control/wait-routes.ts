import { z } from '@hono/zod-openapi'
import { parseDuration } from '../clock.js'
import { eventEnvelope } from '../domain/events.js'
import { validationError } from '../errors.js'
import { errorResponses, jsonResponse } from '../schemas/common.js'
import * as ex from '../schemas/examples.js'
import { Delivery } from '../schemas/webhooks.js'
import type { Webhooks } from '../services/webhooks.js'
import { publicDelivery } from '../webhooks/deliveries.js'
import { MAX_WAIT_MS } from './event-waits.js'
import { controlRoute, controlRouter } from './router.js'
import { PartnerIdParam, SandboxEvent, sandboxEventExample } from './schemas.js'

const DEFAULT_WAIT_MS = 10_000

export const WaitResultSchema = z
  .object({
    status: z.enum(['matched', 'timeout']).openapi({
      description: '`matched`: `event` is the first match. `timeout`: none came in time.',
    }),
    // A union, not .nullable(): OpenAPI 3.1 renders it anyOf [ref, null], which admits null.
    event: z.union([SandboxEvent, z.null()]).openapi({
      description: 'The first matching event; null at a timeout.',
    }),
    delivery: z.union([Delivery, z.null()]).openapi({
      description: 'With `delivered=true`: the delivery that succeeded; otherwise null.',
    }),
    waited_ms: z.number().int().openapi({ example: 120 }),
  })
  .openapi('SandboxWaitResult', {
    example: {
      status: 'matched',
      event: sandboxEventExample,
      delivery: ex.delivery,
      waited_ms: 120,
    },
  })

const WaitQuery = z.object({
  type: z
    .string()
    .regex(/^[a-z_]+(\.[a-z_]+|\.\*)$/, 'an event type such as card.created, or card.*')
    .optional(),
  after: z
    .string()
    .startsWith('evt_', 'must be an event id (evt_…)')
    .optional()
    .openapi({ description: 'Only events recorded after this one.' }),
  delivered: z
    .enum(['true', 'false'])
    .optional()
    .openapi({ description: 'Wait until a delivery of the event succeeded.' }),
  timeout: z
    .string()
    .optional()
    .openapi({ description: 'Milliseconds or a duration (`5s`); default 10s, at most 30s.' }),
})

function timeoutOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_WAIT_MS
  let ms: number
  try {
    ms = parseDuration(value)
  } catch (error) {
    throw validationError('timeout', (error as Error).message, 'query')
  }
  if (ms > MAX_WAIT_MS)
    throw validationError('timeout', 'is at most 30s; ask again to wait longer', 'query')
  return ms
}

/** The long-poll: wait for a partner's event (or its delivery) without polling. */
export function waitRoutes({ webhooks }: { webhooks: Webhooks }) {
  const app = controlRouter()

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/partners/{id}/events/wait',
      operationId: 'waitForEvent',
      summary: "Wait for a partner's event: answers as soon as one matches, or at the timeout",
      description:
        'The first matching event in creation order (after `after`, when given) answers at once if it exists already. Otherwise the request is held until one is recorded (or, with `delivered=true`, until a delivery of it succeeds), or until `timeout`, when it answers 200 with `status: "timeout"`.',
      request: { params: PartnerIdParam, query: WaitQuery },
      responses: {
        200: jsonResponse(WaitResultSchema, 'A match, or the timeout.'),
        ...errorResponses(400, 401, 404, 429),
      },
    }),
    async (c) => {
      const query = c.req.valid('query')
      const started = Date.now()
      const result = await webhooks.waits.wait({
        partnerId: c.req.valid('param').id,
        type: query.type,
        after: query.after,
        delivered: query.delivered === 'true',
        timeoutMs: timeoutOf(query.timeout),
        signal: c.req.raw.signal,
      })
      return c.json(
        {
          // A client that went away reads nothing: 'aborted' only frees the waiter.
          status: result.status === 'matched' ? ('matched' as const) : ('timeout' as const),
          event: result.event ? eventEnvelope(result.event) : null,
          delivery: result.delivery ? publicDelivery(result.delivery) : null,
          waited_ms: Date.now() - started,
        },
        200,
      )
    },
  )

  return app
}
