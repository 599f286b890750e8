-- Adaptation jobs of collections (sqlite/migrations/033). `seq` breaks ties of equal timestamps in
-- insertion order, as SQLite's rowid does.

CREATE TABLE collection_adaptations (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  collection_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  -- request (POST .../adapt in the background), automatic (the collection reached the size) or tuning (adapt_model)
  trigger TEXT NOT NULL DEFAULT 'request',
  apply BOOLEAN NOT NULL DEFAULT FALSE,
  -- queued -> running -> applying -> completed; failed; cancelled (while queued or running)
  status TEXT NOT NULL,
  phase TEXT NOT NULL DEFAULT 'queued',
  folds_done INTEGER NOT NULL DEFAULT 0,
  result TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, collection_id) REFERENCES collections (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX collection_adaptations_collection ON collection_adaptations (tenant_id, collection_id, created_at, seq);
CREATE INDEX collection_adaptations_unfinished ON collection_adaptations (status) WHERE status IN ('queued', 'running', 'applying');
