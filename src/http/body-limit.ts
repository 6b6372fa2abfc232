import type { MiddlewareHandler } from 'hono'
import { bodyLimit as honoBodyLimit } from 'hono/body-limit'
import { ApiError } from '../errors.js'
import type { AppEnv } from './app-env.js'
import { readJsonStrictly } from './json-body.js'

/**
 * Caps request bodies: `jsonLimit` for everything, `uploadLimit` for multipart uploads.
 * Over it: 413 in our envelope, before the body is read into memory.
 *
 * A declared Content-Length is checked from the header alone; only a chunked body goes
 * through hono's counting reader. (That reader touches `Request.body`, which makes
 * @hono/node-server build a full WHATWG Request: too costly for every JSON request.)
 */
export function bodyLimit(
  jsonLimit: number,
  uploadLimit = 5 * 1024 * 1024,
): MiddlewareHandler<AppEnv> {
  const tooLarge = (maxSize: number) => {
    throw new ApiError(
      'payload_too_large',
      `The request body is larger than the limit of ${maxSize} bytes.`,
    )
  }
  const counting = (maxSize: number) => honoBodyLimit({ maxSize, onError: () => tooLarge(maxSize) })
  const json = counting(jsonLimit)
  const upload = counting(uploadLimit)
  return (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    readJsonStrictly(c)
    const multipart = c.req.header('content-type')?.startsWith('multipart/form-data')
    const maxSize = multipart ? uploadLimit : jsonLimit
    const length = c.req.header('content-length')
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number.parseInt(length, 10) > maxSize ? tooLarge(maxSize) : next()
    }
    return (multipart ? upload : json)(c, next)
  }
}
