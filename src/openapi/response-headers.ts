import { type OpenAPIHono, z } from '@hono/zod-openapi'

type OpenAPIRegistry = OpenAPIHono['openAPIRegistry']

/**
 * The headers the sandbox puts on its answers, declared once as components of the document
 * (`#/components/headers/…`) and referenced by every response they can appear on (see
 * route-contract.ts). Each value's schema is a zod schema, registered under its own name.
 */
const responseHeaders = {
  'X-Request-Id': {
    schemaName: 'RequestId',
    schema: z.string().openapi({ example: 'req_k3Jd9Qx2Lm0' }),
    required: true,
    description:
      "This request's id: the client's own X-Request-Id when it sent a sane one, else one the sandbox made. Error bodies repeat it as `requestId`; GET /_sandbox/requests/{id} shows the request.",
  },
  'X-RateLimit-Limit': {
    schemaName: 'RateLimitLimit',
    schema: z.number().int().min(1).openapi({ example: 1000 }),
    required: false,
    description:
      "The partner's `rate_limit`: requests per minute. On every answer to a request made with partner credentials once they are checked (not on the 401 or 403 of the credentials check), unless the sandbox runs with `--rate-limit off`. The control plane, the hosted pages and the public routes are not rate limited: they never send it.",
  },
  'X-RateLimit-Remaining': {
    schemaName: 'RateLimitRemaining',
    schema: z.number().int().min(0).openapi({ example: 999 }),
    required: false,
    description: 'Requests left in the current one-minute window; sent with X-RateLimit-Limit.',
  },
  'X-RateLimit-Reset': {
    schemaName: 'RateLimitReset',
    schema: z.number().int().openapi({ example: 1772453160 }),
    required: false,
    description:
      "When the current window ends, in unix seconds of the partner's clock; sent with X-RateLimit-Limit.",
  },
  'Retry-After': {
    schemaName: 'RetryAfter',
    schema: z.number().int().min(1).openapi({ example: 12 }),
    required: false,
    description:
      'Seconds to wait before trying again: on a 429 over the rate limit, and on an injected 429 or 503.',
  },
} as const

export type ResponseHeader = keyof typeof responseHeaders

/** The response headers as components of the document, their values' schemas as schemas. */
export function registerResponseHeaders(registry: OpenAPIRegistry) {
  for (const [name, header] of Object.entries(responseHeaders)) {
    registry.register(header.schemaName, header.schema)
    registry.registerComponent('headers', name, {
      description: header.description,
      required: header.required,
      schema: { $ref: `#/components/schemas/${header.schemaName}` },
    })
  }
}

/** A response's `headers`: references to the components above. */
export const headerRefs = (names: readonly ResponseHeader[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]))
