import type { Random } from '../random.js'
import type { StateReader } from '../state/seam.js'
import type { CollectionsData } from '../store/records.js'
import { newWebhookSecret } from '../webhooks/signer.js'

/**
 * Key material in a snapshot export. The session signing key, webhook signing secrets and the
 * code hashes keyed by that key are replaced by REDACTED unless the caller asks for them
 * (`?include_secrets=true`): with the key, a 6-digit code's HMAC falls to a million guesses.
 * Password and API-secret hashes stay (scrypt, and a restore needs them to keep logins).
 * Every export goes through `exportState` (export.ts), whole-sandbox or one partner's.
 */

export const REDACTED = '[redacted]'

type Rows = Record<string, Record<string, unknown>>

const mapRows = <T extends Record<string, unknown>>(rows: Record<string, T>, fn: (row: T) => T) =>
  Object.fromEntries(Object.entries(rows).map(([id, row]) => [id, fn(row)]))

export function redactSecrets(collections: CollectionsData): CollectionsData {
  return {
    ...collections,
    meta: mapRows(collections.meta, (m) => ({ ...m, session_signing_key: REDACTED })),
    webhooks: mapRows(collections.webhooks, (w) => ({ ...w, secret: REDACTED })),
    verification_codes: mapRows(collections.verification_codes, (c) => ({
      ...c,
      code_hash: REDACTED,
    })),
  }
}

/**
 * Before a restore: each redacted value takes the current one of the same row, so restoring
 * a redacted export keeps this sandbox's signing key and endpoint secrets. A webhook new to
 * this sandbox gets a fresh secret (rotate it to learn it), and a code new to it can never
 * match (it was a secret of the sandbox that exported it).
 */
export async function unredactSecrets(
  random: Random,
  current: StateReader,
  collections: Record<string, Rows>,
): Promise<void> {
  const meta = collections.meta?.sandbox
  if (meta?.session_signing_key === REDACTED) {
    const row = await current.get('meta', 'sandbox')
    if (row) meta.session_signing_key = row.session_signing_key
    else delete collections.meta?.sandbox
  }
  for (const [id, row] of Object.entries(collections.webhooks ?? {})) {
    if (row.secret !== REDACTED) continue
    row.secret = (await current.get('webhooks', id))?.secret ?? newWebhookSecret(random.bytes(32))
  }
  for (const [id, row] of Object.entries(collections.verification_codes ?? {})) {
    if (row.code_hash !== REDACTED) continue
    row.code_hash =
      (await current.get('verification_codes', id))?.code_hash ?? `unusable-${random.token(24)}`
  }
}
