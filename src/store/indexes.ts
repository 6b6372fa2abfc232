import type { Collections } from './records.js'
import type { Store } from './store.js'

/** The secondary indexes the domain looks rows up by. */
export function defineIndexes(store: Store): void {
  store.defineIndex('partners_by_api_key', { collection: 'partners', key: (p) => p.api_key })
  store.defineIndex('users_by_partner', { collection: 'users', key: (u) => u.partner_id })
  // By e-mail alone, of every partner (findUserByEmail keeps the partner's own): a key built
  // as `partner:email` was a new string per user, 64 bytes each at 100k users; the lowercase
  // e-mail is the row's own string.
  store.defineIndex('users_by_email', { collection: 'users', key: (u) => u.email.toLowerCase() })
  store.defineIndex('sessions_by_user', { collection: 'sessions', key: (s) => s.user_id })
  store.defineIndex('webhooks_by_partner', { collection: 'webhooks', key: (w) => w.partner_id })
  // Lists read newest first from these, a page at a time, so they are kept in time order.
  // (Events stay in the order they were recorded: a waiter's `after` means recorded after.)
  const byTime = { order: (row: { created_at: string }) => row.created_at }
  store.defineIndex('deliveries_by_webhook', {
    collection: 'webhook_deliveries',
    key: (d) => d.webhook_id,
    ...byTime,
  })
  store.defineIndex('deliveries_by_partner', {
    collection: 'webhook_deliveries',
    key: (d) => d.partner_id,
  })
  store.defineIndex('deliveries_by_event', {
    collection: 'webhook_deliveries',
    key: (d) => d.event_id,
  })
  // Finished deliveries (nothing left to attempt), oldest first: what the per-partner cap
  // may remove, found without reading past the ones still retrying.
  store.defineIndex('deliveries_done_by_partner', {
    collection: 'webhook_deliveries',
    key: (d) => (d.next_attempt_at ? undefined : d.partner_id),
    ...byTime,
  })
  store.defineIndex('events_by_partner', { collection: 'events', key: (e) => e.partner_id })
  store.defineIndex('onboardings_by_user', { collection: 'onboardings', key: (o) => o.user_id })
  store.defineIndex('cards_by_user', { collection: 'cards', key: (c) => c.user_id })
  // A user's transactions of every card (in place of an index by card, which nothing reads
  // now), in time order, with the version of the user's last change: a page and its cache
  // cost the same at 10 and at 10,000 transactions.
  store.defineIndex('transactions_by_user', {
    collection: 'transactions',
    key: (t) => t.user_id,
    ...byTime,
    versioned: true,
  })
  store.defineIndex('deposits_by_user', {
    collection: 'deposits',
    key: (d) => d.user_id,
    ...byTime,
  })
  store.defineIndex('disputes_by_user', {
    collection: 'disputes',
    key: (d) => d.user_id,
    ...byTime,
  })
  store.defineIndex('bank_accounts_by_user', { collection: 'bank_accounts', key: (b) => b.user_id })
  // Rows still waiting on the clock, so the once-a-second sweep reads only those: all of
  // them under 'waiting', and by partner, for the sweep after one partner's clock moved.
  const waiting = <K extends 'onboardings' | 'deposits' | 'disputes'>(
    name: string,
    collection: K,
    isWaiting: (row: Collections[K]) => boolean,
  ) => {
    store.defineIndex(name, {
      collection,
      key: (row: Collections[K]) => (isWaiting(row) ? 'waiting' : undefined),
    })
    store.defineIndex(`${name}_by_partner`, {
      collection,
      key: (row: Collections[K]) => (isWaiting(row) ? row.partner_id : undefined),
    })
  }
  waiting('onboardings_in_review', 'onboardings', (o) => o.status === 'manual_review')
  waiting('deposits_pending', 'deposits', (d) => d.status === 'pending')
  waiting('disputes_under_review', 'disputes', (d) => d.status === 'under_review')
  // Global overrides (no partner) under '*'.
  store.defineIndex('overrides_by_partner', {
    collection: 'overrides',
    key: (o) => o.partner_id ?? '*',
  })
  store.defineIndex('codes_by_user', { collection: 'verification_codes', key: (c) => c.user_id })
  // The codes of a user and purpose not yet used, burnt or replaced: a login reads these few,
  // not every code the user ever had.
  store.defineIndex('open_codes_by_user', {
    collection: 'verification_codes',
    key: (c) => (c.ended_at ? undefined : openCodeKey(c.user_id, c.purpose)),
  })
  // History by partner and the hour (codes, sessions) or day (events, deliveries) it ends or
  // began, in that partner's time, so retention (domain/retention.ts) reads only the buckets
  // it prunes; and by partner, oldest first, for the per-partner caps.
  store.defineIndex('codes_by_end_hour', {
    collection: 'verification_codes',
    key: (c) => bucketKey(c.partner_id, hourOf(c.expires_at)),
  })
  store.defineIndex('sessions_by_end_hour', {
    collection: 'sessions',
    key: (s) => bucketKey(s.partner_id, hourOf(s.revoked_at ?? s.expires_at)),
  })
  store.defineIndex('events_by_day', {
    collection: 'events',
    key: (e) => bucketKey(e.partner_id, dayOf(e.created_at)),
  })
  store.defineIndex('deliveries_by_day', {
    collection: 'webhook_deliveries',
    key: (d) => bucketKey(d.partner_id, dayOf(d.created_at)),
  })
  store.defineIndex('deliveries_pending_by_event', {
    collection: 'webhook_deliveries',
    key: (d) => (d.next_attempt_at ? d.event_id : undefined),
  })
}

/** `<user id>|<purpose>`: a user's open codes of one purpose. */
export const openCodeKey = (userId: string, purpose: string) => `${userId}|${purpose}`

/** `<partner id>|<bucket>`: a partner's rows of one hour or day. */
export const bucketKey = (partnerId: string, bucket: string) => `${partnerId}|${bucket}`

/** `2026-01-01T13` of an ISO time: sorts as the time does. */
export const hourOf = (iso: string) => iso.slice(0, 13)

/** `2026-01-01` of an ISO time. */
export const dayOf = (iso: string) => iso.slice(0, 10)
