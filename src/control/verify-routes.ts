import { z } from '@hono/zod-openapi'
import { NEAR_MISSES, verifyRequests } from '../http/journal-search.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import type { RequestJournal } from '../services/journal.js'
import { JournalEntryView } from './journal-routes.js'
import { controlRoute, controlRouter } from './router.js'

const VerifyBody = z
  .object({
    partner_id: z.uuid().optional().openapi({ description: "Only this partner's requests." }),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']).optional(),
    path: z.string().startsWith('/').optional().openapi({
      description: 'The path as sent, a template with {name} segments, or * for any run.',
      example: '/api/v1/partner/auth/register',
    }),
    query: z.record(z.string(), z.string()).optional(),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .openapi({ description: 'Header names in any case; values exact, as journaled.' }),
    body: z
      .unknown()
      .optional()
      .openapi({
        description:
          'A JSON subset of the request body. Redacted fields (passwords, SSNs, tokens, codes) cannot be matched by value.',
        example: { email: 'ada@example.test' },
      }),
    times: z.number().int().min(0).optional().openapi({
      description: 'Exactly this many matching requests; without it, at least one.',
    }),
  })
  .strict()
  .openapi('SandboxVerifyRequest')

export const VerifyResult = z
  .object({
    matched: z
      .boolean()
      .openapi({ description: '`count === times` with times, else `count > 0`.' }),
    count: z.number().int(),
    near_misses: z
      .array(
        z.object({
          request: JournalEntryView,
          differences: z.array(z.string()).openapi({
            example: [
              'method: expected POST, got GET',
              'body.email: expected "a@x.test", got "b@x.test"',
            ],
          }),
        }),
      )
      .openapi({
        description: `When no request matched: up to ${NEAR_MISSES} closest (most criteria met, then newest), each with what differed.`,
      }),
  })
  .openapi('SandboxVerifyResult', {
    example: {
      matched: false,
      count: 0,
      near_misses: [
        {
          request: {
            id: 'req_k3Jd9Qx2Lm0',
            at: '2026-03-02T12:40:00.000Z',
            method: 'POST',
            path: '/api/v1/partner/auth/register',
            query: {},
            status: 201,
            duration_ms: 3,
            partner_id: '6f1c2b1e-6c8a-4d3e-9a51-2d7f0c9b8e10',
            scenario: 'default',
            rules: [],
            request: null,
            response: null,
          },
          differences: ['body.email: expected "ada@example.test", got "bob@example.test"'],
        },
      ],
    },
  })

/** Verification over the request journal, WireMock-style, with near misses. */
export function verifyRoutes(s: { journal: RequestJournal }) {
  const app = controlRouter()
  app.openapi(
    controlRoute({
      method: 'post',
      path: '/requests/verify',
      operationId: 'verifyRequests',
      summary: 'Did matching requests happen? When none did, the closest ones and what differed',
      description:
        'Compares the journal as it shows requests: headers and bodies redacted, and kept for the newest requests only (see GET /_sandbox/requests).',
      request: { body: jsonBody(VerifyBody) },
      responses: {
        200: jsonResponse(VerifyResult, 'The verdict.'),
        ...errorResponses(400, 401, 413, 415),
      },
    }),
    async (c) => c.json(await verifyRequests(s.journal, c.req.valid('json')), 200),
  )
  return app
}
