-- The daily per-query rollup keyed by the interned query (027): narrower rows, and the per-query
-- report groups by an integer, joining the texts only for the groups it answers.
CREATE TABLE query_daily_compact (
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  day INTEGER NOT NULL,
  origin INTEGER NOT NULL,
  query_id INTEGER NOT NULL,
  searches INTEGER NOT NULL,
  zero_results INTEGER NOT NULL,
  low_score INTEGER NOT NULL,
  clicks INTEGER NOT NULL DEFAULT 0,
  clicked_searches INTEGER NOT NULL DEFAULT 0,
  position_sum INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (scope, day, origin, query_id)
) WITHOUT ROWID;
INSERT INTO query_daily_compact (scope, day, origin, query_id, searches, zero_results, low_score, clicks, clicked_searches, position_sum)
SELECT d.scope, d.day, d.origin, q.id, d.searches, d.zero_results, d.low_score, d.clicks, d.clicked_searches, d.position_sum
FROM query_daily d JOIN analytics_queries q ON q.scope = d.scope AND q.text = d.query;
DROP TABLE query_daily;
ALTER TABLE query_daily_compact RENAME TO query_daily;
