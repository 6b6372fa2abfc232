/**
 * The PostgreSQL engine's schema, as versioned migrations: each runs once, in order, in one
 * transaction, under an advisory lock (migrate.ts), and is never edited once released: a change
 * of layout (an index added to src/state/indexes.ts, a collection added to records.ts) is a new
 * migration appended here. test/postgres-layout.test.ts fails when the tables differ from
 * layout.ts.
 */
export interface Migration {
  version: number
  name: string
  sql: string
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'state',
    sql: `
-- The sandbox state: see src/state/postgres/layout.ts for what each column is.

CREATE SEQUENCE sandbox_pos;

-- What the sandbox keeps about itself: the seed a reset goes back to.

CREATE TABLE sandbox_settings (name text PRIMARY KEY, value json NOT NULL);

CREATE TABLE meta (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL
);
CREATE INDEX meta_partner ON meta (partner_id);

CREATE TABLE partners (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_partners_by_api_key text,
  p_partners_by_api_key bigint
);
CREATE INDEX partners_partner ON partners (partner_id);
CREATE INDEX partners_by_api_key ON partners (k_partners_by_api_key, p_partners_by_api_key) WHERE k_partners_by_api_key IS NOT NULL;

CREATE TABLE users (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_users_by_partner text,
  p_users_by_partner bigint,
  k_users_by_email text,
  p_users_by_email bigint
);
CREATE INDEX users_partner ON users (partner_id);
CREATE INDEX users_by_partner ON users (k_users_by_partner, p_users_by_partner) WHERE k_users_by_partner IS NOT NULL;
CREATE INDEX users_by_email ON users (k_users_by_email, p_users_by_email) WHERE k_users_by_email IS NOT NULL;

CREATE TABLE sessions (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_sessions_by_user text,
  p_sessions_by_user bigint,
  k_sessions_by_end_hour text,
  p_sessions_by_end_hour bigint
);
CREATE INDEX sessions_partner ON sessions (partner_id);
CREATE INDEX sessions_by_user ON sessions (k_sessions_by_user, p_sessions_by_user) WHERE k_sessions_by_user IS NOT NULL;
CREATE INDEX sessions_by_end_hour ON sessions (k_sessions_by_end_hour, p_sessions_by_end_hour) WHERE k_sessions_by_end_hour IS NOT NULL;

CREATE TABLE verification_codes (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_codes_by_user text,
  p_codes_by_user bigint,
  k_open_codes_by_user text,
  p_open_codes_by_user bigint,
  k_codes_by_end_hour text,
  p_codes_by_end_hour bigint
);
CREATE INDEX verification_codes_partner ON verification_codes (partner_id);
CREATE INDEX codes_by_user ON verification_codes (k_codes_by_user, p_codes_by_user) WHERE k_codes_by_user IS NOT NULL;
CREATE INDEX open_codes_by_user ON verification_codes (k_open_codes_by_user, p_open_codes_by_user) WHERE k_open_codes_by_user IS NOT NULL;
CREATE INDEX codes_by_end_hour ON verification_codes (k_codes_by_end_hour, p_codes_by_end_hour) WHERE k_codes_by_end_hour IS NOT NULL;

CREATE TABLE events (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_events_by_partner text,
  p_events_by_partner bigint,
  k_events_by_day text,
  p_events_by_day bigint
);
CREATE INDEX events_partner ON events (partner_id);
CREATE INDEX events_by_partner ON events (k_events_by_partner, p_events_by_partner) WHERE k_events_by_partner IS NOT NULL;
CREATE INDEX events_by_day ON events (k_events_by_day, p_events_by_day) WHERE k_events_by_day IS NOT NULL;

CREATE TABLE files (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL
);
CREATE INDEX files_partner ON files (partner_id);

CREATE TABLE webhooks (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_webhooks_by_partner text,
  p_webhooks_by_partner bigint
);
CREATE INDEX webhooks_partner ON webhooks (partner_id);
CREATE INDEX webhooks_by_partner ON webhooks (k_webhooks_by_partner, p_webhooks_by_partner) WHERE k_webhooks_by_partner IS NOT NULL;

CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_deliveries_by_webhook text,
  o_deliveries_by_webhook text,
  p_deliveries_by_webhook bigint,
  k_deliveries_by_partner text,
  p_deliveries_by_partner bigint,
  k_deliveries_by_event text,
  p_deliveries_by_event bigint,
  k_deliveries_done_by_partner text,
  o_deliveries_done_by_partner text,
  p_deliveries_done_by_partner bigint,
  k_deliveries_pending_by_event text,
  p_deliveries_pending_by_event bigint,
  k_deliveries_by_day text,
  p_deliveries_by_day bigint
);
CREATE INDEX webhook_deliveries_partner ON webhook_deliveries (partner_id);
CREATE INDEX deliveries_by_webhook ON webhook_deliveries (k_deliveries_by_webhook, o_deliveries_by_webhook, p_deliveries_by_webhook) WHERE k_deliveries_by_webhook IS NOT NULL;
CREATE INDEX deliveries_by_partner ON webhook_deliveries (k_deliveries_by_partner, p_deliveries_by_partner) WHERE k_deliveries_by_partner IS NOT NULL;
CREATE INDEX deliveries_by_event ON webhook_deliveries (k_deliveries_by_event, p_deliveries_by_event) WHERE k_deliveries_by_event IS NOT NULL;
CREATE INDEX deliveries_done_by_partner ON webhook_deliveries (k_deliveries_done_by_partner, o_deliveries_done_by_partner, p_deliveries_done_by_partner) WHERE k_deliveries_done_by_partner IS NOT NULL;
CREATE INDEX deliveries_pending_by_event ON webhook_deliveries (k_deliveries_pending_by_event, p_deliveries_pending_by_event) WHERE k_deliveries_pending_by_event IS NOT NULL;
CREATE INDEX deliveries_by_day ON webhook_deliveries (k_deliveries_by_day, p_deliveries_by_day) WHERE k_deliveries_by_day IS NOT NULL;

CREATE TABLE webhook_labs (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL
);
CREATE INDEX webhook_labs_partner ON webhook_labs (partner_id);

CREATE TABLE onboardings (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_onboardings_by_user text,
  p_onboardings_by_user bigint,
  k_onboardings_in_review text,
  p_onboardings_in_review bigint,
  k_onboardings_in_review_by_partner text,
  p_onboardings_in_review_by_partner bigint
);
CREATE INDEX onboardings_partner ON onboardings (partner_id);
CREATE INDEX onboardings_by_user ON onboardings (k_onboardings_by_user, p_onboardings_by_user) WHERE k_onboardings_by_user IS NOT NULL;
CREATE INDEX onboardings_in_review ON onboardings (k_onboardings_in_review, p_onboardings_in_review) WHERE k_onboardings_in_review IS NOT NULL;
CREATE INDEX onboardings_in_review_by_partner ON onboardings (k_onboardings_in_review_by_partner, p_onboardings_in_review_by_partner) WHERE k_onboardings_in_review_by_partner IS NOT NULL;

CREATE TABLE cards (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_cards_by_user text,
  p_cards_by_user bigint
);
CREATE INDEX cards_partner ON cards (partner_id);
CREATE INDEX cards_by_user ON cards (k_cards_by_user, p_cards_by_user) WHERE k_cards_by_user IS NOT NULL;

CREATE TABLE transactions (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_transactions_by_user text,
  o_transactions_by_user text,
  p_transactions_by_user bigint
);
CREATE INDEX transactions_partner ON transactions (partner_id);
CREATE INDEX transactions_by_user ON transactions (k_transactions_by_user, o_transactions_by_user, p_transactions_by_user) WHERE k_transactions_by_user IS NOT NULL;

CREATE TABLE deposits (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_deposits_by_user text,
  o_deposits_by_user text,
  p_deposits_by_user bigint,
  k_deposits_pending text,
  p_deposits_pending bigint,
  k_deposits_pending_by_partner text,
  p_deposits_pending_by_partner bigint
);
CREATE INDEX deposits_partner ON deposits (partner_id);
CREATE INDEX deposits_by_user ON deposits (k_deposits_by_user, o_deposits_by_user, p_deposits_by_user) WHERE k_deposits_by_user IS NOT NULL;
CREATE INDEX deposits_pending ON deposits (k_deposits_pending, p_deposits_pending) WHERE k_deposits_pending IS NOT NULL;
CREATE INDEX deposits_pending_by_partner ON deposits (k_deposits_pending_by_partner, p_deposits_pending_by_partner) WHERE k_deposits_pending_by_partner IS NOT NULL;

CREATE TABLE disputes (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_disputes_by_user text,
  o_disputes_by_user text,
  p_disputes_by_user bigint,
  k_disputes_under_review text,
  p_disputes_under_review bigint,
  k_disputes_under_review_by_partner text,
  p_disputes_under_review_by_partner bigint
);
CREATE INDEX disputes_partner ON disputes (partner_id);
CREATE INDEX disputes_by_user ON disputes (k_disputes_by_user, o_disputes_by_user, p_disputes_by_user) WHERE k_disputes_by_user IS NOT NULL;
CREATE INDEX disputes_under_review ON disputes (k_disputes_under_review, p_disputes_under_review) WHERE k_disputes_under_review IS NOT NULL;
CREATE INDEX disputes_under_review_by_partner ON disputes (k_disputes_under_review_by_partner, p_disputes_under_review_by_partner) WHERE k_disputes_under_review_by_partner IS NOT NULL;

CREATE TABLE bank_accounts (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_bank_accounts_by_user text,
  p_bank_accounts_by_user bigint
);
CREATE INDEX bank_accounts_partner ON bank_accounts (partner_id);
CREATE INDEX bank_accounts_by_user ON bank_accounts (k_bank_accounts_by_user, p_bank_accounts_by_user) WHERE k_bank_accounts_by_user IS NOT NULL;

CREATE TABLE connect_tokens (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL
);
CREATE INDEX connect_tokens_partner ON connect_tokens (partner_id);

CREATE TABLE scenarios (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL
);
CREATE INDEX scenarios_partner ON scenarios (partner_id);

CREATE TABLE overrides (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_overrides_by_partner text,
  p_overrides_by_partner bigint
);
CREATE INDEX overrides_partner ON overrides (partner_id);
CREATE INDEX overrides_by_partner ON overrides (k_overrides_by_partner, p_overrides_by_partner) WHERE k_overrides_by_partner IS NOT NULL;

CREATE UNLOGGED TABLE inbox_messages (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_inbox_in_order text,
  p_inbox_in_order bigint,
  k_inbox_by_email text,
  p_inbox_by_email bigint,
  k_inbox_by_partner text,
  p_inbox_by_partner bigint
);
CREATE INDEX inbox_messages_partner ON inbox_messages (partner_id);
CREATE INDEX inbox_in_order ON inbox_messages (k_inbox_in_order, p_inbox_in_order) WHERE k_inbox_in_order IS NOT NULL;
CREATE INDEX inbox_by_email ON inbox_messages (k_inbox_by_email, p_inbox_by_email) WHERE k_inbox_by_email IS NOT NULL;
CREATE INDEX inbox_by_partner ON inbox_messages (k_inbox_by_partner, p_inbox_by_partner) WHERE k_inbox_by_partner IS NOT NULL;

CREATE UNLOGGED TABLE clocks (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL
);
CREATE INDEX clocks_partner ON clocks (partner_id);

CREATE UNLOGGED TABLE sinks (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL
);
CREATE INDEX sinks_partner ON sinks (partner_id);

CREATE UNLOGGED TABLE sink_requests (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_sink_requests_by_sink text,
  p_sink_requests_by_sink bigint
);
CREATE INDEX sink_requests_partner ON sink_requests (partner_id);
CREATE INDEX sink_requests_by_sink ON sink_requests (k_sink_requests_by_sink, p_sink_requests_by_sink) WHERE k_sink_requests_by_sink IS NOT NULL;

CREATE UNLOGGED TABLE request_journal (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_journal_by_partner text,
  o_journal_by_partner text,
  p_journal_by_partner bigint
);
CREATE INDEX request_journal_partner ON request_journal (partner_id);
CREATE INDEX journal_by_partner ON request_journal (k_journal_by_partner, o_journal_by_partner, p_journal_by_partner) WHERE k_journal_by_partner IS NOT NULL;

CREATE UNLOGGED TABLE request_captures (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL
);
CREATE INDEX request_captures_partner ON request_captures (partner_id);

CREATE UNLOGGED TABLE runtime_faults (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL,
  k_runtime_faults_in_order text,
  p_runtime_faults_in_order bigint
);
CREATE INDEX runtime_faults_partner ON runtime_faults (partner_id);
CREATE INDEX runtime_faults_in_order ON runtime_faults (k_runtime_faults_in_order, p_runtime_faults_in_order) WHERE k_runtime_faults_in_order IS NOT NULL;

CREATE UNLOGGED TABLE fault_uses (
  id text PRIMARY KEY,
  partner_id text,
  added bigint NOT NULL,
  row json NOT NULL
);
CREATE INDEX fault_uses_partner ON fault_uses (partner_id);
`,
  },
  {
    version: 2,
    name: 'leases, counters, commit numbers',
    sql: `
-- Work done once among replicas (state seam claim): a webhook attempt is leased by the
-- replica making it; a replica that dies leaves its lease to expire. UNLOGGED: a lease
-- outlives no database crash, and none need to.
CREATE UNLOGGED TABLE sandbox_leases (
  name text PRIMARY KEY,
  holder text NOT NULL,
  until timestamptz NOT NULL
);
CREATE INDEX sandbox_leases_until ON sandbox_leases (until);
-- Counters shared by replicas (state seam increment): a partner's requests in the current
-- rate-limit window, one row per partner.
CREATE UNLOGGED TABLE sandbox_counters (
  name text PRIMARY KEY,
  win bigint NOT NULL,
  count integer NOT NULL
);
-- Numbers every announced commit: a replica that heard up to the last one is current.
CREATE SEQUENCE sandbox_commits;
`,
  },
  {
    version: 3,
    name: 'running counts',
    sql: `
-- Running counts of the indexes whose count is asked on a hot path (indexes.ts \`counted\`: caps,
-- totals): count(*) reads every row under a key, 10,000 events at a partner's cap, on every
-- check. A trigger adds a +1 or -1 row per change of a row's key, which nobody else writes, so
-- writers never wait on or conflict over a shared counter; a count sums a key's rows, and
-- folds them into one when they are many (statements.ts). Ephemeral tables' counts are
-- UNLOGGED, as their rows are: a crash empties both.
CREATE TABLE sandbox_counts (idx text NOT NULL, k text NOT NULL, delta integer NOT NULL);
CREATE INDEX sandbox_counts_key ON sandbox_counts (idx, k);
CREATE UNLOGGED TABLE sandbox_ephemeral_counts (idx text NOT NULL, k text NOT NULL, delta integer NOT NULL);
CREATE INDEX sandbox_ephemeral_counts_key ON sandbox_ephemeral_counts (idx, k);
${[
  runningCount('users_by_partner', 'users', 'sandbox_counts'),
  runningCount('deliveries_by_partner', 'webhook_deliveries', 'sandbox_counts'),
  runningCount('events_by_partner', 'events', 'sandbox_counts'),
  runningCount('inbox_in_order', 'inbox_messages', 'sandbox_ephemeral_counts'),
  runningCount('sink_requests_by_sink', 'sink_requests', 'sandbox_ephemeral_counts'),
].join('')}`,
  },
  {
    version: 4,
    name: 'tenant keys',
    sql: `
-- The tenant key in every tenant table's primary key (layout.ts partnerCollections): each row
-- is one partner's for its whole life, and a table whose key starts with partner_id, with no
-- other unique constraint, can be distributed by partner (Citus) as it stands. A row is still
-- found by its id alone (the index on id) where the partner is not known.
${[
  'partners',
  'users',
  'sessions',
  'verification_codes',
  'events',
  'files',
  'webhooks',
  'webhook_deliveries',
  'webhook_labs',
  'onboardings',
  'cards',
  'transactions',
  'deposits',
  'disputes',
  'bank_accounts',
  'connect_tokens',
  'inbox_messages',
]
  .map(tenantKey)
  .join('')}`,
  },
  {
    version: 5,
    name: 'deliveries due and finished',
    sql: `
-- The dispatcher's schedule (indexes.ts deliveries_due_by_endpoint: due rows taken FOR UPDATE
-- SKIP LOCKED) and usage's count of finished deliveries (deliveries_finished_by_partner), filled
-- for the rows already there.
ALTER TABLE webhook_deliveries
  ADD COLUMN k_deliveries_due_by_endpoint text,
  ADD COLUMN o_deliveries_due_by_endpoint text,
  ADD COLUMN p_deliveries_due_by_endpoint bigint,
  ADD COLUMN k_deliveries_finished_by_partner text,
  ADD COLUMN o_deliveries_finished_by_partner text,
  ADD COLUMN p_deliveries_finished_by_partner bigint;
UPDATE webhook_deliveries SET
  k_deliveries_due_by_endpoint = CASE WHEN row->>'next_attempt_at' IS NOT NULL
    THEN partner_id || '|' || (row->>'webhook_id') END,
  o_deliveries_due_by_endpoint = coalesce(row->>'next_attempt_at', ''),
  p_deliveries_due_by_endpoint = nextval('sandbox_pos'),
  k_deliveries_finished_by_partner = CASE WHEN row->>'completed_at' IS NOT NULL
    AND row->>'status' IN ('succeeded', 'permanently_failed')
    THEN partner_id || '|' || (row->>'status') END,
  o_deliveries_finished_by_partner = coalesce(row->>'completed_at', ''),
  p_deliveries_finished_by_partner = nextval('sandbox_pos');
CREATE INDEX deliveries_due_by_endpoint ON webhook_deliveries (k_deliveries_due_by_endpoint, o_deliveries_due_by_endpoint, p_deliveries_due_by_endpoint) WHERE k_deliveries_due_by_endpoint IS NOT NULL;
CREATE INDEX deliveries_finished_by_partner ON webhook_deliveries (k_deliveries_finished_by_partner, o_deliveries_finished_by_partner, p_deliveries_finished_by_partner) WHERE k_deliveries_finished_by_partner IS NOT NULL;
`,
  },
]

/**
 * Makes (partner_id, id) the primary key of `table` (migration 4). Its text is part of a
 * released migration: never edit it; a new tenant table is created with that key.
 */
function tenantKey(table: string): string {
  return `
ALTER TABLE ${table} ALTER COLUMN partner_id SET NOT NULL, DROP CONSTRAINT ${table}_pkey,
  ADD PRIMARY KEY (partner_id, id);
CREATE INDEX ${table}_id ON ${table} (id);
DROP INDEX ${table}_partner;
`
}

/**
 * The running count of index `name` over `table` (migration 3): its trigger function, its
 * three triggers, and the counts of the rows already there. Its text is part of a released
 * migration: never edit it; a new counted index is a new migration calling it.
 */
function runningCount(name: string, table: string, counts: string): string {
  const k = `k_${name}`
  return `
CREATE FUNCTION count_${name}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.${k} IS NOT NULL THEN
    INSERT INTO ${counts} (idx, k, delta) VALUES ('${name}', OLD.${k}, -1);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.${k} IS NOT NULL THEN
    INSERT INTO ${counts} (idx, k, delta) VALUES ('${name}', NEW.${k}, 1);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER count_${name}_insert AFTER INSERT ON ${table} FOR EACH ROW
  WHEN (NEW.${k} IS NOT NULL) EXECUTE FUNCTION count_${name}();
CREATE TRIGGER count_${name}_update AFTER UPDATE ON ${table} FOR EACH ROW
  WHEN (OLD.${k} IS DISTINCT FROM NEW.${k}) EXECUTE FUNCTION count_${name}();
CREATE TRIGGER count_${name}_delete AFTER DELETE ON ${table} FOR EACH ROW
  WHEN (OLD.${k} IS NOT NULL) EXECUTE FUNCTION count_${name}();
INSERT INTO ${counts} (idx, k, delta)
  SELECT '${name}', ${k}, count(*) FROM ${table} WHERE ${k} IS NOT NULL GROUP BY ${k};
`
}
