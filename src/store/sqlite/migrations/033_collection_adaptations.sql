-- Adaptation jobs of collections (POST /collections/{id}/adapt in the background, and the automatic
-- ones): status, progress and, once completed, the same answer the synchronous call gives. They go
-- with their collection and their tenant.
CREATE TABLE collection_adaptations (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  collection_id TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  -- request (POST .../adapt in the background), automatic (the collection reached the size) or tuning (adapt_model)
  trigger TEXT NOT NULL DEFAULT 'request',
  apply INTEGER NOT NULL DEFAULT 0,
  -- queued -> running -> applying -> completed; failed; cancelled (while queued or running)
  status TEXT NOT NULL,
  phase TEXT NOT NULL DEFAULT 'queued',
  folds_done INTEGER NOT NULL DEFAULT 0,
  result TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
CREATE INDEX collection_adaptations_collection ON collection_adaptations(tenant_id, collection_id, created_at);
CREATE INDEX collection_adaptations_unfinished ON collection_adaptations(status) WHERE status IN ('queued', 'running', 'applying');
