import type { Context } from 'hono'

/**
 * Headers Node keeps only the first of when a request repeats them, where a WHATWG `Headers`
 * joins every value (the same list as @hono/node-server's). For these the joined value is
 * read through hono; every other header reads the same from Node's own parsed object.
 */
const firstOnlyInNode = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
  'cookie',
  'set-cookie',
  '__proto__',
])

interface NodeRequest {
  httpVersionMajor: number
  headers: Record<string, string | string[] | undefined>
}

/**
 * A request header by its lower-case name, with the value `c.req.header(name)` answers.
 * Behind @hono/node-server (`c.env.incoming`), Node has already parsed every header into an
 * object (trimmed, repeats joined with ", ", control characters refused by its parser), so
 * reading it there skips hono's per-call name check, lookup and normalisation: about half a
 * microsecond per header, and every API request reads half a dozen. Elsewhere (app.request
 * in tests) it is `c.req.header(name)`.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: NodeRequest } | undefined)?.incoming
  // HTTP/2 keeps its headers otherwise: hono's reading for it.
  if (incoming?.httpVersionMajor !== 1) return c.req.header(name)
  const value = incoming.headers[name]
  // Absent is absent however Node treats repeats.
  if (value === undefined) return undefined
  if (typeof value === 'string' && !firstOnlyInNode.has(name)) return value
  return c.req.header(name)
}
