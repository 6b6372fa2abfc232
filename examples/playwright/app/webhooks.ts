import { createHmac, timingSafeEqual } from 'node:crypto'

/** How old a signature may be (real time), as a production receiver checks. */
const TOLERANCE_S = 300

/**
 * Verifies `X-Service-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`
 * on the exact bytes received, in constant time, with a timestamp tolerance.
 */
export function verifySignature(secret: string, header: string | undefined, rawBody: string) {
  if (!header) return false
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=', 2)))
  const t = Number(parts.t)
  if (!Number.isFinite(t) || Math.abs(Date.now() / 1000 - t) > TOLERANCE_S) return false
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest()
  const given = Buffer.from(String(parts.v1 ?? ''), 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export interface ReceivedWebhook {
  id: string
  type: string
  verified: boolean
  object: Record<string, unknown>
}
