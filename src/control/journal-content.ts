import { z } from '@hono/zod-openapi'
import { validationError } from '../errors.js'
import type { ContentFilter } from '../http/journal-search.js'

/**
 * The journal's content filters in a query string: each a JSON value, e.g.
 * `?headers={"x-trace":"abc"}&body={"email":"ada@example.test"}`.
 */
const jsonParam = (description: string) => z.string().max(8192).optional().openapi({ description })

export const ContentFilters = z.object({
  query: jsonParam(
    'A JSON object of query parameters the request had, e.g. {"limit":"5"} (values as strings).',
  ),
  headers: jsonParam(
    'A JSON object of headers the request had (names in any case, values exact, as the journal shows them: secrets read "[redacted]").',
  ),
  body: jsonParam(
    'A JSON subset of the request body, e.g. {"email":"ada@example.test"}: every field given must be there with that value. Redacted fields (passwords, SSNs, tokens, codes) cannot be matched by value.',
  ),
})

const parse = (field: string, text: string | undefined, object: boolean): unknown => {
  if (text === undefined) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw validationError(field, 'must be JSON (URL-encoded)', 'query')
  }
  if (!object) return value
  const isRecord = value !== null && typeof value === 'object' && !Array.isArray(value)
  if (!isRecord || Object.values(value as object).some((v) => typeof v !== 'string'))
    throw validationError(field, 'must be a JSON object of strings, e.g. {"name":"value"}', 'query')
  return value
}

/** The content filters a query gives, parsed; undefined when it gives none. */
export function contentOf(q: z.infer<typeof ContentFilters>): ContentFilter | undefined {
  if (q.query === undefined && q.headers === undefined && q.body === undefined) return undefined
  return {
    query: parse('query', q.query, true) as Record<string, string> | undefined,
    headers: parse('headers', q.headers, true) as Record<string, string> | undefined,
    body: parse('body', q.body, false),
  }
}
