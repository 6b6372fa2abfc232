import type { Collections } from './records.js'
import type { Store } from './store.js'

/** The secondary indexes the domain looks rows up by. */
export function defineIndexes(store: Store): void {
  store.defineIndex('partners_by_api_key', { collection: 'partners', key: (p) => p.api_key })
  store.defineIndex('users_by_partner', { collection: 'users', key: (u) => u.partner_id })
  store.defineIndex('users_by_partner_email', {
    collection: 'users',
    key: (u) => `${u.partner_id}:${u.email.toLowerCase()}`,
  })
  store.defineIndex('sessions_by_user', { collection: 'sessions', key: (s) => s.user_id })
  store.defineIndex('webhooks_by_partner', { collection: 'webhooks', key: (w) => w.partner_id })
  store.defineIndex('deliveries_by_webhook', {
    collection: 'webhook_deliveries',
    key: (d) => d.webhook_id,
  })
  store.defineIndex('deliveries_by_partner', {
    collection: 'webhook_deliveries',
    key: (d) => d.partner_id,
  })
  store.defineIndex('onboardings_by_user', { collection: 'onboardings', key: (o) => o.user_id })
  store.defineIndex('cards_by_user', { collection: 'cards', key: (c) => c.user_id })
  store.defineIndex('transactions_by_card', { collection: 'transactions', key: (t) => t.card_id })
  store.defineIndex('deposits_by_user', { collection: 'deposits', key: (d) => d.user_id })
  store.defineIndex('disputes_by_user', { collection: 'disputes', key: (d) => d.user_id })
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
  store.defineIndex('codes_by_user', { collection: 'verification_codes', key: (c) => c.user_id })
}
