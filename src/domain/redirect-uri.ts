import { originAllowed, partnerOrigins } from './allowed-origins.js'

/**
 * Where the hosted flow may send the user when it ends: an http(s) URL on one of the
 * partner's allowed origins, or an app link (myapp://…). Never a script-running scheme.
 * Answers why not, or null when the URI is acceptable.
 */
const unsafeSchemes = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:'])

export function redirectUriProblem(uri: string, allowedOrigins: string[]): string | null {
  if (!URL.canParse(uri)) return 'must be an absolute URL or app link'
  const url = new URL(uri)
  if (unsafeSchemes.has(url.protocol)) return `must not use the ${url.protocol} scheme`
  const web = url.protocol === 'http:' || url.protocol === 'https:'
  const origins = partnerOrigins(allowedOrigins)
  if (web && !originAllowed(url.origin, origins)) {
    return `must be on one of the partner's allowed_origins (${origins.join(', ') || 'none set'})`
  }
  return null
}
