import type { z } from 'zod'
import { ApiError, type ErrorDetail } from '../errors.js'
import { humanMessage, valueAt } from './issue-messages.js'

const locations: Record<string, string> = {
  json: 'body',
  form: 'body',
  query: 'query',
  param: 'path',
  header: 'header',
}

/** Fields a client may try to set but never can, with what to do instead. */
const readOnlyHints: Record<string, string> = {
  api_key: 'cannot be edited; rotate credentials with POST /partner/me/rotate-api-key',
  api_secret: 'cannot be edited; rotate credentials with POST /partner/me/rotate-api-key',
  api_secret_hash: 'is never readable or writable',
  webhook_secret: 'is never readable or writable',
  id: 'cannot be changed',
  partner_id: 'cannot be changed',
  email: 'cannot be changed',
  phone_number: 'cannot be changed',
}

/** Each failed check as `{ field, message, location }`, worded for the person reading it. */
export function issuesToDetails(
  error: z.ZodError,
  target: string,
  input?: unknown,
  /** The field named by a check on the whole value; the location unless told. */
  root?: string,
): ErrorDetail[] {
  const location = locations[target] ?? target
  const details: ErrorDetail[] = []
  for (const issue of error.issues) {
    const base = issue.path.map(String)
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = [...base, key].join('.')
        details.push({
          field,
          message: readOnlyHints[key] ?? 'is not a field this endpoint accepts',
          location,
        })
      }
      continue
    }
    const { value, present } = valueAt(input, issue.path)
    details.push({
      field: base.join('.') || root || location,
      message: humanMessage(issue, value, input === undefined ? true : present),
      location,
    })
  }
  return details
}

/** The hook every OpenAPI route uses: a failed zod check becomes our 400 envelope. */
export function validationHook(result: {
  success: boolean
  error?: z.ZodError
  data?: unknown
  target: string
}): void {
  if (result.success || !result.error) return
  const details = issuesToDetails(result.error, result.target, result.data)
  const summary = details.map((d) => `${d.field} ${d.message}`).join('; ')
  throw new ApiError(
    'validation_error',
    `Invalid request ${locations[result.target] ?? result.target}: ${summary}`,
    {
      details,
    },
  )
}
