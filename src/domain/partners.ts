import { ApiError } from '../errors.js'
import type { Random } from '../random.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import { slugStem } from '../state/indexes.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { PartnerRow, PartnerStatus } from '../store/records.js'
import type { EventBus } from './events.js'
import type { PartnerClocks } from './partner-clocks.js'
import { type PartnerNamesPatch, patchedNames } from './production-names.js'
import { hashSecret } from './secret-hash.js'
import { statePage } from './state-page.js'

/** What the partner functions use of the kernel. */
export interface PartnersContext {
  random: Random
  clocks: PartnerClocks
  events: EventBus
  scenarios: ScenarioRegistry
}

/** What a partner sees of its own record: never the secret hash or a webhook secret. */
export function publicPartner(p: PartnerRow) {
  return {
    id: p.id,
    name: p.name,
    display_name: p.display_name,
    slug: p.slug,
    api_key: p.api_key,
    allowed_origins: p.allowed_origins,
    webhook_url: p.webhook_url,
    scopes: p.scopes,
    rate_limit: p.rate_limit,
    status: p.status,
    contact_email: p.contact_email,
    contact_name: p.contact_name,
    config: p.config,
    created_at: p.created_at,
    updated_at: p.updated_at,
  }
}

export type PartnerPatch = Partial<
  Pick<
    PartnerRow,
    'display_name' | 'contact_email' | 'contact_name' | 'allowed_origins' | 'webhook_url' | 'config'
  >
>

/** Writes the patched partner row (the caller mirrors `webhook_url` on the primary endpoint). */
export async function patchPartner(
  ctx: Pick<PartnersContext, 'clocks'>,
  tx: StateTx,
  partner: PartnerRow,
  patch: PartnerPatch,
): Promise<PartnerRow> {
  // The row as stored now: the request's copy may predate a clock move stored on the row.
  const current = (await tx.get('partners', partner.id)) ?? partner
  const next = { ...current, ...patch, updated_at: ctx.clocks.forPartner(partner.id).iso() }
  tx.put('partners', next)
  return next
}

/**
 * A fresh test key pair: the secret is returned to the caller once and stored only hashed.
 * Runs scrypt: before a transaction, never inside one.
 */
export async function newCredentials(random: Random) {
  const api_key = random.token(24, 'pk_test_')
  const api_secret = random.token(40, 'sk_test_')
  return { api_key, api_secret, api_secret_hash: await hashSecret(api_secret, random) }
}

/** Stores a new key and secret hash; the previous pair fails from the next request on. */
export async function storeRotatedCredentials(
  ctx: Pick<PartnersContext, 'clocks' | 'events'>,
  tx: StateTx,
  partnerId: string,
  credentials: { api_key: string; api_secret_hash: string },
): Promise<void> {
  // Read inside the transaction, after the hash was computed: a concurrent update is kept.
  const current = await partnerById(tx, partnerId)
  const { api_key, api_secret_hash } = credentials
  const rotatedAt = ctx.clocks.forPartner(partnerId).iso()
  tx.put('partners', { ...current, api_key, api_secret_hash, updated_at: rotatedAt })
  await ctx.events.record(tx, partnerId, 'api_key.rotated', {
    object: 'api_key',
    partner_id: partnerId,
    api_key,
    previous_api_key: current.api_key,
    rotated_at: rotatedAt,
  })
}

export async function partnerById(reader: StateReader, id: string): Promise<PartnerRow> {
  const partner = await reader.get('partners', id)
  if (!partner) throw new ApiError('not_found', `No partner with id ${id}.`)
  return partner
}

/** Suspends, revokes or reactivates a partner. */
export async function changePartnerStatus(
  ctx: Pick<PartnersContext, 'clocks'>,
  tx: StateTx,
  id: string,
  status: PartnerStatus,
): Promise<PartnerRow> {
  const partner = await partnerById(tx, id)
  const next = { ...partner, status, updated_at: ctx.clocks.forPartner(partner.id).iso() }
  tx.put('partners', next)
  return next
}

export interface NewPartnerInput {
  name: string
  display_name?: string
  slug?: string
  contact_email?: string
  contact_name?: string
  allowed_origins?: string[]
  webhook_url?: string | null
  scopes?: PartnerRow['scopes']
  rate_limit?: number
  config?: Record<string, unknown>
  scenario?: string | null
  auto_complete?: boolean
  names?: PartnerNamesPatch
}

function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      // Cut before the dashes are trimmed: a cut may end on one, which no slug may.
      .slice(0, 48)
      .replace(/^-+|-+$/g, '') || 'partner'
  )
}

/** A page of every partner, oldest first: read a page at a time, however many there are. */
export function partnersPage(
  reader: StateReader,
  query: { limit: number; starting_after?: string },
) {
  return statePage(reader, 'partners_in_order', 'all', query, undefined, false)
}

/** The slug a new partner gets: the one asked for (409 when taken), or its name's, numbered. */
async function freeSlug(reader: StateReader, input: NewPartnerInput): Promise<string> {
  const base = input.slug ?? slugify(input.name)
  // The slugs it could meet, not every partner's: those of base's stem, and base numbered.
  const stems = [...new Set([slugStem(base), base])]
  const found = await Promise.all(stems.map((s) => reader.lookup('partners_by_slug_stem', s)))
  const taken = new Set(found.flat().map((p) => p.slug))
  if (input.slug && taken.has(input.slug))
    throw new ApiError('conflict', `A partner with slug ${input.slug} exists.`)
  let slug = base
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`
  return slug
}

/** What a new partner is refused for, checked before its credentials are made. */
export async function checkNewPartner(
  ctx: Pick<PartnersContext, 'scenarios'>,
  reader: StateReader,
  input: NewPartnerInput,
): Promise<void> {
  if (input.scenario) ctx.scenarios.resolve(input.scenario)
  await freeSlug(reader, input)
}

/**
 * A new active partner with fresh test credentials (control plane; the unit of test
 * isolation), written in `tx`; the caller adds its primary webhook endpoint.
 */
export async function insertPartner(
  ctx: Pick<PartnersContext, 'random' | 'clocks' | 'scenarios'>,
  tx: StateTx,
  input: NewPartnerInput,
  credentials: { api_key: string; api_secret_hash: string },
): Promise<PartnerRow> {
  // Again inside the transaction: a parallel creation may have taken the slug meanwhile, a
  // delete the scenario.
  const slug = await freeSlug(tx, input)
  if (input.scenario) await ctx.scenarios.requireLoaded(tx, input.scenario)
  const now = ctx.clocks.sandbox.iso()
  const partner: PartnerRow = {
    id: ctx.random.uuid(),
    name: input.name,
    display_name: input.display_name ?? input.name,
    slug,
    api_key: credentials.api_key,
    api_secret_hash: credentials.api_secret_hash,
    allowed_origins: input.allowed_origins ?? [],
    webhook_url: input.webhook_url ?? null,
    scopes: input.scopes ?? ['users', 'cards', 'transactions'],
    rate_limit: input.rate_limit ?? 1000,
    status: 'active',
    contact_email: input.contact_email ?? `dev@${slug}.example`,
    contact_name: input.contact_name ?? input.name,
    config: input.config ?? {},
    scenario: input.scenario ?? null,
    ...(input.auto_complete ? { auto_complete: true } : {}),
    created_at: now,
    updated_at: now,
  }
  const names = input.names && patchedNames(undefined, input.names)
  if (names) partner.names = names
  tx.put('partners', partner)
  return partner
}

const DAY_MS = 86_400_000

/** Since when `/partner/usage` counts: the last 24 h of the partner's own time. */
export const usageSince = (ctx: Pick<PartnersContext, 'clocks'>, partnerId: string) =>
  ctx.clocks.nowOf(partnerId) - DAY_MS

/** The usage snapshot of a partner from its deliveries' counts and its users. */
export async function usage(
  reader: StateReader,
  partner: PartnerRow,
  deliveries: { succeeded: number; permanentlyFailed: number },
) {
  return {
    rate_limit: partner.rate_limit,
    status: partner.status,
    scopes: partner.scopes,
    last_24h: {
      webhook_deliveries_succeeded: deliveries.succeeded,
      webhook_deliveries_permanently_failed: deliveries.permanentlyFailed,
    },
    totals: { users: await reader.count('users_by_partner', partner.id) },
  }
}
