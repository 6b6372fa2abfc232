import { isUtf8 } from 'node:buffer'
import type { Context } from 'hono'
import { ApiError, validationError } from '../errors.js'
import { duplicateKeyPath, loneSurrogatePath } from './json-checks.js'
import { MAX_JSON_DEPTH, tooDeepField } from './json-depth.js'

/**
 * How a JSON body is read, everywhere (docs/hardening.md, "Parsing decisions"):
 *
 * - a `charset` other than UTF-8 is a 415 that names it (JSON is UTF-8, RFC 8259);
 * - bytes that are not valid UTF-8 are a 400 (never silently replaced by U+FFFD);
 * - a UTF-8 byte order mark is skipped, as WHATWG `Response.json()` does;
 * - a key given twice in one object is a 400 naming it (never "the last one wins", which
 *   lets two parsers disagree about what was sent);
 * - a string with an unpaired surrogate escape (`"\ud800"`) is a 400 naming the field;
 * - objects and arrays nested more than 100 levels deep are a 400 naming the top-level field.
 *
 * It replaces `c.req.json()` for the request (hono's validator calls it), so it costs
 * nothing until a handler reads the body. The validator turns any failure into a generic
 * "malformed JSON" 400; the precise error is kept here and rendered instead (`bodyProblem`).
 */

const PROBLEM = Symbol.for('partner-sandbox.body-problem')

type WithProblem = { [PROBLEM]?: ApiError }

export function readJsonStrictly(c: Context): void {
  const req = c.req
  req.json = async <T>() => {
    const fail = (error: ApiError): never => {
      ;(req as unknown as WithProblem)[PROBLEM] = error
      throw error
    }
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(req.header('content-type') ?? '')?.[1]
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      fail(
        new ApiError(
          'unsupported_media_type',
          `Content-Type charset=${charset} is not supported: send JSON encoded as UTF-8 (charset=utf-8, or no charset).`,
        ),
      )
    }
    const bytes = new Uint8Array(await req.arrayBuffer())
    if (!isUtf8(bytes)) {
      fail(
        validationError(
          'body',
          'is not valid UTF-8: send JSON encoded as UTF-8 (it was not decoded with replacement characters)',
        ),
      )
    }
    let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    const value = JSON.parse(text) // a syntax error is the validator's "malformed JSON" 400
    // First: the checks below and the validator walk the value recursively.
    const deep = tooDeepField(text, value)
    if (deep !== null) {
      fail(
        validationError(
          deep,
          `is nested more than ${MAX_JSON_DEPTH} levels deep; send at most ${MAX_JSON_DEPTH} levels of objects and arrays`,
        ),
      )
    }
    const duplicate = duplicateKeyPath(text, value)
    if (duplicate !== null) {
      fail(validationError(duplicate, 'is given more than once in its object; send each key once'))
    }
    const lone = loneSurrogatePath(text, value)
    if (lone !== null) {
      fail(
        validationError(
          lone,
          'contains an unpaired UTF-16 surrogate escape (\\uD800-\\uDFFF alone); send valid Unicode text',
        ),
      )
    }
    return value as T
  }
}

/** The precise reason this request's JSON body was refused, if it was. */
export function bodyProblem(c: Context): ApiError | undefined {
  return (c.req as unknown as WithProblem)[PROBLEM]
}
