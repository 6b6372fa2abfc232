import type { Deps } from '../deps.js'
import { ApiError, validationError } from '../errors.js'
import type { UserRow } from '../store/records.js'
import { assertAdult } from './age.js'
import { hashSecret, PASSWORD_COST } from './secret-hash.js'

/**
 * The user record of spec section 2: no `ssn` (nor its last four digits), no password hash.
 * A stored picture path is made absolute against the sandbox's current public URL.
 */
export function publicUser(deps: Pick<Deps, 'baseUrl'>, u: UserRow) {
  return {
    id: u.id,
    partner_id: u.partner_id,
    email: u.email,
    phone_number: u.phone_number,
    first_name: u.first_name,
    last_name: u.last_name,
    date_of_birth: u.date_of_birth,
    address: u.address,
    secondary_address: u.secondary_address,
    provider_consumer_id: u.provider_consumer_id,
    kyc_status: u.kyc_status,
    metadata: u.metadata,
    is_active: u.is_active,
    profile_picture_url: u.profile_picture_url?.startsWith('/')
      ? `${deps.baseUrl()}${u.profile_picture_url}`
      : u.profile_picture_url,
    created_at: u.created_at,
    updated_at: u.updated_at,
  }
}

export function findUserByEmail(deps: Deps, partnerId: string, email: string): UserRow | undefined {
  for (const user of deps.store.scan('users', 'users_by_email', email.toLowerCase())) {
    if (user.partner_id === partnerId) return user
  }
  return undefined
}

export interface Registration {
  email: string
  phone_number: string
  first_name: string
  last_name: string
  password: string
  ssn: string
  date_of_birth: string
}

export async function registerUser(
  deps: Deps,
  partnerId: string,
  input: Registration,
): Promise<UserRow> {
  assertAdult(deps, partnerId, input.date_of_birth)
  const conflict = () =>
    new ApiError(
      'conflict',
      `A user with email ${input.email} is already registered with this partner.`,
      {
        details: [{ field: 'email', message: 'is already registered', location: 'body' }],
      },
    )
  if (findUserByEmail(deps, partnerId, input.email)) throw conflict()
  const password_hash = await hashSecret(input.password, deps.random, PASSWORD_COST)
  // Checked again after the await: a parallel registration of the same email may have won.
  if (findUserByEmail(deps, partnerId, input.email)) throw conflict()
  const now = deps.clocks.forPartner(partnerId).iso()
  const user: UserRow = {
    id: deps.random.uuid(),
    partner_id: partnerId,
    email: input.email,
    phone_number: input.phone_number,
    first_name: input.first_name,
    last_name: input.last_name,
    date_of_birth: input.date_of_birth,
    address: {},
    secondary_address: {},
    provider_consumer_id: null,
    kyc_status: 'not_started',
    metadata: {},
    is_active: true,
    password_hash,
    ssn_last4: input.ssn.slice(-4),
    profile_picture_url: null,
    created_at: now,
    updated_at: now,
  }
  deps.store.batch((w) => {
    w.put('users', user)
    deps.events.record(w, partnerId, 'user.created', publicUser(deps, user))
  })
  return user
}

export type ProfilePatch = Partial<
  Pick<UserRow, 'first_name' | 'last_name' | 'date_of_birth' | 'address' | 'secondary_address'>
> & { metadata?: Record<string, unknown> }

/** Applies a profile patch. Metadata merges key by key; a key set to null is removed. */
export function updateProfile(deps: Deps, user: UserRow, patch: ProfilePatch): UserRow {
  if (patch.date_of_birth) assertAdult(deps, user.partner_id, patch.date_of_birth)
  if (Object.keys(patch).length === 0) return user
  const { metadata, ...fields } = patch
  let nextMetadata = user.metadata
  if (metadata) {
    nextMetadata = { ...user.metadata }
    for (const [key, value] of Object.entries(metadata)) {
      if (value === null) delete nextMetadata[key]
      else nextMetadata[key] = value
    }
    if (Object.keys(nextMetadata).length > 50)
      throw validationError('metadata', 'may hold at most 50 keys')
  }
  const next: UserRow = {
    ...user,
    ...fields,
    metadata: nextMetadata,
    updated_at: deps.clocks.forPartner(user.partner_id).iso(),
  }
  deps.store.batch((w) => {
    w.put('users', next)
    deps.events.record(w, user.partner_id, 'user.updated', publicUser(deps, next))
  })
  return next
}
