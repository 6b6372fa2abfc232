/** The one error type of the API. Throw it anywhere; `app.onError` renders it once. */

export const errorCodes = {
  validation_error: { status: 400, message: 'The request is not valid.' },
  unauthorized: { status: 401, message: 'Authentication failed.' },
  forbidden: { status: 403, message: 'This action is not allowed.' },
  not_found: { status: 404, message: 'The resource does not exist.' },
  method_not_allowed: { status: 405, message: 'This path does not take that method.' },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'The request content type is not supported.' },
  rate_limited: { status: 429, message: 'Too many requests.' },
  // The 5xx rows say when the sandbox sends them: the OpenAPI document declares every 5xx row
  // on every operation, with this sentence (serverErrors below), so a new one is this one edit.
  internal_error: {
    status: 500,
    message: 'An unexpected error occurred.',
    when: 'An unexpected failure (quote `requestId` when reporting it), or one injected by a fault rule or `Prefer: code=500`.',
  },
  bad_gateway: {
    status: 502,
    message: 'An upstream service failed.',
    when: 'Only injected: a fault rule or `Prefer: code=502` (partner API routes).',
  },
  service_unavailable: {
    status: 503,
    message: 'The service is unavailable; retry later.',
    when: "The sandbox's database (--database) is out of reach, or so busy that every connection of this replica's pool stayed taken for 3 s, with Retry-After; the partner's scenario is not loaded; or injected by a fault rule or `Prefer: code=503` (then with Retry-After).",
  },
  gateway_timeout: {
    status: 504,
    message: 'An upstream service timed out.',
    when: 'Only injected: a fault rule or `Prefer: code=504` (partner API routes).',
  },
  insufficient_storage: {
    status: 507,
    message: 'The write could not be saved: the storage is full or failing. Nothing was changed.',
    when: "The data file's disk (--data) is full or failing: the write was refused and rolled back; it succeeds again once there is space.",
  },
} as const

export type ErrorCode = keyof typeof errorCodes
export type ErrorStatus = (typeof errorCodes)[ErrorCode]['status']

/** The server errors of the table (status 500 and up), each with its code. */
export const serverErrors = Object.entries(errorCodes).flatMap(([code, entry]) =>
  entry.status >= 500 ? [{ code: code as ErrorCode, ...(entry as ServerErrorEntry) }] : [],
)
type ServerErrorEntry = { status: number; message: string; when?: string }

export interface ErrorDetail {
  /** Dotted path of the offending value, e.g. `allowed_origins.0`. */
  field: string
  message: string
  /** Where the value was: body, query, path, header. */
  location?: string
}

export class ApiError extends Error {
  readonly code: ErrorCode
  readonly status: ErrorStatus
  readonly details?: ErrorDetail[]
  readonly headers?: Record<string, string>

  constructor(
    code: ErrorCode,
    message?: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message ?? errorCodes[code].message)
    this.name = 'ApiError'
    this.code = code
    this.status = errorCodes[code].status
    this.details = options.details
    this.headers = options.headers
  }
}

/** Maps an HTTP status raised by a library (hono's HTTPException) to our code table. */
export function codeForStatus(status: number): ErrorCode {
  for (const [code, entry] of Object.entries(errorCodes)) {
    if (entry.status === status) return code as ErrorCode
  }
  return status >= 500 ? 'internal_error' : 'validation_error'
}

export const validationError = (field: string, message: string, location = 'body') =>
  new ApiError('validation_error', `${field}: ${message}`, {
    details: [{ field, message, location }],
  })
