-- Compact search-log rows (issue 29: at most 200 bytes an event; docs/decisions.md, "Compact
-- search-log rows"; postgres/migrations/120). A query's text is interned once per scope; an event
-- keeps the 6 random bytes of its search key as a number (the other 6 are `at`); the first hits
-- and the actor are packed bytes (analytics-codec.ts packId: a tag byte, then "doc_"/"key_"/"ses_"
-- hex tails as bytes or any other id as UTF-8; each hit's score in millionths, 4 bytes big-endian).
-- The conversions below are packId, encodeTop and rndOf written in SQL.
CREATE TABLE analytics_queries (
  id INTEGER PRIMARY KEY,
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  UNIQUE (scope, text)
);
INSERT INTO analytics_queries (scope, text) SELECT scope, query FROM search_events UNION SELECT scope, query FROM query_daily;

CREATE TABLE search_events_compact (
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  rnd INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  origin INTEGER NOT NULL,
  mode INTEGER NOT NULL,
  query_id INTEGER NOT NULL,
  filter TEXT NOT NULL,
  hits INTEGER NOT NULL,
  top_score INTEGER,
  top BLOB NOT NULL,
  took_ms INTEGER NOT NULL,
  actor BLOB,
  PRIMARY KEY (scope, at, rnd)
) WITHOUT ROWID;
INSERT INTO search_events_compact (scope, at, rnd, kind, origin, mode, query_id, filter, hits, top_score, top, took_ms, actor)
SELECT e.scope, e.at,
    (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(e.id, 9, 1)) - 1) * 4398046511104
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(e.id, 10, 1)) - 1) * 68719476736
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(e.id, 11, 1)) - 1) * 1073741824
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(e.id, 12, 1)) - 1) * 16777216
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(e.id, 13, 1)) - 1) * 262144
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(e.id, 14, 1)) - 1) * 4096
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(e.id, 15, 1)) - 1) * 64
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(e.id, 16, 1)) - 1) * 1,
    e.kind, e.origin, e.mode, q.id, coalesce(e.filter, ''), e.hits, e.top_score,
    (WITH RECURSIVE parts(n, part, rest) AS (
      SELECT 0, NULL, e.top || ' '
      UNION ALL
      SELECT n + 1, substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1) FROM parts WHERE rest <> ''
    ), heads(n, part, head) AS (
      SELECT n, part, substr(rtrim(part, '0123456789-'), 1, length(rtrim(part, '0123456789-')) - 1) FROM parts WHERE n > 0 AND part <> ''
    ), hits(n, id, score) AS (
      SELECT n, CASE WHEN substr(head, 1, 1) = '!' THEN substr(head, 2) ELSE 'doc_' || head END, CAST(substr(part, length(head) + 2) AS INTEGER) FROM heads
    )
    SELECT coalesce(unhex(group_concat(CASE WHEN substr(id, 1, 4) IN ('doc_', 'key_', 'ses_') AND length(id) BETWEEN 6 AND 128 AND length(id) % 2 = 0 AND substr(id, 5) NOT GLOB '*[^0-9a-f]*'
      THEN printf('%02X', (CASE substr(id, 1, 4) WHEN 'doc_' THEN 1 WHEN 'key_' THEN 2 ELSE 3 END) * 64 + (length(id) - 4) / 2) || substr(id, 5)
    WHEN length(CAST(id AS BLOB)) < 63 THEN printf('%02X', length(CAST(id AS BLOB))) || hex(id)
    ELSE printf('3F%04X', length(CAST(id AS BLOB))) || hex(id) END || printf('%08X', score & 4294967295), '' ORDER BY n)), X'') FROM hits),
    e.took_ms,
    CASE WHEN e.actor IS NULL THEN NULL ELSE unhex(CASE WHEN substr(e.actor, 1, 4) IN ('doc_', 'key_', 'ses_') AND length(e.actor) BETWEEN 6 AND 128 AND length(e.actor) % 2 = 0 AND substr(e.actor, 5) NOT GLOB '*[^0-9a-f]*'
      THEN printf('%02X', (CASE substr(e.actor, 1, 4) WHEN 'doc_' THEN 1 WHEN 'key_' THEN 2 ELSE 3 END) * 64 + (length(e.actor) - 4) / 2) || substr(e.actor, 5)
    WHEN length(CAST(e.actor AS BLOB)) < 63 THEN printf('%02X', length(CAST(e.actor AS BLOB))) || hex(e.actor)
    ELSE printf('3F%04X', length(CAST(e.actor AS BLOB))) || hex(e.actor) END) END
FROM search_events e JOIN analytics_queries q ON q.scope = e.scope AND q.text = e.query;

CREATE TABLE search_feedback_compact (
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  search_at INTEGER NOT NULL,
  search_rnd INTEGER NOT NULL,
  at INTEGER NOT NULL,
  type INTEGER NOT NULL,
  document_id TEXT NOT NULL,
  position INTEGER NOT NULL
);
INSERT INTO search_feedback_compact (scope, search_at, search_rnd, at, type, document_id, position)
SELECT f.scope, f.search_at,
    (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(f.search_id, 9, 1)) - 1) * 4398046511104
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(f.search_id, 10, 1)) - 1) * 68719476736
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(f.search_id, 11, 1)) - 1) * 1073741824
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(f.search_id, 12, 1)) - 1) * 16777216
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(f.search_id, 13, 1)) - 1) * 262144
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(f.search_id, 14, 1)) - 1) * 4096
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(f.search_id, 15, 1)) - 1) * 64
    + (instr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', substr(f.search_id, 16, 1)) - 1) * 1,
    f.at, f.type, f.document_id, f.position
FROM search_feedback f;

DROP TABLE search_feedback;
DROP TABLE search_events;
ALTER TABLE search_events_compact RENAME TO search_events;
ALTER TABLE search_feedback_compact RENAME TO search_feedback;
CREATE INDEX search_feedback_search ON search_feedback (scope, search_at, search_rnd);
