import { z } from '@hono/zod-openapi'
import { pageOf, paginateInOrder } from '../domain/pagination.js'
import { RULE_CAP } from '../domain/rules.js'
import type { OperationIndex } from '../openapi/operations.js'
import { checked, ruleInputShape, ruleRow } from '../rules/rule-schema.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { RuleId } from '../schemas/ids.js'
import { controlPageQuery } from '../schemas/limit.js'
import type { Rules } from '../services/rules.js'
import { controlRoute, controlRouter, Ok } from './router.js'
import { PartnerIdParam } from './schemas.js'

const PURCHASE = '/api/v1/partner/cards/simulate-purchase'

// The rule schemas are plain zod (the store loads without the OpenAPI extension), so the
// views wrap their shapes in schemas made by @hono/zod-openapi's z, with the same checks.
export const RuleBody = checked(z.object(ruleInputShape).strict()).openapi('SandboxRuleRequest', {
  example: {
    match: { method: 'POST', path: PURCHASE },
    decide: { purchase_decline: 'insufficient_funds' },
    once: true,
  },
})

export const RuleView = z.object(ruleRow.shape).openapi('SandboxRule', {
  example: {
    id: 'rul_4Hs8Wd2Mz6Qy1JPc4Hs8Wd2M',
    partner_id: '6f1c2b1e-6c8a-4d3e-9a51-2d7f0c9b8e10',
    match: { method: 'POST', path: PURCHASE },
    respond: null,
    drop_connection: false,
    decide: { purchase_decline: 'insufficient_funds' },
    latency_ms: null,
    times: 1,
    used: 0,
    rate: null,
    priority: 0,
    off_contract: false,
    contract_problem: null,
    operation_id: 'simulatePurchase',
    scenario: null,
    seq: 0,
    created_at: '2026-03-02T12:40:00.000Z',
  },
})

const pages = controlPageQuery('rule')
const RuleIdParam = z.object({ ruleId: RuleId })

const description = `A rule meets matching partner API requests (after partner authentication and the rate limit; before the session check and the route): \`match\` (method, path with {name} segments or * runs, query, headers, a JSON subset of the body); one effect: \`respond\` (a status, headers and body in place of the route's, checked against the API's contract: the operation, a status it documents, the body against that status's schema; refused with 400 naming the field unless off_contract is true; without a body, an error status answers the sandbox's error envelope), \`drop_connection\`, or \`decide\` (purchase_decline, kyc, deposit_failure, otp_code: the route runs and takes these decisions); \`latency_ms\` alone or with any of them; and a count: \`times\` or \`once\` (default: until removed), \`rate\`. Every rule a request met is in its journal entry. At most ${RULE_CAP} per partner and ${RULE_CAP} global; the partner's reset removes its own, the sandbox reset all (docs/rules.md).`

/** Rules: per partner, and global (every partner's authenticated requests). */
export function ruleRoutes({ rules }: { rules: Rules }, operations: OperationIndex) {
  const app = controlRouter()
  const scopes = [
    { prefix: '/partners/{id}', scope: 'partner', params: PartnerIdParam },
    { prefix: '', scope: 'global', params: undefined },
  ] as const
  for (const { prefix, scope, params } of scopes) {
    const partnerOf = (p: { id?: string }) => (scope === 'partner' ? (p.id as string) : null)
    const who = scope === 'partner' ? "a partner's" : "every partner's"
    const suffix = scope === 'partner' ? 'PartnerRule' : 'GlobalRule'
    const their = scope === 'partner' ? "A partner's" : 'The global'
    app.openapi(
      controlRoute({
        method: 'post',
        path: `${prefix}/rules`,
        operationId: `create${suffix}`,
        summary: `Program ${who} matching API requests: an answer, a delay, a dropped connection or decisions`,
        description,
        request: { ...(params ? { params } : {}), body: jsonBody(RuleBody) },
        responses: {
          201: jsonResponse(z.object({ rule: RuleView }), 'The rule.'),
          ...errorResponses(400, 401, 404, 409, 413, 415),
        },
      }),
      async (c) => {
        const rule = await rules.create(operations, partnerOf(c.req.param()), c.req.valid('json'))
        return c.json({ rule }, 201)
      },
    )
    app.openapi(
      controlRoute({
        method: 'get',
        path: `${prefix}/rules`,
        operationId: `list${suffix}s`,
        summary: `${their} rules with requests left, in the order they are tried`,
        description: `Highest priority first; among equals, the newest; \`limit\` at a time (1–500, default 50; at most ${RULE_CAP} are kept); \`starting_after\` a rule id to read the next page. A rule that met its \`times\` requests is gone.`,
        request: params ? { params, query: pages.request.query } : { query: pages.request.query },
        responses: {
          200: jsonResponse(pageOf(RuleView), 'Highest priority first.'),
          ...errorResponses(400, 401, 404),
        },
      }),
      async (c) =>
        c.json(
          paginateInOrder(
            await rules.list(partnerOf(c.req.param())),
            c.req.valid('query'),
            (row) => row,
          ),
          200,
        ),
    )
    app.openapi(
      controlRoute({
        method: 'delete',
        path: `${prefix}/rules/{ruleId}`,
        operationId: `remove${suffix}`,
        summary: 'Remove a rule',
        request: { params: params ? params.extend(RuleIdParam.shape) : RuleIdParam },
        responses: { 200: jsonResponse(Ok, 'Removed.'), ...errorResponses(400, 401, 404) },
      }),
      async (c) => {
        const { ruleId } = c.req.param() as { ruleId: string }
        await rules.remove(partnerOf(c.req.param()), ruleId)
        return c.json({ ok: true as const, message: `Rule ${ruleId} was removed.` }, 200)
      },
    )
    app.openapi(
      controlRoute({
        method: 'delete',
        path: `${prefix}/rules`,
        operationId: `clear${suffix}s`,
        summary: `Remove ${scope === 'partner' ? "a partner's" : 'the global'} rules`,
        description:
          scope === 'partner'
            ? "Every rule of the partner, and the counts of its scenario's rules (they start again)."
            : 'Every global rule (partners keep their own).',
        request: params ? { params } : {},
        responses: { 200: jsonResponse(Ok, 'Removed.'), ...errorResponses(401, 404) },
      }),
      async (c) => {
        await rules.clear(partnerOf(c.req.param()))
        return c.json({ ok: true as const, message: 'The rules were removed.' }, 200)
      },
    )
  }
  return app
}
