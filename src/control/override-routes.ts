import { z } from '@hono/zod-openapi'
import { OVERRIDE_CAP } from '../domain/overrides.js'
import { pageOf, paginateInOrder } from '../domain/pagination.js'
import type { OperationIndex } from '../openapi/operations.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { OverrideId } from '../schemas/ids.js'
import { controlPageQuery } from '../schemas/limit.js'
import type { Overrides } from '../services/overrides.js'
import { overrideMatch, overrideResponse, overrideRow } from '../store/records-overrides.js'
import { controlRoute, controlRouter, Ok } from './router.js'
import { PartnerIdParam } from './schemas.js'

/** The examples' answer: register's documented 409. */
const exampleAnswer = {
  status: 409,
  body: {
    success: false,
    error: { code: 'conflict', message: 'A user with this email already exists.' },
    requestId: 'req_override',
  },
}

export const OverrideBody = z
  .object({
    match: overrideMatch,
    respond: overrideResponse,
    times: z.number().int().positive().optional().openapi({
      description: 'Answer this many matching requests, then go; default: until removed.',
    }),
    priority: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Higher first (default 0); among equals, the newest first.' }),
    off_contract: z.boolean().optional().openapi({
      description:
        "Serve it even if the API's contract does not allow it (no such operation, an undocumented status, a body its schema refuses); the journal marks such answers.",
    }),
  })
  .strict()
  .openapi('SandboxOverrideRequest', {
    example: {
      match: {
        method: 'POST',
        path: '/api/v1/partner/auth/register',
        body: { email: 'taken@example.test' },
      },
      respond: exampleAnswer,
      times: 1,
    },
  })

// The row schema is plain zod (the store loads without the OpenAPI extension), so the view
// wraps its shape in a schema made by @hono/zod-openapi's z.
const pages = controlPageQuery('override')

export const OverrideView = z.object(overrideRow.shape).openapi('SandboxOverride', {
  example: {
    id: 'ovr_4Hs8Wd2Mz6Qy1JPc4Hs8Wd2M',
    partner_id: '6f1c2b1e-6c8a-4d3e-9a51-2d7f0c9b8e10',
    match: { method: 'POST', path: '/api/v1/partner/auth/register' },
    respond: exampleAnswer,
    remaining: 1,
    priority: 0,
    off_contract: false,
    contract_problem: null,
    operation_id: 'registerUser',
    seq: 0,
    created_at: '2026-03-02T12:40:00.000Z',
  },
})

const OverrideIdParam = z.object({ overrideId: OverrideId })

const description = `Answers matching partner API requests (after partner authentication, rate limit and faults; before the session check and the route) with the given status, headers, body and delay. Checked against the API's contract: the operation (method + path), the status it documents, the body against that status's response schema; refused with 400 and the schema's complaint unless off_contract is true. At most ${OVERRIDE_CAP} per partner, and ${OVERRIDE_CAP} global; the partner's reset removes its own, the sandbox reset all.`

/** Response overrides: per partner, and global (every partner's authenticated requests). */
export function overrideRoutes(
  { overrides }: { overrides: Overrides },
  operations: OperationIndex,
) {
  const app = controlRouter()
  const scopes = [
    { prefix: '/partners/{id}', scope: 'partner', params: PartnerIdParam },
    { prefix: '', scope: 'global', params: undefined },
  ] as const
  for (const { prefix, scope, params } of scopes) {
    const partnerOf = (p: { id?: string }) => (scope === 'partner' ? (p.id as string) : null)
    const who = scope === 'partner' ? "a partner's" : "every partner's"
    const suffix = scope === 'partner' ? 'PartnerOverride' : 'GlobalOverride'
    app.openapi(
      controlRoute({
        method: 'post',
        path: `${prefix}/overrides`,
        operationId: `create${suffix}`,
        summary: `Answer ${who} matching API requests with a chosen response`,
        description,
        request: { ...(params ? { params } : {}), body: jsonBody(OverrideBody) },
        responses: {
          201: jsonResponse(z.object({ override: OverrideView }), 'The override.'),
          ...errorResponses(400, 401, 404, 409, 413, 415),
        },
      }),
      async (c) => {
        const override = await overrides.create(
          operations,
          partnerOf(c.req.param()),
          c.req.valid('json'),
        )
        return c.json({ override }, 201)
      },
    )
    app.openapi(
      controlRoute({
        method: 'get',
        path: `${prefix}/overrides`,
        operationId: `list${suffix}s`,
        summary: `${scope === 'partner' ? "A partner's" : 'The global'} response overrides, in the order they are tried`,
        description:
          'In the order they are tried (highest priority first; among equals, the newest), `limit` at a time (1–500, default 50; at most 100 are kept); `starting_after` an override id to read the next page.',
        request: params ? { params, query: pages.request.query } : { query: pages.request.query },
        responses: {
          200: jsonResponse(pageOf(OverrideView), 'Highest priority first.'),
          ...errorResponses(400, 401, 404),
        },
      }),
      async (c) =>
        c.json(
          paginateInOrder(
            await overrides.list(partnerOf(c.req.param())),
            c.req.valid('query'),
            (row) => row,
          ),
          200,
        ),
    )
    app.openapi(
      controlRoute({
        method: 'delete',
        path: `${prefix}/overrides/{overrideId}`,
        operationId: `remove${suffix}`,
        summary: 'Remove a response override',
        request: { params: params ? params.extend(OverrideIdParam.shape) : OverrideIdParam },
        responses: { 200: jsonResponse(Ok, 'Removed.'), ...errorResponses(400, 401, 404) },
      }),
      async (c) => {
        const { overrideId } = c.req.param() as { overrideId: string }
        await overrides.remove(partnerOf(c.req.param()), overrideId)
        return c.json({ ok: true as const, message: `Override ${overrideId} was removed.` }, 200)
      },
    )
  }
  return app
}
