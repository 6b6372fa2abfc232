/**
 * Redaction for what the request journal shows: no secret, password, SSN, session or access
 * token, or one-time code ever leaves it, whatever route it came through.
 */

import { MAX_JSON_DEPTH, TOO_DEEP } from './json-depth.js'

export const REDACTED = '[redacted]'

/** Keys whose value is always hidden (compared lower-cased, without _ and -). */
const SECRET_KEYS = new Set([
  'password',
  'currentpassword',
  'newpassword',
  'ssn',
  'secret',
  'apisecret',
  'webhooksecret',
  'sessiontoken',
  'accesstoken',
  'refreshtoken',
  'resettoken',
  'token',
  'authorization',
  'cookie',
  'setcookie',
  'xpartnersecret',
  'xsandboxadmintoken',
  'proxyauthorization',
])

const normalize = (key: string) => key.toLowerCase().replace(/[_-]/g, '')

/** Any *token, *secret or *password field, whatever its prefix (connect_token, …). */
const isSecretKey = (key: string) => {
  const k = normalize(key)
  return SECRET_KEYS.has(k) || /(token|secret|password)$/.test(k)
}

/** A one-time code: `code` is also the error code's field, so only digits are hidden. */
const isOneTimeCode = (key: string, value: unknown) =>
  key === 'code' && typeof value === 'string' && /^\d{4,10}$/.test(value)

/** Secrets recognisable by their form, wherever they appear in a string. */
const SECRET_PATTERNS: [RegExp, string][] = [
  [/\b(sk_(?:test|live)_)[\w-]+/g, `$1${REDACTED}`],
  [/\bwhsec_[A-Za-z0-9+/=]+/g, `whsec_${REDACTED}`],
  // Hosted-page tokens (onboarding access, bank connect), e.g. inside a hosted page's HTML.
  [/\b(obt_|bctok_)[\w-]+/g, `$1${REDACTED}`],
  // JWTs (session and embed access tokens).
  [/\beyJ[\w-]+\.[\w-]+\.[\w-]+/g, REDACTED],
  // Query and form parameters carrying a secret (links with ?token=, urlencoded forms).
  [
    /([?&](?:token|access_token|reset_token|code|ssn|password|secret)=)[^&#\s"]*/gi,
    `$1${REDACTED}`,
  ],
]

/** What every secret pattern above starts with: a string without any is shown as it is. */
const MAYBE_SECRET = /sk_|whsec_|obt_|bctok_|eyJ|[?&]/

export function redactString(value: string): string {
  if (!MAYBE_SECRET.test(value)) return value
  let out = value
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement)
  return out
}

/**
 * A deep copy of `value` with secrets hidden; the stored original is never changed. Values
 * nested deeper than MAX_JSON_DEPTH are shown as TOO_DEEP: a rejected body may nest to any
 * depth, and the copy must stay one that JSON.stringify can write.
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (depth > MAX_JSON_DEPTH && value !== null && typeof value === 'object') return TOO_DEEP
  if (typeof value === 'string') {
    const trimmed = value.trim()
    if (depth === 0 && (trimmed.startsWith('{') || trimmed.startsWith('['))) {
      try {
        return JSON.stringify(redactValue(JSON.parse(trimmed), 1))
      } catch {}
    }
    return redactString(value)
  }
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, v] of Object.entries(value)) {
      out[key] = isSecretKey(key) || isOneTimeCode(key, v) ? REDACTED : redactValue(v, depth + 1)
    }
    return out
  }
  return value
}

/** Headers as a plain object, secrets hidden; X-Sandbox-Scenario can carry a chosen code. */
export function redactHeaders(
  headers: Headers | Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {}
  const put = (name: string, value: string) => {
    const key = name.toLowerCase()
    out[key] = isSecretKey(key)
      ? REDACTED
      : key === 'x-sandbox-scenario'
        ? (redactValue(value) as string)
        : redactString(value)
  }
  if (headers instanceof Headers) {
    for (const [name, value] of headers) put(name, value)
  } else
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined) put(name, Array.isArray(value) ? value.join(', ') : value)
    }
  return out
}
