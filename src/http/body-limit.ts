import type { MiddlewareHandler } from 'hono'
import { bodyLimit as honoBodyLimit } from 'hono/body-limit'
import type { AppEnv } from '../deps.js'
import { ApiError } from '../errors.js'

/**
 * Caps request bodies: `jsonLimit` for everything, `uploadLimit` for multipart uploads.
 * Over it: 413 in our envelope, before the body is read into memory.
 */
export function bodyLimit(
  jsonLimit: number,
  uploadLimit = 5 * 1024 * 1024,
): MiddlewareHandler<AppEnv> {
  const make = (maxSize: number) =>
    honoBodyLimit({
      maxSize,
      onError: () => {
        throw new ApiError(
          'payload_too_large',
          `The request body is larger than the limit of ${maxSize} bytes.`,
        )
      },
    })
  const json = make(jsonLimit)
  const upload = make(uploadLimit)
  return (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    const multipart = c.req.header('content-type')?.startsWith('multipart/form-data')
    return (multipart ? upload : json)(c, next)
  }
}
