import { z } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import { publicDispute, resolveDispute } from '../domain/disputes.js'
import { ApiError } from '../errors.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { Dispute } from '../schemas/money.js'
import { controlRoute, controlRouter } from './router.js'

/** Control-plane money routes: resolve a dispute now instead of waiting for the clock. */
export function controlMoneyRoutes(deps: Deps) {
  const app = controlRouter()
  app.openapi(
    controlRoute({
      method: 'post',
      path: '/disputes/{id}/resolve',
      operationId: 'resolveDispute',
      summary: 'Resolve a dispute now: won keeps the provisional credit, lost reverses it',
      request: {
        params: z.object({ id: z.string().startsWith('dsp_', 'must be a dispute id (dsp_…)') }),
        body: jsonBody(z.object({ outcome: z.enum(['won', 'lost']) }).strict()),
      },
      responses: {
        200: jsonResponse(z.object({ dispute: Dispute }), 'The dispute.'),
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    (c) => {
      const { id } = c.req.valid('param')
      const dispute = deps.store.get('disputes', id)
      if (!dispute) throw new ApiError('not_found', `No dispute ${id}.`)
      return c.json(
        { dispute: publicDispute(resolveDispute(deps, dispute, c.req.valid('json').outcome)) },
        200,
      )
    },
  )
  return app
}
