-- The sandbox state: one table per entity, typed columns (src/state/postgres/columns.ts).

CREATE FUNCTION sandbox_hour(timestamptz) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_char($1 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24') $$;
CREATE FUNCTION sandbox_day(timestamptz) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_char($1 AT TIME ZONE 'UTC', 'YYYY-MM-DD') $$;

CREATE TABLE meta (
  id text NOT NULL CHECK (id IN ('sandbox')),
  session_signing_key text NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);

CREATE TABLE partners (
  id text NOT NULL,
  name text NOT NULL,
  display_name text NOT NULL,
  slug text NOT NULL,
  api_key text NOT NULL,
  api_secret_hash text NOT NULL,
  allowed_origins json NOT NULL,
  webhook_url text,
  scopes json NOT NULL,
  rate_limit bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'suspended', 'revoked')),
  contact_email text NOT NULL,
  contact_name text NOT NULL,
  config json NOT NULL,
  scenario text,
  auto_complete boolean,
  clock json,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);

CREATE TABLE users (
  id text NOT NULL,
  partner_id text NOT NULL,
  email text NOT NULL,
  phone_number text NOT NULL,
  first_name text NOT NULL,
  last_name text NOT NULL,
  date_of_birth text NOT NULL,
  address json NOT NULL,
  secondary_address json NOT NULL,
  provider_consumer_id text,
  kyc_status text NOT NULL,
  metadata json NOT NULL,
  is_active boolean NOT NULL,
  password_hash text NOT NULL,
  ssn_last4 text NOT NULL,
  profile_picture_url text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id) REFERENCES partners (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX users_by_id ON users (id);

CREATE TABLE sessions (
  id text NOT NULL,
  partner_id text NOT NULL,
  user_id text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoked_reason text,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id, user_id) REFERENCES users (partner_id, id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX sessions_by_id ON sessions (id);

CREATE TABLE verification_codes (
  id text NOT NULL,
  partner_id text NOT NULL,
  user_id text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('login', 'password_reset', 'reset_token')),
  code_hash text NOT NULL,
  expires_at timestamptz NOT NULL,
  attempts bigint NOT NULL,
  ended_at timestamptz,
  ended_reason text CHECK (ended_reason IN ('used', 'too_many_attempts', 'replaced')),
  created_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id, user_id) REFERENCES users (partner_id, id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX verification_codes_by_id ON verification_codes (id);

CREATE TABLE events (
  id text NOT NULL,
  partner_id text NOT NULL,
  type text NOT NULL,
  created_at timestamptz NOT NULL,
  data json NOT NULL,
  chosen boolean,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id) REFERENCES partners (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX events_by_id ON events (id);

CREATE TABLE files (
  id text NOT NULL,
  partner_id text NOT NULL,
  user_id text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('profile_picture')),
  content_type text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
  size bigint NOT NULL,
  created_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id, user_id) REFERENCES users (partner_id, id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX files_by_id ON files (id);

CREATE TABLE file_contents (
  id text NOT NULL,
  partner_id text NOT NULL,
  content bytea NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id)
);
CREATE INDEX file_contents_by_id ON file_contents (id);

CREATE TABLE webhooks (
  id text NOT NULL,
  partner_id text NOT NULL,
  url text NOT NULL,
  events json NOT NULL,
  enabled boolean NOT NULL,
  description text,
  "primary" boolean NOT NULL,
  secret text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id) REFERENCES partners (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX webhooks_by_id ON webhooks (id);

CREATE TABLE webhook_deliveries (
  id text NOT NULL,
  partner_id text NOT NULL,
  webhook_id text NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  url text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'permanently_failed')),
  attempts json NOT NULL,
  next_attempt_at timestamptz,
  attempt_due_at timestamptz,
  redelivery_of text,
  lab text CHECK (lab IN ('duplicate', 'out_of_order', 'forged_signature', 'replay')),
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id) REFERENCES partners (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX webhook_deliveries_by_id ON webhook_deliveries (id);

CREATE TABLE webhook_labs (
  id text NOT NULL,
  partner_id text NOT NULL,
  armed_at timestamptz NOT NULL,
  checks json NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id) REFERENCES partners (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX webhook_labs_by_id ON webhook_labs (id);

CREATE TABLE onboardings (
  id text NOT NULL,
  partner_id text NOT NULL,
  user_id text NOT NULL,
  consumer_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'in_progress', 'manual_review', 'completed', 'failed', 'canceled')),
  consumer_kyc_status text NOT NULL CHECK (consumer_kyc_status IN ('pending', 'approved', 'rejected')),
  access_token_hash text NOT NULL,
  access_token_expires_at timestamptz NOT NULL,
  superseded_token_hashes json,
  applicant json NOT NULL,
  applicant_fingerprint text NOT NULL,
  decision json NOT NULL,
  steps json NOT NULL,
  underwriting_answers json,
  redirect_uri text,
  flow_result text CHECK (flow_result IN ('pass', 'fail')),
  completion json,
  failure_reason text,
  review_resolves_at timestamptz,
  card_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id, user_id) REFERENCES users (partner_id, id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX onboardings_by_id ON onboardings (id);

CREATE TABLE cards (
  id text NOT NULL,
  partner_id text NOT NULL,
  user_id text NOT NULL,
  onboarding_id text NOT NULL,
  brand text NOT NULL CHECK (brand IN ('visa')),
  last4 text NOT NULL,
  exp_month bigint NOT NULL,
  exp_year bigint NOT NULL,
  cardholder_name text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'frozen', 'closed')),
  currency text NOT NULL CHECK (currency IN ('USD')),
  available_balance_cents bigint NOT NULL,
  ledger_balance_cents bigint NOT NULL,
  product_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id, user_id) REFERENCES users (partner_id, id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX cards_by_id ON cards (id);

CREATE TABLE transactions (
  id text NOT NULL,
  partner_id text NOT NULL,
  user_id text NOT NULL,
  card_id text NOT NULL,
  type text NOT NULL CHECK (type IN ('funding', 'deposit', 'purchase', 'refund', 'dispute_credit', 'dispute_reversal')),
  status text NOT NULL CHECK (status IN ('pending', 'posted', 'declined', 'reversed', 'failed')),
  direction text NOT NULL CHECK (direction IN ('credit', 'debit')),
  amount_cents bigint NOT NULL,
  currency text NOT NULL CHECK (currency IN ('USD')),
  description text NOT NULL,
  merchant json,
  deposit_id text,
  dispute_id text,
  original_transaction_id text,
  decline_reason text,
  available_balance_after_cents bigint NOT NULL,
  ledger_balance_after_cents bigint NOT NULL,
  refunded_cents bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  posted_at timestamptz,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id, card_id) REFERENCES cards (partner_id, id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX transactions_by_id ON transactions (id);

CREATE TABLE deposits (
  id text NOT NULL,
  partner_id text NOT NULL,
  user_id text NOT NULL,
  card_id text NOT NULL,
  external_bank_account_id text NOT NULL,
  amount_cents bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  failure_reason text,
  decided_outcome text NOT NULL CHECK (decided_outcome IN ('succeeded', 'failed')),
  decided_reason text,
  transaction_id text NOT NULL,
  settles_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id, card_id) REFERENCES cards (partner_id, id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX deposits_by_id ON deposits (id);

CREATE TABLE disputes (
  id text NOT NULL,
  partner_id text NOT NULL,
  user_id text NOT NULL,
  card_id text NOT NULL,
  transaction_id text NOT NULL,
  reason text NOT NULL,
  description text,
  amount_cents bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('under_review', 'won', 'lost')),
  evidence json NOT NULL,
  provisional_credit_transaction_id text,
  reversal_transaction_id text,
  decided_outcome text NOT NULL CHECK (decided_outcome IN ('won', 'lost')),
  resolves_at timestamptz NOT NULL,
  resolved_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id, transaction_id) REFERENCES transactions (partner_id, id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX disputes_by_id ON disputes (id);

CREATE TABLE bank_accounts (
  id text NOT NULL,
  partner_id text NOT NULL,
  user_id text NOT NULL,
  institution_id text NOT NULL,
  institution_name text NOT NULL,
  account_name text NOT NULL,
  account_type text NOT NULL CHECK (account_type IN ('checking', 'savings')),
  account_mask text NOT NULL,
  routing_number text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'removed')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id, user_id) REFERENCES users (partner_id, id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX bank_accounts_by_id ON bank_accounts (id);

CREATE TABLE connect_tokens (
  id text NOT NULL,
  partner_id text NOT NULL,
  user_id text NOT NULL,
  token_hash text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  bank_account_id text,
  created_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id, user_id) REFERENCES users (partner_id, id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX connect_tokens_by_id ON connect_tokens (id);

CREATE TABLE scenarios (
  id text NOT NULL,
  document json NOT NULL,
  loaded_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);

CREATE TABLE overrides (
  id text NOT NULL,
  partner_id text,
  match json NOT NULL,
  respond json NOT NULL,
  remaining bigint,
  priority bigint NOT NULL,
  off_contract boolean NOT NULL,
  contract_problem text,
  operation_id text,
  seq bigint NOT NULL,
  created_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);

CREATE UNLOGGED TABLE inbox_messages (
  id text NOT NULL,
  partner_id text NOT NULL,
  user_id text NOT NULL,
  "to" text NOT NULL,
  channel text NOT NULL CHECK (channel IN ('email')),
  kind text NOT NULL CHECK (kind IN ('login_code', 'password_reset_code')),
  subject text NOT NULL,
  body text NOT NULL,
  code text,
  code_id text,
  code_ended text CHECK (code_ended IN ('used', 'expired')),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (partner_id, id)
);
CREATE INDEX inbox_messages_by_id ON inbox_messages (id);

CREATE UNLOGGED TABLE clocks (
  id text NOT NULL CHECK (id IN ('sandbox')),
  offset_ms bigint NOT NULL,
  frozen_at bigint,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);

CREATE UNLOGGED TABLE sinks (
  id text NOT NULL,
  secret text,
  fail_next bigint NOT NULL,
  fail_status bigint NOT NULL,
  delay_ms bigint NOT NULL,
  signature_header text NOT NULL,
  seq bigint NOT NULL,
  bytes bigint NOT NULL,
  used bigint NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);

CREATE UNLOGGED TABLE sink_requests (
  id text NOT NULL,
  sink text NOT NULL,
  number bigint NOT NULL,
  received_at timestamptz NOT NULL,
  method text NOT NULL,
  headers json NOT NULL,
  body text NOT NULL,
  signature json,
  responded_status bigint NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);

CREATE UNLOGGED TABLE request_journal (
  id text NOT NULL,
  seq text NOT NULL,
  partner_id text,
  entry json NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);

CREATE UNLOGGED TABLE request_captures (
  id text NOT NULL,
  seq text NOT NULL,
  capture json,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);

CREATE UNLOGGED TABLE runtime_faults (
  id text NOT NULL,
  partner_id text,
  rule json NOT NULL,
  remaining bigint,
  created_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);

CREATE UNLOGGED TABLE fault_uses (
  id text NOT NULL,
  count bigint NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);

CREATE INDEX partners_by_api_key ON partners ((api_key), inserted);

CREATE INDEX users_by_partner ON users ((partner_id), inserted);

CREATE INDEX users_by_email ON users ((lower(email)), inserted);

CREATE INDEX sessions_by_user ON sessions ((user_id), inserted);

CREATE INDEX webhooks_by_partner ON webhooks ((partner_id), inserted);

CREATE INDEX deliveries_by_webhook ON webhook_deliveries ((webhook_id), created_at, inserted);

CREATE INDEX deliveries_by_partner ON webhook_deliveries ((partner_id), inserted);

CREATE INDEX deliveries_by_event ON webhook_deliveries ((event_id), inserted);

CREATE INDEX deliveries_done_by_partner ON webhook_deliveries ((partner_id), created_at, inserted) WHERE next_attempt_at IS NULL;

CREATE INDEX deliveries_pending_by_event ON webhook_deliveries ((event_id), inserted) WHERE next_attempt_at IS NOT NULL;

CREATE INDEX deliveries_due_by_endpoint ON webhook_deliveries ((partner_id || '|' || webhook_id), next_attempt_at, inserted) WHERE next_attempt_at IS NOT NULL;

CREATE INDEX deliveries_finished_by_partner ON webhook_deliveries ((partner_id || '|' || status), completed_at, inserted) WHERE completed_at IS NOT NULL AND status IN ('succeeded', 'permanently_failed');

CREATE INDEX events_by_partner ON events ((partner_id), inserted);

CREATE INDEX onboardings_by_user ON onboardings ((user_id), inserted);

CREATE INDEX cards_by_user ON cards ((user_id), inserted);

CREATE INDEX transactions_by_user ON transactions ((user_id), created_at, inserted);

CREATE INDEX deposits_by_user ON deposits ((user_id), created_at, inserted);

CREATE INDEX disputes_by_user ON disputes ((user_id), created_at, inserted);

CREATE INDEX bank_accounts_by_user ON bank_accounts ((user_id), inserted);

CREATE INDEX onboardings_in_review ON onboardings (inserted) WHERE status = 'manual_review';

CREATE INDEX onboardings_in_review_by_partner ON onboardings ((partner_id), inserted) WHERE status = 'manual_review';

CREATE INDEX deposits_pending ON deposits (inserted) WHERE status = 'pending';

CREATE INDEX deposits_pending_by_partner ON deposits ((partner_id), inserted) WHERE status = 'pending';

CREATE INDEX disputes_under_review ON disputes (inserted) WHERE status = 'under_review';

CREATE INDEX disputes_under_review_by_partner ON disputes ((partner_id), inserted) WHERE status = 'under_review';

CREATE INDEX overrides_by_partner ON overrides ((coalesce(partner_id, '*')), inserted);

CREATE INDEX codes_by_user ON verification_codes ((user_id), inserted);

CREATE INDEX open_codes_by_user ON verification_codes ((user_id || '|' || purpose), inserted) WHERE ended_at IS NULL;

CREATE INDEX codes_by_end_hour ON verification_codes ((partner_id || '|' || sandbox_hour(expires_at)), inserted);

CREATE INDEX sessions_by_end_hour ON sessions ((partner_id || '|' || sandbox_hour(coalesce(revoked_at, expires_at))), inserted);

CREATE INDEX events_by_day ON events ((partner_id || '|' || sandbox_day(created_at)), inserted);

CREATE INDEX deliveries_by_day ON webhook_deliveries ((partner_id || '|' || sandbox_day(created_at)), inserted);

CREATE INDEX inbox_in_order ON inbox_messages (inserted);

CREATE INDEX inbox_by_email ON inbox_messages ((lower("to")), inserted);

CREATE INDEX inbox_by_partner ON inbox_messages ((partner_id), inserted);

CREATE INDEX inbox_by_live_code ON inbox_messages ((code_id), inserted) WHERE code IS NOT NULL AND code_id IS NOT NULL;

CREATE INDEX inbox_live_codes_by_partner ON inbox_messages ((partner_id), expires_at, inserted) WHERE code IS NOT NULL;

CREATE INDEX sink_requests_by_sink ON sink_requests ((sink), inserted);

CREATE INDEX journal_by_partner ON request_journal ((partner_id), seq, inserted) WHERE partner_id IS NOT NULL;

CREATE INDEX runtime_faults_in_order ON runtime_faults (inserted);

-- What the sandbox keeps about itself: the seed a reset goes back to.
CREATE TABLE sandbox_settings (name text PRIMARY KEY, value json NOT NULL);
-- Counters shared by every replica (a partner's rate limit window): not durable.
CREATE UNLOGGED TABLE sandbox_counters (
  name text PRIMARY KEY,
  win bigint NOT NULL,
  count bigint NOT NULL
);
