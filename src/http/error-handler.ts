import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { ApiError, codeForStatus, errorCodes } from '../errors.js'
import type { Logger } from '../logger.js'
import { DatabaseBusy, DatabaseUnavailable } from '../state/database-error.js'
import { StorageError } from '../store/storage-error.js'
import type { AppEnv } from './app-env.js'
import { bodyProblem } from './json-body.js'
import { bodyTimedOut } from './slow-clients.js'

/** Seconds a client waits before it retries a request refused during a database outage. */
const RETRY_AFTER_S = 2

/** Renders every failure once, in the envelope of DESIGN.md. No stack ever reaches a client. */
export function renderError(error: unknown, c: Context<AppEnv>, logger: Logger): Response {
  // Unset only when the first layer itself failed before giving the request its id.
  const requestId = c.get('requestId') ?? ''
  let apiError: ApiError
  const problem = bodyProblem(c)
  if (bodyTimedOut(c)) {
    // Whatever the failed body read turned into (a JSON error, a stream error), the cause is
    // the client's slowness; the connection closes after this answer.
    apiError = new ApiError(
      'request_timeout',
      'The request body did not arrive in time; the connection is closed. Send the whole body at once.',
      { headers: { Connection: 'close' } },
    )
  } else if (problem) {
    // The validator reports every failed body read as "malformed JSON"; this says why.
    apiError = problem
  } else if (error instanceof ApiError) {
    apiError = error
  } else if (error instanceof DatabaseUnavailable) {
    // An outage, not a fault of this request: the client retries, as Retry-After says.
    logger.warn(`request ${requestId} answered 503: ${error.message}`)
    const state = error instanceof DatabaseBusy ? 'overloaded or out of reach' : 'out of reach'
    apiError = new ApiError(
      'service_unavailable',
      `The sandbox's database is ${state} (${error.message}). Retry shortly.`,
      { headers: { 'Retry-After': String(RETRY_AFTER_S) } },
    )
  } else if (error instanceof StorageError) {
    // Refused and rolled back (store.ts): the client may send it again once there is space.
    apiError = new ApiError('insufficient_storage', error.message)
  } else if (error instanceof HTTPException) {
    const code = codeForStatus(error.status)
    const message = httpExceptionMessage(error, code)
    apiError = new ApiError(code, message)
  } else {
    logger.error(`request ${requestId} failed: ${(error as Error)?.stack ?? String(error)}`)
    apiError = new ApiError(
      'internal_error',
      `An unexpected error occurred. Quote request id ${requestId} when reporting it.`,
    )
  }
  const body = {
    success: false as const,
    error: {
      code: apiError.code,
      message: apiError.message,
      ...(apiError.details ? { details: apiError.details } : {}),
    },
    requestId,
  }
  for (const [name, value] of Object.entries(apiError.headers ?? {})) c.header(name, value)
  return c.json(body, apiError.status as ContentfulStatusCode)
}

function httpExceptionMessage(error: HTTPException, code: keyof typeof errorCodes): string {
  if (error.status === 400 && /JSON/i.test(error.message)) {
    return 'The request body is not valid JSON. Send a JSON document with Content-Type: application/json.'
  }
  if (error.status === 415) {
    return 'Unsupported Content-Type. Send the body as application/json (or multipart/form-data where the endpoint says so).'
  }
  return error.message || errorCodes[code].message
}
