import { z } from '@hono/zod-openapi'
import { ApiError } from '../errors.js'
import { REQUEST_ID_PATTERN } from '../http/request-id.js'
import { BODY_WINDOW, JOURNAL_CAPACITY } from '../http/request-journal.js'
import { errorResponses, jsonResponse } from '../schemas/common.js'
import * as ex from '../schemas/examples.js'
import { documentedParam } from '../schemas/ids.js'
import { limitParam } from '../schemas/limit.js'
import type { RequestJournal } from '../services/journal.js'
import { ContentFilters, contentOf } from './journal-content.js'
import { controlRoute, controlRouter } from './router.js'
import { OkOnly } from './schemas.js'

/** Any id a request can have: the sandbox's own (`req_…`) or a client's sane X-Request-Id. */
const RequestId = documentedParam(
  z.string().regex(REQUEST_ID_PATTERN, 'must be a request id (X-Request-Id)'),
  ex.ids.request,
)

const Message = z.object({
  headers: z.record(z.string(), z.string()),
  body: z.unknown().openapi({ description: 'Parsed JSON, text, or null; secrets redacted.' }),
  truncated: z.boolean().openapi({ description: 'The body was cut at 16 KiB of JSON or text.' }),
})

/** A rule a request met, as its journal entry shows it. */
export const MetRuleView = z
  .object({
    id: z.string().openapi({
      description: 'The rule (`rul_…`), or `Prefer: code=503` for that header.',
      example: 'rul_4Hs8Wd2Mz6Qy1JPc4Hs8Wd2M',
    }),
    scenario: z
      .string()
      .optional()
      .openapi({ description: "For a scenario's rule: `<scenario> rules[<n>]`." }),
    effect: z.enum(['respond', 'drop_connection', 'decide', 'latency']),
    status: z.number().int().optional().openapi({ description: 'The status it answered.' }),
    off_contract: z.boolean().optional().openapi({
      description: "Its answer was off the API's contract (the rule said off_contract).",
    }),
    decide: z.record(z.string(), z.string()).optional(),
    latency_ms: z.number().optional().openapi({ description: 'The delay it added.' }),
  })
  .openapi('SandboxMetRule')

export const JournalEntryView = z
  .object({
    id: z.string().openapi({ description: 'The request id (X-Request-Id).' }),
    at: z.string().openapi({ description: 'Sandbox time the request was answered.' }),
    method: z.string(),
    path: z.string(),
    status: z.number().int(),
    duration_ms: z.number(),
    partner_id: z.string().nullable(),
    scenario: z.string().nullable(),
    query: z
      .record(z.string(), z.string())
      .openapi({ description: 'The query string, parsed (first value of each name), redacted.' }),
    rules: z.array(MetRuleView).openapi({
      description:
        'Every rule the request met (docs/rules.md), in the order they were tried: empty when none.',
    }),
    request: Message.nullable().openapi({
      description: `Null for control-plane requests and beyond the newest ${BODY_WINDOW} requests.`,
    }),
    response: Message.nullable(),
  })
  .openapi('SandboxJournalEntry', {
    example: {
      id: 'req_k3Jd9Qx2Lm0',
      at: '2026-03-02T12:40:00.000Z',
      method: 'POST',
      path: '/api/v1/partner/cards/simulate-fund',
      status: 200,
      duration_ms: 3,
      partner_id: '6f1c2b1e-6c8a-4d3e-9a51-2d7f0c9b8e10',
      scenario: 'default',
      query: {},
      rules: [],
      request: null,
      response: null,
    },
  })

const Filters = z.object({
  partner_id: z.uuid().optional(),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']).optional(),
  path: z
    .string()
    .startsWith('/')
    .optional()
    .openapi({ description: 'Exact path; `*` matches any run of characters.' }),
  status: z.coerce.number().int().min(100).max(599).optional(),
  ruled: z
    .enum(['true', 'false'])
    .optional()
    .openapi({ description: 'Only requests a rule met (true), or none met (false).' }),
  ...ContentFilters.shape,
})

const filterOf = (q: z.infer<typeof Filters>) => ({
  ...q,
  ruled: q.ruled === undefined ? undefined : q.ruled === 'true',
})

/** The request journal: list, count (for "exactly one deposit was created"), empty. */
export function journalRoutes({ journal }: { journal: RequestJournal }) {
  const app = controlRouter()

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/requests',
      operationId: 'listRequests',
      summary: 'The request journal, newest first: partner, status, duration, headers, bodies',
      description: `The newest ${JOURNAL_CAPACITY} requests; the newest ${BODY_WINDOW} keep headers and bodies. Secrets, passwords, SSNs, tokens and codes are redacted.`,
      request: {
        query: Filters.extend({ limit: limitParam(1000, 100) }),
      },
      responses: {
        200: jsonResponse(
          z.object({
            data: z.array(JournalEntryView),
            has_more: z.boolean().openapi({ example: false }),
          }),
          'Newest first.',
        ),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const q = c.req.valid('query')
      const content = contentOf(q)
      return c.json(
        content
          ? await journal.search(filterOf(q), content, q.limit)
          : await journal.list({ ...filterOf(q), limit: q.limit }),
        200,
      )
    },
  )

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/requests/count',
      operationId: 'countRequests',
      summary: 'How many journaled requests match (same filters as the list)',
      request: { query: Filters },
      responses: {
        200: jsonResponse(
          z.object({ count: z.number().int().openapi({ example: 12 }) }),
          'The count.',
        ),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const q = c.req.valid('query')
      const content = contentOf(q)
      const count = content
        ? await journal.countMatching(filterOf(q), content)
        : await journal.count(filterOf(q))
      return c.json({ count }, 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/requests/{id}',
      operationId: 'getRequest',
      summary: 'One journaled request by its id (X-Request-Id): headers and bodies, redacted',
      request: { params: z.object({ id: RequestId }) },
      responses: {
        200: jsonResponse(JournalEntryView, 'The request.'),
        ...errorResponses(401, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const entry = await journal.find(id)
      if (!entry) {
        throw new ApiError(
          'not_found',
          `No journaled request ${id}: the journal keeps the newest ${JOURNAL_CAPACITY}.`,
        )
      }
      return c.json(entry, 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'delete',
      path: '/requests',
      operationId: 'clearRequests',
      summary: 'Empty the request journal',
      responses: { 200: jsonResponse(OkOnly, 'Emptied.'), ...errorResponses(401) },
    }),
    async (c) => {
      await journal.clear()
      return c.json({ ok: true as const }, 200)
    },
  )

  return app
}
