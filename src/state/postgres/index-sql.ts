import type { CollectionName } from '../../store/records.js'
import { type IndexName, indexDefs } from '../indexes.js'

/**
 * Each declared index (src/state/indexes.ts) in SQL: the expression that is its `key` (the same
 * text the index's key function makes of a row), the condition a row meets to be under a key at
 * all (`where`), and the column that orders its rows (`order`: a time, or the journal's
 * sequence; ties and the rest by `inserted`). An ordinary index of those expressions serves each
 * lookup, or the primary key where it is `primary`. test/postgres-schema.test.ts checks, over
 * the rows of a whole flow, that every row's SQL key is the key the memory engine gives it.
 */

export const indexSql: Record<
  IndexName,
  { key: string; where?: string; order?: string; primary?: true }
> = {
  partners_by_api_key: { key: 'api_key' },
  partners_with_own_clock: { key: "'own'", where: 'clock IS NOT NULL' },
  partners_in_order: { key: "'all'" },
  partners_by_scenario: { key: 'scenario', where: 'scenario IS NOT NULL' },
  partners_by_slug_stem: { key: "regexp_replace(slug, '-[0-9]+$', '')" },
  // Served by the primary key (partner_id, id), no index of its own (migrations/0004): its
  // foreign keys' checks (partner_id, id) could take an index of the partner's users, costing
  // the same before PostgreSQL has statistics, and read every user of the partner for one.
  users_by_partner: { key: 'partner_id', primary: true },
  users_by_email: { key: 'lower(email)' },
  sessions_by_user: { key: 'user_id' },
  webhooks_by_partner: { key: 'partner_id' },
  deliveries_by_webhook: { key: 'webhook_id', order: 'created_at' },
  deliveries_by_partner: { key: 'partner_id' },
  deliveries_by_event: { key: 'event_id' },
  deliveries_done_by_partner: {
    key: 'partner_id',
    where: 'next_attempt_at IS NULL',
    order: 'created_at',
  },
  deliveries_pending_by_event: { key: 'event_id', where: 'next_attempt_at IS NOT NULL' },
  deliveries_due_by_endpoint: {
    key: "partner_id || '|' || webhook_id",
    where: 'next_attempt_at IS NOT NULL',
    order: 'next_attempt_at',
  },
  deliveries_finished_by_partner: {
    key: "partner_id || '|' || status",
    where: "completed_at IS NOT NULL AND status IN ('succeeded', 'permanently_failed')",
    order: 'completed_at',
  },
  events_by_partner: { key: 'partner_id' },
  onboardings_by_user: { key: 'user_id' },
  cards_by_user: { key: 'user_id' },
  transactions_by_user: { key: 'user_id', order: 'created_at' },
  deposits_by_user: { key: 'user_id', order: 'created_at' },
  disputes_by_user: { key: 'user_id', order: 'created_at' },
  bank_accounts_by_user: { key: 'user_id' },
  onboardings_in_review: { key: "'waiting'", where: "status = 'manual_review'" },
  onboardings_in_review_by_partner: { key: 'partner_id', where: "status = 'manual_review'" },
  deposits_pending: { key: "'waiting'", where: "status = 'pending'" },
  deposits_pending_by_partner: { key: 'partner_id', where: "status = 'pending'" },
  disputes_under_review: { key: "'waiting'", where: "status = 'under_review'" },
  disputes_under_review_by_partner: { key: 'partner_id', where: "status = 'under_review'" },
  rules_by_partner: { key: "coalesce(partner_id, '*')" },
  codes_by_user: { key: 'user_id' },
  open_codes_by_user: { key: "user_id || '|' || purpose", where: 'ended_at IS NULL' },
  codes_by_end_hour: { key: "partner_id || '|' || sandbox_hour(expires_at)" },
  sessions_by_end_hour: {
    key: "partner_id || '|' || sandbox_hour(coalesce(revoked_at, expires_at))",
  },
  events_by_day: { key: "partner_id || '|' || sandbox_day(created_at)" },
  deliveries_by_day: { key: "partner_id || '|' || sandbox_day(created_at)" },
  inbox_in_order: { key: "'all'" },
  inbox_by_email: { key: 'lower("to")' },
  inbox_by_partner: { key: 'partner_id' },
  inbox_by_live_code: { key: 'code_id', where: 'code IS NOT NULL AND code_id IS NOT NULL' },
  inbox_live_codes_by_partner: {
    key: 'partner_id',
    where: 'code IS NOT NULL',
    order: 'expires_at',
  },
  sink_requests_by_sink: { key: 'sink' },
  journal_by_partner: { key: 'partner_id', where: 'partner_id IS NOT NULL', order: 'seq' },
}

/** The collection an index is over. */
export const tableOf = (index: IndexName): CollectionName => indexDefs[index].collection
