-- What a new partner's slug is checked against: the partners whose slug has the same stem (the
-- slug without a trailing "-<number>"), rather than every partner's row.
CREATE INDEX partners_by_slug_stem ON partners ((regexp_replace(slug, '-[0-9]+$', '')), inserted);
