import type { createRoute } from '@hono/zod-openapi'
import type { Access } from '../http/access-level.js'
import { serverErrorResponses } from '../schemas/common.js'
import { headerRefs, type ResponseHeader } from './response-headers.js'
import type { TagName } from './tags.js'

type RouteConfig = Parameters<typeof createRoute>[0]
type Responses = RouteConfig['responses']

/** What the caller of an operation needs, by the access it declares (http/access.ts). */
const accessSentences: Record<Access, string> = {
  public: 'Public: needs no credentials.',
  org: 'Needs the organization headers X-Partner-Key and X-Partner-Secret.',
  session:
    "Needs the organization headers X-Partner-Key and X-Partner-Secret, and the user's session: `Authorization: Bearer <sessionToken>` (from verify-otp).",
  admin:
    'Control plane: needs `Authorization: Bearer <admin token>` when the sandbox was started with one (SANDBOX_ADMIN_TOKEN).',
  onboarding:
    'Needs `Authorization: Bearer <accessToken>`: the access token of the onboarding start response, for this onboarding only.',
}

/** Every answer carries the request id; the rate-limit headers say themselves when they are sent. */
const everyAnswer: ResponseHeader[] = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
]
const withRetryAfter = new Set(['429', '503'])

/**
 * What every documented operation states beyond its own declaration, added where the route is
 * declared (accessRoute) so the document, the override checks (operations.ts) and the typed
 * routes all see it: the server errors of the code table, the response headers, and who may
 * call it at the end of its description.
 */
export function withContract<R extends RouteConfig & { tags?: TagName[] }>(
  access: Access,
  route: R,
): R {
  const responses: Responses = { ...route.responses }
  for (const [status, response] of Object.entries(serverErrorResponses()))
    responses[status] ??= response
  for (const [status, response] of Object.entries(responses)) {
    if ('$ref' in response) continue
    const names = withRetryAfter.has(status)
      ? [...everyAnswer, 'Retry-After' as const]
      : everyAnswer
    responses[status] = {
      ...response,
      headers: { ...headerRefs(names), ...(response.headers as object | undefined) },
    }
  }
  const description = [route.description, accessSentences[access]].filter(Boolean).join('\n\n')
  return { ...route, responses, description }
}
