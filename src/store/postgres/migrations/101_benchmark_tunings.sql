-- Tuning jobs of benchmark suites (sqlite/migrations/015). Numbered after the crawls so every
-- database, new or upgraded, applies the migrations in the same order.

CREATE TABLE benchmark_tunings (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  suite_id TEXT NOT NULL,
  collection_id TEXT NOT NULL,
  -- queued -> running -> completed | failed | cancelled
  status TEXT NOT NULL,
  apply BOOLEAN NOT NULL DEFAULT FALSE,
  phase TEXT NOT NULL DEFAULT 'queued',
  cases_done INTEGER NOT NULL DEFAULT 0,
  cases_total INTEGER NOT NULL,
  result TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, suite_id) REFERENCES benchmark_suites (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX benchmark_tunings_suite ON benchmark_tunings (tenant_id, suite_id, created_at, seq);
CREATE INDEX benchmark_tunings_unfinished ON benchmark_tunings (status) WHERE status IN ('queued', 'running');
