-- Tuning jobs of benchmark suites (POST /benchmarks/{id}/tune in the background): status,
-- progress and, once completed, the same answer the synchronous call gives. They go with their
-- suite and their tenant.
CREATE TABLE benchmark_tunings (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  suite_id TEXT NOT NULL REFERENCES benchmark_suites(id) ON DELETE CASCADE,
  collection_id TEXT NOT NULL,
  -- queued -> running -> completed | failed | cancelled
  status TEXT NOT NULL,
  apply INTEGER NOT NULL DEFAULT 0,
  phase TEXT NOT NULL DEFAULT 'queued',
  cases_done INTEGER NOT NULL DEFAULT 0,
  cases_total INTEGER NOT NULL,
  result TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
CREATE INDEX benchmark_tunings_suite ON benchmark_tunings(tenant_id, suite_id, created_at);
CREATE INDEX benchmark_tunings_unfinished ON benchmark_tunings(status) WHERE status IN ('queued', 'running');
