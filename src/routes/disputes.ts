import { OpenAPIHono, z } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import { addEvidence, openDispute, publicDispute, requireDispute } from '../domain/disputes.js'
import { indexPage, ListQuery, pageOf } from '../domain/pagination.js'
import { routeFactory } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import { envelope } from '../schemas/cards.js'
import { errorResponses, jsonBody, jsonResponse, orgErrors } from '../schemas/common.js'
import { Dispute, DisputeBody, EvidenceBody } from '../schemas/money.js'

const route = routeFactory(['Disputes'], 'session')
const DisputeParam = z.object({ id: z.string().startsWith('dsp_', 'must be a dispute id (dsp_…)') })

export function disputeRoutes(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.openapi(
    route({
      method: 'post',
      path: '/partner/disputes',
      operationId: 'createDispute',
      summary: 'Open a dispute on a posted purchase',
      description:
        'A provisional credit is posted at once. The dispute is resolved on the sandbox clock (default 7 days, outcome won unless the scenario says otherwise) or by POST /_sandbox/disputes/{id}/resolve: won keeps the credit, lost reverses it. Another user\u2019s transaction is 404.',
      request: { body: jsonBody(DisputeBody) },
      responses: {
        201: jsonResponse(envelope(Dispute, 'DisputeCreated'), 'The dispute.'),
        ...errorResponses(400, ...orgErrors, 404, 409, 413, 415),
      },
    }),
    (c) =>
      c.json(
        {
          success: true as const,
          data: publicDispute(
            openDispute(deps, c.get('partner'), c.get('user'), c.req.valid('json')),
          ),
        },
        201,
      ),
  )

  app.openapi(
    route({
      method: 'get',
      path: '/partner/disputes',
      operationId: 'listDisputes',
      summary: "The user's disputes, newest first",
      request: { query: ListQuery },
      responses: {
        200: jsonResponse(envelope(pageOf(Dispute), 'DisputeList'), 'Disputes.'),
        ...errorResponses(400, ...orgErrors),
      },
    }),
    (c) => {
      const user = c.get('user').id
      const page = indexPage(
        deps.store,
        'disputes',
        'disputes_by_user',
        user,
        c.req.valid('query'),
        publicDispute,
      )
      return c.json({ success: true as const, data: page }, 200)
    },
  )

  app.openapi(
    route({
      method: 'get',
      path: '/partner/disputes/{id}',
      operationId: 'getDispute',
      summary: 'One dispute',
      request: { params: DisputeParam },
      responses: {
        200: jsonResponse(envelope(Dispute, 'DisputeOne'), 'The dispute.'),
        ...errorResponses(400, ...orgErrors, 404),
      },
    }),
    (c) =>
      c.json(
        {
          success: true as const,
          data: publicDispute(requireDispute(deps, c.get('user'), c.req.valid('param').id)),
        },
        200,
      ),
  )

  app.openapi(
    route({
      method: 'post',
      path: '/partner/disputes/{id}/evidence',
      operationId: 'addDisputeEvidence',
      summary: 'Add evidence to a dispute under review',
      request: { params: DisputeParam, body: jsonBody(EvidenceBody) },
      responses: {
        200: jsonResponse(envelope(Dispute, 'DisputeEvidenceAdded'), 'The dispute.'),
        ...errorResponses(400, ...orgErrors, 404, 409, 413, 415),
      },
    }),
    (c) => {
      const dispute = requireDispute(deps, c.get('user'), c.req.valid('param').id)
      return c.json(
        {
          success: true as const,
          data: publicDispute(addEvidence(deps, dispute, c.req.valid('json').text)),
        },
        200,
      )
    },
  )

  return app
}
