-- A partner's production names (issue 41): the signature header's name and the provider's
-- word in field names, in place of the spec's placeholders. NULL: the sandbox's.
ALTER TABLE partners ADD COLUMN names json;
