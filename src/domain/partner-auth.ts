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
 * or revoked. The partner row is read by its key on every call, so a suspension, revocation
 * or rotation made through any process counts from the next request; only scrypt's verdict
 * on a secret is remembered, checked against that row's stored hash (credential-cache.ts).
 */
export async function authenticatePartner(
  s: { state: Pick<State, 'tenant' | 'lookupOne'>; credentials: CredentialCache },
  key: string | undefined,
  secret: string | undefined,
): Promise<PartnerRow> {
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
  const partner = await s.state.lookupOne('partners_by_api_key', key)
  if (!partner) return refuse()
  const cached = s.credentials.verifyCached(key, secret, partner.api_secret_hash)
  if (cached !== undefined) return admit(partner, key, cached)
  const ok = await s.credentials.verify(key, secret, partner.api_secret_hash)
  // Read again after scrypt: a rotation that landed meanwhile must win. By the partner the
  // key named, as every statement of a partner's request names its partner.
  return admit(await s.state.tenant(partner.id).get('partners', partner.id), key, ok)
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
