-- The daily per-query rollup keyed by the interned query (120): narrower rows, and the per-query
-- report groups by an integer, joining the texts only for the groups it answers.
CREATE TABLE query_daily_compact (
  day BIGINT NOT NULL,
  position_sum BIGINT NOT NULL DEFAULT 0,
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  query_id INTEGER NOT NULL,
  searches INTEGER NOT NULL,
  zero_results INTEGER NOT NULL,
  low_score INTEGER NOT NULL,
  clicks INTEGER NOT NULL DEFAULT 0,
  clicked_searches INTEGER NOT NULL DEFAULT 0,
  origin SMALLINT NOT NULL,
  PRIMARY KEY (scope, day, origin, query_id)
);
INSERT INTO query_daily_compact (day, position_sum, scope, query_id, searches, zero_results, low_score, clicks, clicked_searches, origin)
SELECT d.day, d.position_sum, d.scope, q.id, d.searches, d.zero_results, d.low_score, d.clicks, d.clicked_searches, d.origin
FROM query_daily d JOIN analytics_queries q ON q.scope = d.scope AND q.text = d.query;
DROP TABLE query_daily;
ALTER TABLE query_daily_compact RENAME TO query_daily;
ALTER INDEX query_daily_compact_pkey RENAME TO query_daily_pkey;
