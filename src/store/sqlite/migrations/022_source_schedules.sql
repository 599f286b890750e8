-- When a crawled data source syncs again (issue 30). next_run_at moves by compare-and-set, so one
-- process runs each due time however many schedulers look.
CREATE TABLE source_schedules (
  data_source_id TEXT PRIMARY KEY REFERENCES data_sources(id) ON DELETE CASCADE,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  schedule TEXT NOT NULL,
  next_run_at TEXT NOT NULL,
  last_run_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX source_schedules_due ON source_schedules(next_run_at);
