import { MAX_JSON_DEPTH, TOO_DEEP } from './http/json-depth.js'

/**
 * What `debug` logs of a body: the JSON with every secret replaced. Keys that name a secret are
 * masked whatever their value; values that look like a credential are masked under any key
 * (a secret pasted into `description` must not reach a CI log either).
 */
const secretKey =
  /secret|password|token|authorization|ssn|^otp|reset_code|signing_key|card_number|cvv/i
const secretValue = /^(sk_(test|live)_|whsec_|eyJ[\w-]+\.[\w-]+\.)/
const tokenParam = /([?&][\w-]*token=)[^&#]+/gi
const MASK = '[redacted]'
/** Bodies bigger than this are cut: a debug line is for reading, not for archiving uploads. */
const MAX_CHARS = 4096

/**
 * `masked`, when given, collects every value this call hid, so that the caller can hide the
 * same value where it recurs inside free text (an inbox message's text carries its code).
 */
export function redact(value: unknown, key = '', depth = 0, masked?: Set<string>): unknown {
  // A rejected body may nest to any depth: cut it where the API's own limit is.
  if (depth > MAX_JSON_DEPTH && value !== null && typeof value === 'object') return TOO_DEEP
  if (typeof value === 'string') {
    // An OTP under a generic name (`code` in verify-otp) is still a credential.
    if (
      secretKey.test(key) ||
      secretValue.test(value) ||
      (key === 'code' && /^\d{6}$/.test(value))
    ) {
      masked?.add(value)
      return MASK
    }
    // Hosted-page links carry their token in the query.
    return value.includes('token=') ? value.replace(tokenParam, `$1${MASK}`) : value
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, key, depth + 1, masked))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      if (secretKey.test(k) && v !== null && typeof v !== 'object') {
        masked?.add(String(v))
        out[k] = MASK
      } else out[k] = redact(v, k, depth + 1, masked)
    }
    return out
  }
  return value
}

/** Values this short (a `true`, a small number) would mask unrelated text where they recur. */
const MIN_RECURRING = 6

/** A body as text for a debug line: parsed and redacted when JSON, else only its size. */
export function redactBody(text: string, contentType: string | null | undefined): unknown {
  if (!text) return undefined
  if (!contentType?.includes('json')) return `<${text.length} bytes of ${contentType ?? 'data'}>`
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return `<${text.length} bytes of invalid JSON>`
  }
  const masked = new Set<string>()
  let json = JSON.stringify(redact(parsed, '', 0, masked))
  for (const secret of masked) {
    if (secret.length >= MIN_RECURRING)
      json = json.replaceAll(JSON.stringify(secret).slice(1, -1), MASK)
  }
  return json.length > MAX_CHARS ? `${json.slice(0, MAX_CHARS)}… (${json.length} chars)` : json
}
