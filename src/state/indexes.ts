import type { IndexDef } from '../store/index-map.js'
import type { CollectionName, Collections } from '../store/records.js'

/**
 * The secondary indexes the domain looks rows up by, declared once: the seam's lookups take an
 * index's name and derive its collection and row type from this table, so a wrong name or a
 * row of another collection is a compile error, not a run-time one.
 */

const index = <K extends CollectionName>(
  collection: K,
  key: (row: Collections[K]) => string | undefined,
  options: Pick<IndexDef<K>, 'order' | 'counted'> = {},
): IndexDef<K> => ({ collection, key, ...options })

// Lists read newest first from these, a page at a time, so they are kept in time order.
// (Events stay in the order they were recorded: a waiter's `after` means recorded after.)
const byTime = { order: (row: { created_at: string }) => row.created_at }

/** Rows still waiting on the clock (all under 'waiting'), for the once-a-second sweep. */
const waiting = <K extends 'onboardings' | 'deposits' | 'disputes'>(
  collection: K,
  isWaiting: (row: Collections[K]) => boolean,
) => index(collection, (row) => (isWaiting(row) ? 'waiting' : undefined))

/** The same rows by partner, for the sweep after one partner's clock moved. */
const waitingByPartner = <K extends 'onboardings' | 'deposits' | 'disputes'>(
  collection: K,
  isWaiting: (row: Collections[K]) => boolean,
) => index(collection, (row) => (isWaiting(row) ? row.partner_id : undefined))

const inReview = (o: Collections['onboardings']) => o.status === 'manual_review'
const pending = (d: Collections['deposits']) => d.status === 'pending'
const underReview = (d: Collections['disputes']) => d.status === 'under_review'

/** A slug without its trailing number (`acme-2` is `acme`), as a taken slug is numbered. */
export const slugStem = (slug: string) => slug.replace(/-[0-9]+$/, '')

export const indexDefs = {
  partners_by_api_key: index('partners', (p) => p.api_key),
  // Partners whose time is their own (all under 'own'): what the clocks read for everyone is
  // these few rows, not every partner (domain/partner-clocks.ts).
  partners_with_own_clock: index('partners', (p) => (p.clock ? 'own' : undefined)),
  // Every partner (all under 'all') and the partners by their own scenario: the health check
  // counts them, and reads the names a partner gives, rather than every partner's row.
  partners_in_order: index('partners', () => 'all'),
  partners_by_scenario: index('partners', (p) => p.scenario ?? undefined),
  // Partners by their slug's stem: a new partner's slug is checked against these few.
  partners_by_slug_stem: index('partners', (p) => slugStem(p.slug)),
  users_by_partner: index('users', (u) => u.partner_id, { counted: true }),
  // By e-mail alone, of every partner (findUserByEmail keeps the partner's own): a key built
  // as `partner:email` was a new string per user, 64 bytes each at 100k users; the lowercase
  // e-mail is the row's own string.
  users_by_email: index('users', (u) => u.email.toLowerCase()),
  sessions_by_user: index('sessions', (s) => s.user_id),
  webhooks_by_partner: index('webhooks', (w) => w.partner_id),
  deliveries_by_webhook: index('webhook_deliveries', (d) => d.webhook_id, byTime),
  deliveries_by_partner: index('webhook_deliveries', (d) => d.partner_id, { counted: true }),
  deliveries_by_event: index('webhook_deliveries', (d) => d.event_id),
  // Finished deliveries (nothing left to attempt), oldest first: what the per-partner cap
  // may remove, found without reading past the ones still retrying.
  deliveries_done_by_partner: index(
    'webhook_deliveries',
    (d) => (d.next_attempt_at ? undefined : d.partner_id),
    byTime,
  ),
  deliveries_pending_by_event: index('webhook_deliveries', (d) =>
    d.next_attempt_at ? d.event_id : undefined,
  ),
  // The dispatcher's only schedule: deliveries with an attempt to come, by endpoint
  // (`<partner>|<endpoint>`, each endpoint a queue of its own, so a slow one holds up no
  // other), in the order they fall due on the partner's clock. Due rows are taken with
  // takeDue (row locks); the keys say which endpoints have work.
  deliveries_due_by_endpoint: index(
    'webhook_deliveries',
    (d) => (d.next_attempt_at ? endpointKey(d.partner_id, d.webhook_id) : undefined),
    { order: (d) => d.next_attempt_at ?? '' },
  ),
  // Finished deliveries by partner and outcome (`<partner>|<status>`), in the order they
  // finished: `/partner/usage` counts the last 24 hours from the rows.
  deliveries_finished_by_partner: index(
    'webhook_deliveries',
    (d) =>
      d.completed_at && (d.status === 'succeeded' || d.status === 'permanently_failed')
        ? bucketKey(d.partner_id, d.status)
        : undefined,
    { order: (d) => d.completed_at ?? '' },
  ),
  events_by_partner: index('events', (e) => e.partner_id, { counted: true }),
  onboardings_by_user: index('onboardings', (o) => o.user_id),
  cards_by_user: index('cards', (c) => c.user_id),
  // A user's transactions of every card, in time order, with the version of the user's last
  // change: a page and its cache cost the same at 10 and at 10,000 transactions.
  transactions_by_user: index('transactions', (t) => t.user_id, byTime),
  deposits_by_user: index('deposits', (d) => d.user_id, byTime),
  disputes_by_user: index('disputes', (d) => d.user_id, byTime),
  bank_accounts_by_user: index('bank_accounts', (b) => b.user_id),
  onboardings_in_review: waiting('onboardings', inReview),
  onboardings_in_review_by_partner: waitingByPartner('onboardings', inReview),
  deposits_pending: waiting('deposits', pending),
  deposits_pending_by_partner: waitingByPartner('deposits', pending),
  disputes_under_review: waiting('disputes', underReview),
  disputes_under_review_by_partner: waitingByPartner('disputes', underReview),
  // Global rules (no partner) under '*': a request reads its partner's and these at once.
  rules_by_partner: index('rules', (r) => r.partner_id ?? '*'),
  codes_by_user: index('verification_codes', (c) => c.user_id),
  // The codes of a user and purpose not yet used, burnt or replaced: a login reads these few,
  // not every code the user ever had.
  open_codes_by_user: index('verification_codes', (c) =>
    c.ended_at ? undefined : openCodeKey(c.user_id, c.purpose),
  ),
  // History by partner and the hour (codes, sessions) or day (events, deliveries) it ends or
  // began, in that partner's time, so retention (domain/retention.ts) reads only the buckets
  // it prunes.
  codes_by_end_hour: index('verification_codes', (c) =>
    bucketKey(c.partner_id, hourOf(c.expires_at)),
  ),
  sessions_by_end_hour: index('sessions', (s) =>
    bucketKey(s.partner_id, hourOf(s.revoked_at ?? s.expires_at)),
  ),
  events_by_day: index('events', (e) => bucketKey(e.partner_id, dayOf(e.created_at))),
  deliveries_by_day: index('webhook_deliveries', (d) =>
    bucketKey(d.partner_id, dayOf(d.created_at)),
  ),
  // identity: the inbox, in the order messages were sent (every one under 'all'), by recipient
  // (a login's read walks only that address's messages) and by partner (its reset).
  inbox_in_order: index('inbox_messages', () => 'all', { counted: true }),
  inbox_by_email: index('inbox_messages', (m) => m.to.toLowerCase()),
  inbox_by_partner: index('inbox_messages', (m) => m.partner_id),
  // Messages that still show their code: by the code (taken out when it is used) and by
  // partner in the order they expire (taken out by the sweep, which reads only those due).
  inbox_by_live_code: index('inbox_messages', (m) =>
    m.code !== null && m.code_id ? m.code_id : undefined,
  ),
  inbox_live_codes_by_partner: index(
    'inbox_messages',
    (m) => (m.code !== null ? m.partner_id : undefined),
    { order: (m) => m.expires_at },
  ),
  // webhooks: a sink's requests, in the order received (oldest go first past its caps).
  sink_requests_by_sink: index('sink_requests', (r) => r.sink, { counted: true }),
  // Journal area. Each partner's requests in the order they were answered (a ring's slot
  // written again moves to the end; the whole journal is read by `seq`, with no index to keep
  // on every request).
  journal_by_partner: index('request_journal', (r) => r.partner_id ?? undefined, {
    order: (r) => r.seq,
  }),
} as const

export type IndexName = keyof typeof indexDefs
/** The collection an index is over. */
export type IndexCollection<I extends IndexName> = (typeof indexDefs)[I]['collection']
/** The rows an index holds. */
export type IndexRow<I extends IndexName> = Collections[IndexCollection<I>]

/** `<user id>|<purpose>`: a user's open codes of one purpose. */
export const openCodeKey = (userId: string, purpose: string) => `${userId}|${purpose}`

/** `<partner id>|<endpoint id>`: one endpoint's deliveries still to attempt. */
export const endpointKey = (partnerId: string, webhookId: string) => `${partnerId}|${webhookId}`

/** The partner of an endpointKey (partner ids never hold a `|`). */
export const partnerOfEndpointKey = (key: string) => key.slice(0, key.indexOf('|'))

/** `<partner id>|<bucket>`: a partner's rows of one hour or day. */
export const bucketKey = (partnerId: string, bucket: string) => `${partnerId}|${bucket}`

/** `2026-01-01T13` of an ISO time: sorts as the time does. */
export const hourOf = (iso: string) => iso.slice(0, 13)

/** `2026-01-01` of an ISO time. */
export const dayOf = (iso: string) => iso.slice(0, 10)
