-- One rule model for programmed answers (docs/rules.md): response overrides and runtime faults
-- (with the counts of scenario faults) become rows of `rules`. Nothing was published with the
-- old tables, so their rows are dropped with them, not converted.

DROP TABLE overrides;
DROP TABLE runtime_faults;
DROP TABLE fault_uses;

CREATE TABLE rules (
  id text NOT NULL,
  partner_id text,
  match json NOT NULL,
  respond json,
  drop_connection boolean NOT NULL,
  decide json,
  latency_ms json,
  times bigint,
  used bigint NOT NULL,
  rate double precision,
  priority bigint NOT NULL,
  off_contract boolean NOT NULL,
  contract_problem text,
  operation_id text,
  scenario text,
  seq bigint NOT NULL,
  created_at timestamptz NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);

CREATE INDEX rules_by_partner ON rules ((coalesce(partner_id, '*')), inserted);
