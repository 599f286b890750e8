-- When a crawled data source syncs again (sqlite/migrations/022).
CREATE TABLE source_schedules (
  tenant_id TEXT NOT NULL,
  data_source_id TEXT NOT NULL,
  schedule TEXT NOT NULL,
  next_run_at TEXT NOT NULL,
  last_run_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, data_source_id),
  FOREIGN KEY (tenant_id, data_source_id) REFERENCES data_sources (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX source_schedules_due ON source_schedules (next_run_at);
