-- Search analytics (store/analytics-types.ts; sqlite/migrations/020). A (tenant, collection) pair is interned once as a
-- small integer scope, so each logged search carries neither id; deleting the tenant deletes its
-- scopes and, through them, its searches and feedback. Times are epoch milliseconds.
CREATE TABLE analytics_scopes (
  id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  collection_id TEXT NOT NULL,
  UNIQUE (tenant_id, collection_id)
);

-- kind 0 search / 1 retrieve; origin 0 api / 1 mcp / 2 console; mode 0 hybrid / 1 lexical /
-- 2 vector; top_score in millionths; top: "id:score id:score" of the first hits
CREATE TABLE search_events (
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  at BIGINT NOT NULL,
  id TEXT NOT NULL,
  kind SMALLINT NOT NULL,
  origin SMALLINT NOT NULL,
  mode SMALLINT NOT NULL,
  query TEXT NOT NULL,
  filter TEXT,
  hits INTEGER NOT NULL,
  top_score INTEGER,
  top TEXT NOT NULL,
  took_ms INTEGER NOT NULL,
  actor TEXT,
  PRIMARY KEY (scope, at, id)
);

-- type 0 click / 1 conversion / 2 thumbs_up / 3 thumbs_down; lives as long as its search
CREATE TABLE search_feedback (
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  search_at BIGINT NOT NULL,
  search_id TEXT NOT NULL,
  at BIGINT NOT NULL,
  type SMALLINT NOT NULL,
  document_id TEXT NOT NULL,
  position INTEGER NOT NULL
);
CREATE INDEX search_feedback_search ON search_feedback (scope, search_at, search_id);

CREATE TABLE analytics_settings (
  tenant_id TEXT PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  logging BOOLEAN NOT NULL
);

-- cases made from traffic (clicked documents) are judged implicitly; hand-made ones explicitly
ALTER TABLE benchmark_cases ADD COLUMN judgment TEXT NOT NULL DEFAULT 'explicit';

-- Rollups the reports read for whole hours and days (raw events only at a window's edges):
-- the hourly latency histogram and the daily counts per query. Written with each batch; clicks
-- add to the daily counts of their search's query.
CREATE TABLE search_hourly (
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  hour BIGINT NOT NULL,
  origin SMALLINT NOT NULL,
  took_ms INTEGER NOT NULL,
  searches INTEGER NOT NULL,
  zero_results INTEGER NOT NULL,
  low_score INTEGER NOT NULL,
  PRIMARY KEY (scope, hour, origin, took_ms)
);

CREATE TABLE query_daily (
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  day BIGINT NOT NULL,
  origin SMALLINT NOT NULL,
  query TEXT NOT NULL,
  searches INTEGER NOT NULL,
  zero_results INTEGER NOT NULL,
  low_score INTEGER NOT NULL,
  clicks INTEGER NOT NULL DEFAULT 0,
  clicked_searches INTEGER NOT NULL DEFAULT 0,
  position_sum BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (scope, day, origin, query)
);
