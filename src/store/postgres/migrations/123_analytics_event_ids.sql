-- Search-log rows of at most 200 bytes an event (issue 29; docs/decisions.md, "Compact search-log
-- rows"). An event's key is one number, `id` = its epoch ms * 2^21 + the first 21 bits of the random
-- half of its search key (analytics-codec.ts eventIdOf), so the primary key (scope int4, id int8)
-- is a 24-byte index tuple, not 32 (the (scope int4, at int8, rnd) key pads `scope` to 8), the heap
-- row is 8 bytes narrower, and `at` is `id >> 21`, so the time ranges of the reports are ranges of
-- the key. Search ids already handed out resolve: the number is derived from the same bytes.
-- The actor is interned per scope like the query text (0: no actor, so the usual row has no null
-- bitmap), 4 bytes instead of a 13-byte packed id. Each first hit's score is 2 bytes, the
-- calibrated score in 65,535ths clamped to 0..1, not 4 bytes of millionths (encodeTop with
-- scoreBytes 2; the best hit's exact score is top_score). Together: 112 bytes a row with three
-- hits, not 136 (24-byte header, 8-byte alignment).
CREATE FUNCTION quarry_top_scores16(top BYTEA) RETURNS BYTEA LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  out BYTEA := ''::bytea;
  i INTEGER := 0;
  n INTEGER;
  tag INTEGER;
  m BIGINT;
BEGIN
  WHILE i < length(top) LOOP
    -- a packed id (analytics-codec.ts packId): the tag, then n bytes, or a two-byte length first
    tag := get_byte(top, i);
    n := tag & 63;
    IF tag >> 6 = 0 AND n = 63 THEN n := 2 + (get_byte(top, i + 1) << 8 | get_byte(top, i + 2)); END IF;
    m := (get_byte(top, i + 1 + n)::bigint << 24) | (get_byte(top, i + 2 + n) << 16) | (get_byte(top, i + 3 + n) << 8) | get_byte(top, i + 4 + n);
    IF m >= 2147483648 THEN m := m - 4294967296; END IF;
    out := out || substring(top FROM i + 1 FOR 1 + n) || substring(int4send(round(greatest(0, least(1000000, m)) * 65535 / 1000000.0)::int) FROM 3 FOR 2);
    i := i + 1 + n + 4;
  END LOOP;
  RETURN out;
END
$$;
CREATE TABLE analytics_actors (
  id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  actor BYTEA NOT NULL,
  UNIQUE (scope, actor)
);
INSERT INTO analytics_actors (scope, actor) SELECT DISTINCT scope, actor FROM search_events WHERE actor IS NOT NULL;

CREATE TABLE search_events_keyed (
  id BIGINT NOT NULL,
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  query_id INTEGER NOT NULL,
  actor INTEGER NOT NULL,
  hits INTEGER NOT NULL,
  top_score INTEGER,
  took_ms INTEGER NOT NULL,
  kind SMALLINT NOT NULL,
  origin SMALLINT NOT NULL,
  mode SMALLINT NOT NULL,
  filter TEXT NOT NULL,
  top BYTEA NOT NULL,
  PRIMARY KEY (scope, id)
);
-- two old events of one scope and millisecond whose random halves share 21 bits keep the first
INSERT INTO search_events_keyed (id, scope, query_id, actor, hits, top_score, took_ms, kind, origin, mode, filter, top)
SELECT (s.at << 21) | (s.rnd >> 27), s.scope, s.query_id, coalesce(a.id, 0), s.hits, s.top_score, s.took_ms, s.kind, s.origin, s.mode, s.filter, quarry_top_scores16(s.top)
FROM search_events s LEFT JOIN analytics_actors a ON a.scope = s.scope AND a.actor = s.actor
ORDER BY s.scope, s.at, s.rnd
ON CONFLICT DO NOTHING;

CREATE TABLE search_feedback_keyed (
  search BIGINT NOT NULL,
  at BIGINT NOT NULL,
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  type SMALLINT NOT NULL,
  document_id TEXT NOT NULL
);
INSERT INTO search_feedback_keyed (search, at, scope, position, type, document_id)
SELECT (search_at << 21) | (search_rnd >> 27), at, scope, position, type, document_id FROM search_feedback;

DROP TABLE search_feedback;
DROP TABLE search_events;
ALTER TABLE search_events_keyed RENAME TO search_events;
ALTER INDEX search_events_keyed_pkey RENAME TO search_events_pkey;
ALTER TABLE search_feedback_keyed RENAME TO search_feedback;
CREATE INDEX search_feedback_search ON search_feedback (scope, search);
DROP FUNCTION quarry_top_scores16(BYTEA);
