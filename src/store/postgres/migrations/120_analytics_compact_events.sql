-- Compact search-log rows (issue 29: at most 200 bytes an event; docs/decisions.md, "Compact
-- search-log rows"; sqlite/migrations/027). A query's text is interned once per scope; an event
-- keeps the 6 random bytes of its search key as a number (the other 6 are `at`); the first hits
-- and the actor are packed bytes (analytics-codec.ts packId: a tag byte, then "doc_"/"key_"/"ses_"
-- hex tails as bytes or any other id as UTF-8; each hit's score in millionths, 4 bytes). Columns
-- run widest first so that no padding is stored, and no filter is "" (not NULL), so the usual row
-- carries no null bitmap.
CREATE TABLE analytics_queries (
  id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  UNIQUE (scope, text)
);
INSERT INTO analytics_queries (scope, text) SELECT scope, query FROM search_events UNION SELECT scope, query FROM query_daily;

CREATE FUNCTION quarry_pack_id(id TEXT) RETURNS BYTEA LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN id ~ '^(doc|key|ses)_([0-9a-f]{2}){1,62}$' THEN
      set_byte('\x00'::bytea, 0, (CASE left(id, 4) WHEN 'doc_' THEN 1 WHEN 'key_' THEN 2 ELSE 3 END) * 64 + (length(id) - 4) / 2) || decode(substr(id, 5), 'hex')
    WHEN octet_length(convert_to(id, 'UTF8')) < 63 THEN set_byte('\x00'::bytea, 0, octet_length(convert_to(id, 'UTF8'))) || convert_to(id, 'UTF8')
    ELSE '\x3f'::bytea || substring(int4send(octet_length(convert_to(id, 'UTF8'))) FROM 3 FOR 2) || convert_to(id, 'UTF8')
  END
$$;
-- the old text form: "hex:score" (the doc_ prefix left out) or "!id:score", space-separated
CREATE FUNCTION quarry_pack_top(top TEXT) RETURNS BYTEA LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(string_agg(quarry_pack_id(CASE WHEN left(r.m[1], 1) = '!' THEN substr(r.m[1], 2) ELSE 'doc_' || r.m[1] END) || int4send(r.m[2]::int), ''::bytea ORDER BY p.n), ''::bytea)
  FROM regexp_split_to_table(top, ' ') WITH ORDINALITY AS p(part, n), regexp_match(p.part, '^(.*):(-?[0-9]+)$') AS r(m)
  WHERE top <> ''
$$;
-- the random half of a 16-character base64url search key
CREATE FUNCTION quarry_key_rnd(key TEXT) RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $$
  SELECT ('x' || encode(substring(decode(translate(key, '-_', '+/'), 'base64') FROM 7 FOR 6), 'hex'))::bit(48)::bigint
$$;

CREATE TABLE search_events_compact (
  at BIGINT NOT NULL,
  rnd BIGINT NOT NULL,
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  query_id INTEGER NOT NULL,
  hits INTEGER NOT NULL,
  top_score INTEGER,
  took_ms INTEGER NOT NULL,
  kind SMALLINT NOT NULL,
  origin SMALLINT NOT NULL,
  mode SMALLINT NOT NULL,
  filter TEXT NOT NULL,
  actor BYTEA,
  top BYTEA NOT NULL,
  PRIMARY KEY (scope, at, rnd)
);
INSERT INTO search_events_compact (at, rnd, scope, query_id, hits, top_score, took_ms, kind, origin, mode, filter, actor, top)
SELECT s.at, quarry_key_rnd(s.id), s.scope, q.id, s.hits, s.top_score, s.took_ms, s.kind, s.origin, s.mode, coalesce(s.filter, ''),
       CASE WHEN s.actor IS NULL THEN NULL ELSE quarry_pack_id(s.actor) END, quarry_pack_top(s.top)
FROM search_events s JOIN analytics_queries q ON q.scope = s.scope AND q.text = s.query;

CREATE TABLE search_feedback_compact (
  search_at BIGINT NOT NULL,
  search_rnd BIGINT NOT NULL,
  at BIGINT NOT NULL,
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  type SMALLINT NOT NULL,
  document_id TEXT NOT NULL
);
INSERT INTO search_feedback_compact (search_at, search_rnd, at, scope, position, type, document_id)
SELECT search_at, quarry_key_rnd(search_id), at, scope, position, type, document_id FROM search_feedback;

DROP TABLE search_feedback;
DROP TABLE search_events;
ALTER TABLE search_events_compact RENAME TO search_events;
ALTER INDEX search_events_compact_pkey RENAME TO search_events_pkey;
ALTER TABLE search_feedback_compact RENAME TO search_feedback;
CREATE INDEX search_feedback_search ON search_feedback (scope, search_at, search_rnd);
DROP FUNCTION quarry_pack_top(TEXT);
DROP FUNCTION quarry_pack_id(TEXT);
DROP FUNCTION quarry_key_rnd(TEXT);
