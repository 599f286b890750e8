-- Re-crawls that do only the work that changed (sqlite/migrations/020).

CREATE TABLE crawl_page_outcomes (
  tenant_id TEXT NOT NULL,
  job_id TEXT NOT NULL,
  data_source_id TEXT NOT NULL,
  url TEXT NOT NULL,
  -- new | changed | unchanged | removed | failed
  outcome TEXT NOT NULL,
  http_status INTEGER,
  at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, job_id, url),
  FOREIGN KEY (tenant_id, job_id) REFERENCES crawl_jobs (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, data_source_id) REFERENCES data_sources (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE crawl_page_misses (
  tenant_id TEXT NOT NULL,
  data_source_id TEXT NOT NULL,
  url TEXT NOT NULL,
  misses INTEGER NOT NULL DEFAULT 0,
  stale_since TEXT,
  reason TEXT,
  -- the crawl job that counted the latest miss: a second attempt of that job does not count again
  job_id TEXT,
  PRIMARY KEY (tenant_id, data_source_id, url),
  FOREIGN KEY (tenant_id, data_source_id) REFERENCES data_sources (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE document_text_hashes (
  tenant_id TEXT NOT NULL,
  document_id TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  -- tenant_id leads every key, as Citus requires of a table distributed by it
  PRIMARY KEY (tenant_id, document_id),
  FOREIGN KEY (tenant_id, document_id) REFERENCES documents (tenant_id, id) ON DELETE CASCADE
);
