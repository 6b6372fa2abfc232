import type { MiddlewareHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { ApiError, type ErrorDetail } from '../errors.js'
import { nodeRequest } from './app-env.js'

/** Methods whose request may carry a body: on the others (GET, HEAD) it is never read. */
export const bodyMethods = new Set(['post', 'put', 'patch', 'delete'])

const json = /^application\/([a-z-.]+\+)?json/i

/**
 * What an operation that takes no body (logout, a clock unfreeze, `POST /_sandbox/reset`)
 * does with one (docs/hardening.md, "Parsing decisions"): it reads it as every other
 * operation reads JSON (json-body.ts), so malformed JSON, bytes that are not UTF-8, a key
 * given twice or a foreign charset get the same 400 or 415 as anywhere else; and a body with
 * anything in it is a 400, since nothing in it would be read (as a field no operation takes
 * is). `{}` is read as no body, for clients that always send one. Taking a body silently let
 * a request whose sender meant something else act anyway (a webhook event POSTed at reset).
 */
export const noBody: MiddlewareHandler = async (c, next) => {
  const length = c.req.header('content-length')
  const chunked = c.req.header('transfer-encoding') !== undefined
  // Behind the node server a request with neither header has no body; in process
  // (app.request), a Request built with a body may name no length: it is read to know.
  const served = nodeRequest(c) !== undefined
  if (length === '0' || (length === undefined && !chunked && served)) return next()
  const bytes = await c.req.arrayBuffer()
  if (bytes.byteLength === 0) return next()
  const operation = `${c.req.method} ${c.req.path}`
  if (!json.test(c.req.header('content-type') ?? '')) {
    throw new ApiError(
      'unsupported_media_type',
      `${operation} takes no body: send none (or {} as application/json).`,
    )
  }
  let value: unknown
  try {
    value = await c.req.json()
  } catch (error) {
    // The strict reader's own refusals (UTF-8, a key twice, a charset) say what is wrong.
    if (error instanceof ApiError) throw error
    // As the validators of the operations with a body report it (error-handler.ts words it).
    throw new HTTPException(400, { message: 'Malformed JSON in request body' })
  }
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value)
  const keys = isObject ? Object.keys(value as object) : []
  if (isObject && keys.length === 0) return next()
  const details: ErrorDetail[] = isObject
    ? keys.map((field) => ({
        field,
        message: 'is not a field this endpoint accepts: it takes no body',
        location: 'body',
      }))
    : [{ field: 'body', message: 'must be empty: this endpoint takes no body', location: 'body' }]
  throw new ApiError(
    'validation_error',
    `Invalid request body: ${operation} takes no body; send none (or {}). ${details
      .map((d) => `${d.field} ${d.message}`)
      .join('; ')}`,
    { details },
  )
}
