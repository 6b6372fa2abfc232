-- A partner's users are found by the primary key (partner_id, id), not an index of their own.
-- The foreign keys to users check (partner_id, id): before PostgreSQL had statistics, the plan
-- of that check could take users_by_partner (the same cost) and read every user of the partner
-- for each session, code, onboarding or card written, and SERIALIZABLE then locked every page
-- of users it read, failing the transactions that wrote any user meanwhile.
DROP INDEX users_by_partner;
