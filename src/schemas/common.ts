import { createRoute, z } from '@hono/zod-openapi'
import { errorCodes } from '../errors.js'

export const ErrorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(
        Object.keys(errorCodes) as [keyof typeof errorCodes, ...(keyof typeof errorCodes)[]],
      ),
      message: z.string().openapi({ example: 'Invalid request body: first_name is required' }),
      details: z
        .array(
          z.object({
            field: z.string().openapi({ example: 'webhook_url' }),
            message: z.string(),
            location: z.string().optional().openapi({ example: 'body' }),
          }),
        )
        .optional(),
    }),
    requestId: z.string(),
  })
  .openapi('Error')

const errorDescriptions: Record<number, string> = {
  400: 'Invalid input; `error.details` names each bad field.',
  401: 'Organization key or secret missing, wrong or live-mode.',
  403: 'Partner account suspended or revoked.',
  404: 'Not found.',
  405: 'The path exists but does not take this method; `Allow` lists the methods it takes.',
  409: 'Conflicts with the current state.',
  413: 'Request body too large.',
  415: 'Unsupported Content-Type.',
  429: 'Rate limit exceeded; see Retry-After.',
}

/** Error responses for a route's OpenAPI entry, all with the same envelope. */
export function errorResponses(...statuses: (keyof typeof errorDescriptions)[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: errorDescriptions[status] as string,
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
    ]),
  ) as Record<
    number,
    { description: string; content: { 'application/json': { schema: typeof ErrorEnvelope } } }
  >
}

/** The errors every Org-authenticated route can answer. */
export const orgErrors = [401, 403, 429] as const

export const orgSecurity = [{ PartnerKey: [], PartnerSecret: [] }]

export const jsonBody = <T extends z.ZodType>(schema: T, description?: string) => ({
  required: true,
  description,
  content: { 'application/json': { schema } },
})

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})

/** Org + User routes: the organization headers and a Bearer session token. */
export const sessionSecurity = [{ PartnerKey: [], PartnerSecret: [], Session: [] }]

type RouteConfig = Parameters<typeof createRoute>[0]

/** A route factory for one router: every route gets the group's tags and security scheme. */
export const routeFactory =
  (tags: string[], security: typeof orgSecurity | typeof sessionSecurity) =>
  <R extends RouteConfig>(r: R) =>
    createRoute({ ...r, tags, security })
