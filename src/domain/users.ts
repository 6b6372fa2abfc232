import { ApiError, validationError } from '../errors.js'
import type { Random } from '../random.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { UserRow } from '../store/records.js'
import { assertAdult } from './age.js'
import type { EventBus } from './events.js'
import type { PartnerClocks } from './partner-clocks.js'

/** What the user functions use of the kernel. */
export interface UsersContext {
  random: Random
  clocks: PartnerClocks
  events: EventBus
  baseUrl(): string
}

/**
 * The user record of spec section 2: no `ssn` (nor its last four digits), no password hash.
 * A stored picture path is made absolute against the sandbox's current public URL.
 */
export function publicUser(links: { baseUrl(): string }, u: UserRow) {
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
      ? `${links.baseUrl()}${u.profile_picture_url}`
      : u.profile_picture_url,
    created_at: u.created_at,
    updated_at: u.updated_at,
  }
}

export async function findUserByEmail(
  reader: StateReader,
  partnerId: string,
  email: string,
): Promise<UserRow | undefined> {
  for (const user of await reader.lookup('users_by_email', email.toLowerCase())) {
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

const emailTaken = (email: string) =>
  new ApiError('conflict', `A user with email ${email} is already registered with this partner.`, {
    details: [{ field: 'email', message: 'is already registered', location: 'body' }],
  })

/** The rules a registration meets before its password is hashed: an adult, a new e-mail. */
export async function checkRegistration(
  ctx: Pick<UsersContext, 'clocks'>,
  reader: StateReader,
  partnerId: string,
  input: Pick<Registration, 'email' | 'date_of_birth'>,
): Promise<void> {
  assertAdult(ctx, partnerId, input.date_of_birth)
  if (await findUserByEmail(reader, partnerId, input.email)) throw emailTaken(input.email)
}

/** Writes the new user (its password already hashed) and its `user.created` event. */
export async function registerUser(
  ctx: UsersContext,
  tx: StateTx,
  partnerId: string,
  input: Registration,
  password_hash: string,
): Promise<UserRow> {
  // Checked again inside the transaction: a parallel registration of the same email may have won.
  if (await findUserByEmail(tx, partnerId, input.email)) throw emailTaken(input.email)
  const now = ctx.clocks.forPartner(partnerId).iso()
  const user: UserRow = {
    id: ctx.random.uuid(),
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
  tx.put('users', user)
  await ctx.events.record(tx, partnerId, 'user.created', publicUser(ctx, user))
  return user
}

export type ProfilePatch = Partial<
  Pick<UserRow, 'first_name' | 'last_name' | 'date_of_birth' | 'address' | 'secondary_address'>
> & { metadata?: Record<string, unknown> }

/** Applies a profile patch. Metadata merges key by key; a key set to null is removed. */
export async function updateProfile(
  ctx: UsersContext,
  tx: StateTx,
  user: UserRow,
  patch: ProfilePatch,
): Promise<UserRow> {
  if (patch.date_of_birth) assertAdult(ctx, user.partner_id, patch.date_of_birth)
  if (Object.keys(patch).length === 0) return user
  // The row as stored now: the request's copy was read before this transaction began.
  const current = (await tx.get('users', user.id)) ?? user
  const { metadata, ...fields } = patch
  let nextMetadata = current.metadata
  if (metadata) {
    nextMetadata = { ...current.metadata }
    for (const [key, value] of Object.entries(metadata)) {
      if (value === null) delete nextMetadata[key]
      else nextMetadata[key] = value
    }
    if (Object.keys(nextMetadata).length > 50)
      throw validationError('metadata', 'may hold at most 50 keys')
  }
  const next: UserRow = {
    ...current,
    ...fields,
    metadata: nextMetadata,
    updated_at: ctx.clocks.forPartner(user.partner_id).iso(),
  }
  tx.put('users', next)
  await ctx.events.record(tx, user.partner_id, 'user.updated', publicUser(ctx, next))
  return next
}
