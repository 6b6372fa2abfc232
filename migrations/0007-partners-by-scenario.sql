-- What GET /_sandbox/health reads (HAProxy asks each replica every 2 s): the number of partners,
-- and the scenarios partners name, each counted only when it is missing, rather than every
-- partner's row.
CREATE INDEX partners_in_order ON partners (inserted);
CREATE INDEX partners_by_scenario ON partners (scenario, inserted) WHERE scenario IS NOT NULL;
