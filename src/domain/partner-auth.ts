import { ApiError } from '../errors.js'
import type { State } from '../state/seam.js'
import type { PartnerRow } from '../store/records.js'
import type { CredentialCache } from './credential-cache.js'

const liveMessage =
  'Live-mode credentials were sent. The sandbox accepts only test-mode credentials: an X-Partner-Key ' +
  'starting with pk_test_ and an X-Partner-Secret starting with sk_test_.'

/**
 * Checks organization credentials. 401 when a header is missing, live-mode, or wrong (the
 * same message for an unknown key and a wrong secret); 403 when the account is suspended
 * or revoked, which is read from the state on every call (or from a row read at the same
 * version of its key: no write to that partner's row since). Answers at once (no promise)
 * when the pair was verified before and the key's row is unchanged since it was last read,
 * whatever else was written: this runs on every API request.
 */
export function authenticatePartner(
  s: { state: Pick<State, 'keyVersion' | 'tenant' | 'lookupOne'>; credentials: CredentialCache },
  key: string | undefined,
  secret: string | undefined,
): PartnerRow | Promise<PartnerRow> {
  if (!key || !secret) {
    const missing = [!key && 'X-Partner-Key', !secret && 'X-Partner-Secret'].filter(Boolean)
    throw new ApiError(
      'unauthorized',
      `Missing ${missing.join(' and ')} header${missing.length > 1 ? 's' : ''}.`,
    )
  }
  if (key.startsWith('pk_live_') || secret.startsWith('sk_live_'))
    throw new ApiError('unauthorized', liveMessage)
  if (!key.startsWith('pk_test_') || !secret.startsWith('sk_test_')) {
    throw new ApiError(
      'unauthorized',
      'Malformed credentials: X-Partner-Key must start with pk_test_ and X-Partner-Secret with sk_test_.',
    )
  }
  // Any write to the row under this key (a suspension, a rotation, either key's side of it)
  // moves its version; writes to other rows leave it.
  const version = s.state.keyVersion('partners_by_api_key', key)
  const known = s.credentials.partnerAt(key, version)
  if (known) return settle(s, known.partner, key, secret)
  return s.state.lookupOne('partners_by_api_key', key).then((partner) => {
    if (s.state.keyVersion('partners_by_api_key', key) === version)
      s.credentials.notePartner(key, version, partner)
    return settle(s, partner, key, secret)
  })
}

function settle(
  s: { state: Pick<State, 'tenant'>; credentials: CredentialCache },
  partner: PartnerRow | undefined,
  key: string,
  secret: string,
): PartnerRow | Promise<PartnerRow> {
  if (!partner) return refuse()
  const cached = s.credentials.verifyCached(partner.id, secret, partner.api_secret_hash)
  if (cached !== undefined) return admit(partner, key, cached)
  return (
    s.credentials
      .verify(partner.id, secret, partner.api_secret_hash)
      // Re-read after the await: a rotation that landed meanwhile must win. By the partner
      // the key named, as every statement of a partner's request names its partner.
      .then(async (ok) =>
        admit(await s.state.tenant(partner.id).get('partners', partner.id), key, ok),
      )
  )
}

function refuse(): never {
  throw new ApiError('unauthorized', 'Invalid partner credentials: the API key or secret is wrong.')
}

function admit(current: PartnerRow | undefined, key: string, ok: boolean): PartnerRow {
  if (!ok || !current || current.api_key !== key) return refuse()
  if (current.status !== 'active') {
    throw new ApiError(
      'forbidden',
      `This partner account is ${current.status}; every request is refused until it is reactivated.`,
    )
  }
  return current
}
