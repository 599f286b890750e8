-- The rollups keep their hour and day as numbers since the epoch (hour * 3,600,000 and
-- day * 86,400,000 are the epoch ms the code works in), 4 bytes, not 8: each primary key entry is
-- 24 bytes, not 32 (scope int4 no longer padded to an int8), and the daily row with a 4-byte
-- position sum is 64 bytes, not 72 (a sum past 2^31 for one query and day would need ~20 million
-- clicks). About 4 bytes an event at a million events (docs/benchmarks.md, "Search analytics").
CREATE TABLE search_hourly_n (
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  hour INTEGER NOT NULL,
  took_ms INTEGER NOT NULL,
  searches INTEGER NOT NULL,
  zero_results INTEGER NOT NULL,
  low_score INTEGER NOT NULL,
  origin SMALLINT NOT NULL,
  PRIMARY KEY (scope, hour, origin, took_ms)
);
INSERT INTO search_hourly_n (scope, hour, took_ms, searches, zero_results, low_score, origin)
SELECT scope, (hour / 3600000)::int, took_ms, searches, zero_results, low_score, origin FROM search_hourly;
DROP TABLE search_hourly;
ALTER TABLE search_hourly_n RENAME TO search_hourly;
ALTER INDEX search_hourly_n_pkey RENAME TO search_hourly_pkey;

CREATE TABLE query_daily_n (
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  day INTEGER NOT NULL,
  query_id INTEGER NOT NULL,
  searches INTEGER NOT NULL,
  zero_results INTEGER NOT NULL,
  low_score INTEGER NOT NULL,
  clicks INTEGER NOT NULL DEFAULT 0,
  clicked_searches INTEGER NOT NULL DEFAULT 0,
  position_sum INTEGER NOT NULL DEFAULT 0,
  origin SMALLINT NOT NULL,
  PRIMARY KEY (scope, day, origin, query_id)
);
INSERT INTO query_daily_n (scope, day, query_id, searches, zero_results, low_score, clicks, clicked_searches, position_sum, origin)
SELECT scope, (day / 86400000)::int, query_id, searches, zero_results, low_score, clicks, clicked_searches, least(position_sum, 2147483647)::int, origin FROM query_daily;
DROP TABLE query_daily;
ALTER TABLE query_daily_n RENAME TO query_daily;
ALTER INDEX query_daily_n_pkey RENAME TO query_daily_pkey;
