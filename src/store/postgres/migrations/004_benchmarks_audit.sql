-- Benchmark suites, cases and runs (sqlite/migrations/004) and the audit trail (010). `seq`
-- keeps insertion order where SQLite used its rowid to break ties of equal timestamps.

CREATE TABLE benchmark_suites (
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  -- no foreign key on purpose: deleting a collection keeps its suites and their history
  collection_id TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  top_k INTEGER NOT NULL,
  origin TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX benchmark_suites_tenant ON benchmark_suites (tenant_id, created_at, seq);

CREATE TABLE benchmark_cases (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  suite_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  query TEXT NOT NULL,
  relevant_document_ids TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, suite_id) REFERENCES benchmark_suites (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX benchmark_cases_suite ON benchmark_cases (tenant_id, suite_id, position);

CREATE TABLE benchmark_runs (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  suite_id TEXT NOT NULL,
  status TEXT NOT NULL,
  query_count INTEGER NOT NULL,
  top_k INTEGER NOT NULL,
  metrics TEXT NOT NULL DEFAULT '{}',
  results TEXT NOT NULL DEFAULT '[]',
  error TEXT,
  created_at TEXT NOT NULL,
  completed_at TEXT,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, suite_id) REFERENCES benchmark_suites (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX benchmark_runs_suite ON benchmark_runs (tenant_id, suite_id, created_at, seq);

-- No foreign key to tenants on purpose: the record of a workspace's deletion outlives it until
-- retention prunes it.
CREATE TABLE audit_log (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  at TEXT NOT NULL,
  actor_type TEXT NOT NULL,
  actor_id TEXT,
  action TEXT NOT NULL,
  target_type TEXT,
  target_id TEXT,
  detail TEXT NOT NULL DEFAULT '{}',
  address TEXT,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX audit_log_by_time ON audit_log (tenant_id, at DESC, id DESC);
CREATE INDEX audit_log_prune ON audit_log (at);
