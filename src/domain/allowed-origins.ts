/**
 * A partner's allowed_origins entries: an http(s) URL (its origin counts), or an origin with
 * any port, `http://localhost:*`, the CSP source form, so a dev server on whatever port
 * (Vite 5173, Angular 4200, Next 3000) may frame the hosted pages and receive their messages.
 */
export const ANY_PORT_ORIGIN = /^(https?):\/\/([a-z0-9.-]+|\[[0-9a-f:]+\]):\*$/i

/** An entry as a CSP source and comparison key: the URL's origin, or the any-port form. */
export function normalizedOrigin(entry: string): string | null {
  const anyPort = ANY_PORT_ORIGIN.exec(entry)
  if (anyPort) return `${anyPort[1]?.toLowerCase()}://${anyPort[2]?.toLowerCase()}:*`
  return URL.canParse(entry) ? new URL(entry).origin : null
}

/** The entries as origins or any-port patterns, skipping any unparsable. */
export function partnerOrigins(allowed: readonly string[] | undefined): string[] {
  return (allowed ?? []).flatMap((o) => normalizedOrigin(o) ?? [])
}

/** Whether `origin` (scheme://host[:port]) is one of the entries, exactly or by any-port. */
export function originAllowed(origin: string, entries: readonly string[]): boolean {
  if (!URL.canParse(origin)) return false
  const url = new URL(origin)
  return entries.some((entry) =>
    entry.endsWith(':*') ? entry === `${url.protocol}//${url.hostname}:*` : entry === url.origin,
  )
}

/** The exact origins among the entries (postMessage needs an exact target origin). */
export const exactOrigins = (entries: readonly string[]) => entries.filter((e) => !e.endsWith(':*'))

/** The any-port entries (`http://localhost:*`), for a page that resolves its opener's port. */
export const originPatterns = (entries: readonly string[]) =>
  entries.filter((e) => e.endsWith(':*'))
