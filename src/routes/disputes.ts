import { OpenAPIHono, z } from '@hono/zod-openapi'
import { publicDispute } from '../domain/disputes.js'
import { ListQuery, pageOf } from '../domain/pagination.js'
import { routeFactory } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import { envelope } from '../schemas/cards.js'
import { errorResponses, jsonBody, jsonResponse, orgErrors } from '../schemas/common.js'
import { DisputeId } from '../schemas/ids.js'
import { Dispute, DisputeBody, EvidenceBody } from '../schemas/money.js'
import type { Money } from '../services/money.js'

const route = routeFactory(['Disputes'], 'session')
const DisputeParam = z.object({ id: DisputeId })

export function disputeRoutes(s: { money: Money }) {
  const { money } = s
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
    async (c) => {
      const dispute = await money.openDispute(c.get('partner'), c.get('user'), c.req.valid('json'))
      return c.json({ success: true as const, data: publicDispute(dispute) }, 201)
    },
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
    async (c) => {
      const page = await money.disputes(c.get('user'), c.req.valid('query'))
      const data = { data: page.data.map(publicDispute), has_more: page.has_more }
      return c.json({ success: true as const, data }, 200)
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
    async (c) => {
      const dispute = await money.dispute(c.get('user'), c.req.valid('param').id)
      return c.json({ success: true as const, data: publicDispute(dispute) }, 200)
    },
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
    async (c) => {
      const { id } = c.req.valid('param')
      const dispute = await money.addEvidence(c.get('user'), id, c.req.valid('json').text)
      return c.json({ success: true as const, data: publicDispute(dispute) }, 200)
    },
  )

  return app
}
