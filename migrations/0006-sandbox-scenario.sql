-- The sandbox-wide scenario (--scenario, PUT /_sandbox/scenario): one row, the chosen scenario's
-- document, which every replica reads with the sandbox clock's row before it decides anything.
-- Not durable state, as the sandbox clock is not: a reset or a restore leaves it as it is.
CREATE UNLOGGED TABLE sandbox_scenario (
  id text NOT NULL CHECK (id IN ('sandbox')),
  name text NOT NULL,
  document json NOT NULL,
  inserted bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id)
);
