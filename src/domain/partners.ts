import type { Deps } from '../deps.js'
import { ApiError } from '../errors.js'
import type { PartnerRow, PartnerStatus } from '../store/records.js'
import { syncPrimaryEndpoint } from '../webhooks/subscriptions.js'
import { hashSecret } from './secret-hash.js'

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

export function updatePartner(deps: Deps, partner: PartnerRow, patch: PartnerPatch): PartnerRow {
  // The row as stored now: the request's copy may predate a clock move stored on the row.
  const current = deps.store.get('partners', partner.id) ?? partner
  const next = { ...current, ...patch, updated_at: deps.clocks.forPartner(partner.id).iso() }
  deps.store.batch((w) => {
    w.put('partners', next)
    syncPrimaryEndpoint(deps, w, next)
  })
  return next
}

/** A fresh test key pair: the secret is returned to the caller once and stored only hashed. */
export async function newCredentials(deps: Deps) {
  const api_key = deps.random.token(24, 'pk_test_')
  const api_secret = deps.random.token(40, 'sk_test_')
  return { api_key, api_secret, api_secret_hash: await hashSecret(api_secret, deps.random) }
}

/** Replaces key and secret; the previous pair fails from the next request on. */
export async function rotateCredentials(deps: Deps, partnerId: string) {
  const { api_key, api_secret, api_secret_hash } = await newCredentials(deps)
  // Read after the hash is computed so a concurrent update of the record is not lost.
  const current = requirePartner(deps, partnerId)
  const rotatedAt = deps.clocks.forPartner(partnerId).iso()
  deps.store.batch((w) => {
    w.put('partners', { ...current, api_key, api_secret_hash, updated_at: rotatedAt })
    deps.events.record(w, partnerId, 'api_key.rotated', {
      object: 'api_key',
      partner_id: partnerId,
      api_key,
      previous_api_key: current.api_key,
      rotated_at: rotatedAt,
    })
  })
  deps.credentials.forget(partnerId)
  return { api_key, api_secret }
}

export function requirePartner(deps: Deps, id: string): PartnerRow {
  const partner = deps.store.get('partners', id)
  if (!partner) throw new ApiError('not_found', `No partner with id ${id}.`)
  return partner
}

export function setPartnerStatus(deps: Deps, id: string, status: PartnerStatus): PartnerRow {
  const partner = requirePartner(deps, id)
  const next = { ...partner, status, updated_at: deps.clocks.forPartner(partner.id).iso() }
  deps.store.put('partners', next)
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
}

function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'partner'
  )
}

/** A new active partner with fresh test credentials (control plane; the unit of test isolation). */
export async function createPartner(deps: Deps, input: NewPartnerInput) {
  if (input.scenario) deps.scenarios.resolve(input.scenario)
  const taken = new Set(deps.store.all('partners').map((p) => p.slug))
  const base = input.slug ?? slugify(input.name)
  if (input.slug && taken.has(input.slug))
    throw new ApiError('conflict', `A partner with slug ${input.slug} exists.`)
  let slug = base
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`
  const { api_key, api_secret, api_secret_hash } = await newCredentials(deps)
  const now = deps.clock.iso()
  const partner: PartnerRow = {
    id: deps.random.uuid(),
    name: input.name,
    display_name: input.display_name ?? input.name,
    slug,
    api_key,
    api_secret_hash,
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
  let webhook_secret: string | undefined
  deps.store.batch((w) => {
    w.put('partners', partner)
    webhook_secret = syncPrimaryEndpoint(deps, w, partner)
  })
  return { partner, api_key, api_secret, webhook_secret }
}

const DAY_MS = 86_400_000

export function usage(deps: Deps, partner: PartnerRow) {
  // "Last 24 h" of the partner's own time: advancing it ages its deliveries out.
  const since = deps.clocks.nowOf(partner.id) - DAY_MS
  const deliveries = deps.dispatcher.stats(partner.id, since)
  return {
    rate_limit: partner.rate_limit,
    status: partner.status,
    scopes: partner.scopes,
    last_24h: {
      webhook_deliveries_succeeded: deliveries.succeeded,
      webhook_deliveries_permanently_failed: deliveries.permanentlyFailed,
    },
    totals: { users: deps.store.count('users', 'users_by_partner', partner.id) },
  }
}
