-- Benchmark suites (a collection and its question set), their cases and their runs.
-- collection_id has no foreign key on purpose: deleting a collection keeps its suites and their
-- history; running such a suite records a failed run that says why.
CREATE TABLE benchmark_suites (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  collection_id TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  top_k INTEGER NOT NULL,
  -- where the cases came from (e.g. {"dataset":"scifact","split":"test"}); {} for hand-made suites
  origin TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL
);
CREATE INDEX benchmark_suites_tenant ON benchmark_suites(tenant_id, created_at);

CREATE TABLE benchmark_cases (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  suite_id TEXT NOT NULL REFERENCES benchmark_suites(id) ON DELETE CASCADE,
  -- order of the cases as created
  position INTEGER NOT NULL,
  query TEXT NOT NULL,
  relevant_document_ids TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX benchmark_cases_suite ON benchmark_cases(suite_id, position);

CREATE TABLE benchmark_runs (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  suite_id TEXT NOT NULL REFERENCES benchmark_suites(id) ON DELETE CASCADE,
  -- running -> completed | failed
  status TEXT NOT NULL,
  query_count INTEGER NOT NULL,
  top_k INTEGER NOT NULL,
  metrics TEXT NOT NULL DEFAULT '{}',
  results TEXT NOT NULL DEFAULT '[]',
  error TEXT,
  created_at TEXT NOT NULL,
  completed_at TEXT
);
CREATE INDEX benchmark_runs_suite ON benchmark_runs(suite_id, created_at);
