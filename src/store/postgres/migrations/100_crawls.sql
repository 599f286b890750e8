-- Crawl jobs, crawled pages and failed pages (sqlite/migrations/005, 014). Numbered after the
-- content tables (050) because they reference data sources and documents.

CREATE TABLE crawl_jobs (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  data_source_id TEXT NOT NULL,
  url TEXT NOT NULL,
  -- queued -> running -> completed | failed | cancelled; retry: failed/cancelled -> queued
  status TEXT NOT NULL,
  pages_crawled INTEGER NOT NULL DEFAULT 0,
  pages_failed INTEGER NOT NULL DEFAULT 0,
  page_limit INTEGER NOT NULL,
  max_depth INTEGER NOT NULL,
  render_js BOOLEAN NOT NULL DEFAULT FALSE,
  include_paths TEXT NOT NULL DEFAULT '[]',
  error TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, data_source_id) REFERENCES data_sources (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX crawl_jobs_tenant ON crawl_jobs (tenant_id, created_at DESC, id DESC);
CREATE INDEX crawl_jobs_source_status ON crawl_jobs (tenant_id, data_source_id, status);
-- workers address a job by its id alone (queue payloads); ids are random and unique
CREATE INDEX crawl_jobs_id ON crawl_jobs (id);
CREATE INDEX crawl_jobs_unfinished ON crawl_jobs (status) WHERE status IN ('queued', 'running');

CREATE TABLE crawl_pages (
  tenant_id TEXT NOT NULL,
  data_source_id TEXT NOT NULL,
  url TEXT NOT NULL,
  job_id TEXT NOT NULL,
  format TEXT NOT NULL,
  links TEXT NOT NULL DEFAULT '[]',
  etag TEXT,
  last_modified TEXT,
  content_hash TEXT NOT NULL,
  document_id TEXT,
  crawled_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, data_source_id, url),
  FOREIGN KEY (tenant_id, data_source_id) REFERENCES data_sources (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, job_id) REFERENCES crawl_jobs (tenant_id, id) ON DELETE CASCADE,
  -- a deleted document leaves the page row (its validators) without a document
  FOREIGN KEY (tenant_id, document_id) REFERENCES documents (tenant_id, id) ON DELETE SET NULL (document_id)
);
CREATE INDEX crawl_pages_job ON crawl_pages (tenant_id, job_id);
CREATE INDEX crawl_pages_job_id ON crawl_pages (job_id);
CREATE INDEX crawl_pages_document ON crawl_pages (tenant_id, document_id);

CREATE TABLE crawl_failures (
  tenant_id TEXT NOT NULL,
  job_id TEXT NOT NULL,
  data_source_id TEXT NOT NULL,
  url TEXT NOT NULL,
  reason TEXT NOT NULL,
  failed_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, job_id, url),
  FOREIGN KEY (tenant_id, job_id) REFERENCES crawl_jobs (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, data_source_id) REFERENCES data_sources (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX crawl_failures_source ON crawl_failures (tenant_id, data_source_id);
CREATE INDEX crawl_failures_job_id ON crawl_failures (job_id);
