import type { Transport } from './http.js'
import type { JournalFilter, SandboxVerifyResult, VerifyFilter } from './types.js'

/** The journal's filters as a query string: query, headers and body go as JSON. */
export function journalQuery(filter: JournalFilter & { limit?: number }) {
  const { query, headers, body, ...plain } = filter
  return {
    ...plain,
    query: query === undefined ? undefined : JSON.stringify(query),
    headers: headers === undefined ? undefined : JSON.stringify(headers),
    body: body === undefined ? undefined : JSON.stringify(body),
  }
}

/**
 * POST /_sandbox/requests/verify: `matched` is `count === times` with `times`, else
 * `count > 0`; when none matched, `near_misses` says what differed in the closest requests.
 */
export const verifyRequests = (
  transport: Transport,
  filter: VerifyFilter,
  options: { times?: number } = {},
) =>
  transport.request<SandboxVerifyResult>('POST', '/_sandbox/requests/verify', {
    body: { ...filter, ...(options.times === undefined ? {} : { times: options.times }) },
  })
