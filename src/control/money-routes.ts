import { z } from '@hono/zod-openapi'
import { publicDispute } from '../domain/disputes.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { DisputeId } from '../schemas/ids.js'
import { Dispute } from '../schemas/money.js'
import type { Money } from '../services/money.js'
import { controlRoute, controlRouter } from './router.js'

/** Control-plane money routes: resolve a dispute now instead of waiting for the clock. */
export function controlMoneyRoutes(s: { money: Money }) {
  const app = controlRouter()
  app.openapi(
    controlRoute({
      method: 'post',
      path: '/disputes/{id}/resolve',
      operationId: 'resolveDispute',
      summary: 'Resolve a dispute now: won keeps the provisional credit, lost reverses it',
      request: {
        params: z.object({ id: DisputeId }),
        body: jsonBody(z.object({ outcome: z.enum(['won', 'lost']) }).strict()),
      },
      responses: {
        200: jsonResponse(z.object({ dispute: Dispute }), 'The dispute.'),
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const dispute = await s.money.resolveDispute(id, c.req.valid('json').outcome)
      return c.json({ dispute: publicDispute(dispute) }, 200)
    },
  )
  return app
}
