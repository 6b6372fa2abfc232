import { z } from '@hono/zod-openapi'
import { errorCodes, serverErrors } from '../errors.js'

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
  507: 'The data file cannot take the write (a full disk, quota, read-only or failing device): nothing changed. The message says what to free; writes are taken again by themselves once there is space.',
}

/** What each status looks like on the wire, for the examples of the document. */
const errorExamples: Record<number, { code: string; message: string; details?: object[] }> = {
  400: {
    code: 'validation_error',
    message: 'email: must be a valid email address',
    details: [{ field: 'email', message: 'must be a valid email address', location: 'body' }],
  },
  401: {
    code: 'unauthorized',
    message: 'Missing or invalid X-Partner-Key / X-Partner-Secret.',
  },
  403: { code: 'forbidden', message: 'This partner account is suspended.' },
  404: { code: 'not_found', message: 'No transaction txn_Pc4Hs8Wd2Mz6Qy1J for this user.' },
  409: { code: 'conflict', message: 'The card is frozen; unfreeze it first.' },
  413: { code: 'payload_too_large', message: 'The request body is larger than 1048576 bytes.' },
  415: {
    code: 'unsupported_media_type',
    message: 'Send the body as JSON with Content-Type: application/json.',
  },
  429: { code: 'rate_limited', message: 'Rate limit of 1000 requests per minute exceeded.' },
  507: {
    code: 'insufficient_storage',
    message:
      'The data file could not take this write: the file system holding /data is full: free space there. Nothing was changed; writes are taken again by themselves once the disk can take them.',
  },
}

// The 5xx come from the code table itself (src/errors.ts), so a new one needs no edit here.
for (const { status, code, message, when } of serverErrors) {
  errorDescriptions[status] = when ?? message
  errorExamples[status] = { code, message }
}

type ErrorResponse = {
  description: string
  content: { 'application/json': { schema: typeof ErrorEnvelope; example: unknown } }
}

/** Error responses for a route's OpenAPI entry, all with the same envelope. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => {
      const description = errorDescriptions[status]
      if (!description) throw new Error(`no error response is described for status ${status}`)
      const response: ErrorResponse = {
        description,
        content: {
          'application/json': {
            schema: ErrorEnvelope,
            example: { success: false, error: errorExamples[status], requestId: 'req_k3Jd9Qx2Lm0' },
          },
        },
      }
      return [status, response]
    }),
  ) as Record<number, ErrorResponse>
}

/** The server errors every operation can answer (the 5xx rows of src/errors.ts). */
export const serverErrorResponses = () => errorResponses(...serverErrors.map((e) => e.status))

/** The errors every Org-authenticated route can answer. */
export const orgErrors = [401, 403, 429] as const

export const jsonBody = <T extends z.ZodType>(schema: T, description?: string) => ({
  required: true,
  description,
  content: { 'application/json': { schema } },
})

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})
