import type { Context } from 'hono'
import type { AppEnv } from './app-env.js'
import { requestHeader } from './request-headers.js'
import { SerializedJson } from './serialized-json.js'

type HeadersInit = NonNullable<ConstructorParameters<typeof Headers>[0]>

const HEADER = 'X-Request-Id'
const validId = /^[\w\-.:]{1,255}$/

/**
 * Gives every request an id (the client's X-Request-Id when it is a sane one) and puts it
 * on every response. The header is passed with the response instead of through
 * `c.header()`, which would allocate a WHATWG Headers object per request and push
 * @hono/node-server off its fast path; on the hot path that costs about a fifth of the
 * throughput. For the same reason a plain `c.json(data, status)` (nearly every answer)
 * is built here with a plain header object: hono itself switches to a Headers object as
 * soon as a response has a second header.
 */
export function assignRequestId(c: Context<AppEnv>, generate: () => string): void {
  const given = requestHeader(c, 'x-request-id')
  const id = given && validId.test(given) ? given : generate()
  c.set('requestId', id)
  let headersTouched = false
  const header = c.header
  c.header = ((...args: Parameters<typeof header>) => {
    headersTouched = true
    return header(...args)
  }) as typeof header
  // A redirect builds its response without the helpers below.
  const redirect = c.redirect
  c.redirect = ((location: string, status?: number) => {
    header(HEADER, id)
    return redirect(location, status as 302)
  }) as typeof redirect
  withHeader(c, 'json', id, () => headersTouched)
  withHeader(c, 'body', id)
  withHeader(c, 'html', id)
  withHeader(c, 'text', id)
}

type Responder = 'json' | 'body' | 'html' | 'text'

function withHeader(
  c: Context,
  method: Responder,
  id: string,
  headersTouched?: () => boolean,
): void {
  const original = c[method] as (data: unknown, arg?: unknown, headers?: unknown) => Response
  ;(c as unknown as Record<Responder, unknown>)[method] = (
    data: unknown,
    arg?: unknown,
    headers?: unknown,
  ) => {
    if (
      headersTouched &&
      !headersTouched() &&
      headers === undefined &&
      (arg === undefined || typeof arg === 'number')
    ) {
      const extra = c.get('extraHeaders' as never) as Record<string, string> | undefined
      const response = new Response(
        data instanceof SerializedJson ? data.text : JSON.stringify(data),
        {
          status: (arg as number | undefined) ?? 200,
          headers: extra
            ? { 'content-type': 'application/json', [HEADER]: id, ...extra }
            : { 'content-type': 'application/json', [HEADER]: id },
        },
      )
      if (extra) c.set('extraHeadersSent' as never, response as never)
      return response
    }
    if (arg !== undefined && typeof arg === 'object' && arg !== null) {
      // c.json(data, init): add the header to init.headers.
      const init = arg as ResponseInit
      return original(data, { ...init, headers: mergeHeaders(init.headers, id) })
    }
    return original(data, arg, mergeHeaders(headers as HeadersInit | undefined, id))
  }
}

function mergeHeaders(headers: HeadersInit | undefined, id: string): HeadersInit {
  if (!headers) return { [HEADER]: id }
  if (headers instanceof Headers) {
    headers.set(HEADER, id)
    return headers
  }
  if (Array.isArray(headers)) return [...headers, [HEADER, id]]
  return { ...headers, [HEADER]: id }
}
