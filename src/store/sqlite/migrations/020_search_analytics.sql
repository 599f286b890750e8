-- Search analytics (store/analytics-types.ts). A (tenant, collection) pair is interned once as a
-- small integer scope, so each logged search carries neither id; deleting the tenant deletes its
-- scopes and, through them, its searches and feedback. Times are epoch milliseconds.
CREATE TABLE analytics_scopes (
  id INTEGER PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  collection_id TEXT NOT NULL,
  UNIQUE (tenant_id, collection_id)
);

-- kind 0 search / 1 retrieve; origin 0 api / 1 mcp / 2 console; mode 0 hybrid / 1 lexical /
-- 2 vector; top_score in millionths; top: "id:score id:score" of the first hits
CREATE TABLE search_events (
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  id TEXT NOT NULL,
  kind INTEGER NOT NULL,
  origin INTEGER NOT NULL,
  mode INTEGER NOT NULL,
  query TEXT NOT NULL,
  filter TEXT,
  hits INTEGER NOT NULL,
  top_score INTEGER,
  top TEXT NOT NULL,
  took_ms INTEGER NOT NULL,
  actor TEXT,
  PRIMARY KEY (scope, at, id)
) WITHOUT ROWID;

-- type 0 click / 1 conversion / 2 thumbs_up / 3 thumbs_down; lives as long as its search
CREATE TABLE search_feedback (
  scope INTEGER NOT NULL REFERENCES analytics_scopes(id) ON DELETE CASCADE,
  search_at INTEGER NOT NULL,
  search_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  type INTEGER NOT NULL,
  document_id TEXT NOT NULL,
  position INTEGER NOT NULL
);
CREATE INDEX search_feedback_search ON search_feedback (scope, search_at, search_id);

CREATE TABLE analytics_settings (
  tenant_id TEXT PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  logging INTEGER NOT NULL
);

-- cases made from traffic (clicked documents) are judged implicitly; hand-made ones explicitly
ALTER TABLE benchmark_cases ADD COLUMN judgment TEXT NOT NULL DEFAULT 'explicit';
