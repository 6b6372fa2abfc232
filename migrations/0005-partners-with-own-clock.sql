-- The partners whose clock is their own: the control plane, the public pages and each sweep
-- read these before reading any time, so their cost follows these few rows, not every partner.
CREATE INDEX partners_with_own_clock ON partners (inserted) WHERE clock IS NOT NULL;
