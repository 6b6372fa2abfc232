import { z } from '@hono/zod-openapi'
import { errorResponses, jsonResponse } from '../schemas/common.js'
import { DeliveryId } from '../schemas/ids.js'
import { Delivery } from '../schemas/webhooks.js'
import type { Webhooks } from '../services/webhooks.js'
import { publicDelivery } from '../webhooks/deliveries.js'
import { controlRoute, controlRouter } from './router.js'

/**
 * Redeliver any partner's delivery from the control plane (the dashboard's button): the
 * partner API's redeliver needs that partner's secret, which the sandbox keeps only hashed.
 */
export function controlDeliveryRoutes({ webhooks }: { webhooks: Webhooks }) {
  const app = controlRouter()
  app.openapi(
    controlRoute({
      method: 'post',
      path: '/deliveries/{id}/redeliver',
      operationId: 'redeliverSandboxDelivery',
      summary: 'Send a webhook delivery again (any partner)',
      description:
        'A new delivery of the same event (same webhook-id) with a fresh 4-attempt schedule, as the partner route does.',
      request: {
        params: z.object({ id: DeliveryId }),
      },
      responses: {
        202: jsonResponse(z.object({ delivery: Delivery }), 'The new delivery, queued.'),
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const delivery = await webhooks.redeliverAny(c.req.valid('param').id)
      return c.json({ delivery: publicDelivery(delivery) }, 202)
    },
  )
  return app
}
