import { createHmac, createSecretKey, type KeyObject } from 'node:crypto'

/**
 * Both signature schemes of DESIGN.md, on the exact bytes sent:
 * - `X-Service-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, which
 *   `stripe.webhooks.constructEvent` verifies (the whole `whsec_…` string is the key);
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64
 *   HMAC-SHA256(base64-decoded secret, "<id>.<ts>.<body>")>`.
 * Timestamps are the machine's real time: receivers check them against their own clocks.
 */

export const DEFAULT_SIGNATURE_HEADER = 'X-Service-Signature'

export function newWebhookSecret(bytes: Buffer): string {
  return `whsec_${bytes.toString('base64')}`
}

/** HMAC keys of both schemes for a secret, made once (a fan-out signs with few secrets). */
const keyCache = new Map<string, { service: KeyObject; standard: KeyObject }>()
function keys(secret: string) {
  let entry = keyCache.get(secret)
  if (!entry) {
    entry = {
      service: createSecretKey(Buffer.from(secret)),
      standard: createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64')),
    }
    if (keyCache.size >= 1000) keyCache.clear()
    keyCache.set(secret, entry)
  }
  return entry
}

export function serviceSignature(secret: string, timestamp: number, body: string): string {
  const v1 = createHmac('sha256', keys(secret).service).update(`${timestamp}.${body}`).digest('hex')
  return `t=${timestamp},v1=${v1}`
}

export function standardSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): string {
  const mac = createHmac('sha256', keys(secret).standard).update(`${id}.${timestamp}.${body}`)
  return `v1,${mac.digest('base64')}`
}

export function signatureHeaders(
  secret: string,
  eventId: string,
  body: string,
  timestamp: number,
  headerName = DEFAULT_SIGNATURE_HEADER,
): Record<string, string> {
  return {
    [headerName]: serviceSignature(secret, timestamp, body),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(secret, eventId, timestamp, body),
  }
}

export interface SignatureCheck {
  service: boolean
  standard: boolean
}

/** Checks both schemes against a secret (the built-in sink uses this). */
export function verifySignatures(
  secret: string,
  headers: Record<string, string | undefined>,
  body: string,
  headerName = DEFAULT_SIGNATURE_HEADER,
): SignatureCheck {
  const service = headers[headerName.toLowerCase()]
  const t = /(?:^|,)t=(\d+)/.exec(service ?? '')?.[1]
  const v1s = [...(service ?? '').matchAll(/(?:^|,)v1=([0-9a-f]+)/g)].map((m) => m[1])
  const serviceOk =
    t !== undefined && v1s.includes(serviceSignature(secret, Number(t), body).split('v1=')[1])
  const id = headers['webhook-id']
  const ts = headers['webhook-timestamp']
  const given = (headers['webhook-signature'] ?? '').split(' ')
  const standardOk =
    id !== undefined &&
    ts !== undefined &&
    given.includes(standardSignature(secret, id, Number(ts), body))
  return { service: serviceOk, standard: standardOk }
}
