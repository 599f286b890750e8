-- Crawl jobs and the pages they handed over.
CREATE TABLE crawl_jobs (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  data_source_id TEXT NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  -- queued -> running -> completed | failed | cancelled; retry: failed/cancelled -> queued
  status TEXT NOT NULL,
  pages_crawled INTEGER NOT NULL DEFAULT 0,
  -- pages that could not be fetched in the latest attempt (HTTP errors, timeouts, too large)
  pages_failed INTEGER NOT NULL DEFAULT 0,
  page_limit INTEGER NOT NULL,
  max_depth INTEGER NOT NULL,
  render_js INTEGER NOT NULL DEFAULT 0,
  include_paths TEXT NOT NULL DEFAULT '[]',
  error TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
CREATE INDEX crawl_jobs_tenant ON crawl_jobs(tenant_id, created_at DESC);
CREATE INDEX crawl_jobs_source_status ON crawl_jobs(data_source_id, status);

-- One row per page of a website source: what the latest crawl that handed it over saw. `job_id`
-- (the latest such job) lets a retried job skip the pages it already indexed (alreadyCrawled);
-- the validators and links let a later crawl of the source send conditional requests and keep
-- unchanged pages as they are (previous(url)).
CREATE TABLE crawl_pages (
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  data_source_id TEXT NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
  -- normalised URL (the crawler's page identity); equals the document's `source`
  url TEXT NOT NULL,
  job_id TEXT NOT NULL REFERENCES crawl_jobs(id) ON DELETE CASCADE,
  format TEXT NOT NULL,
  links TEXT NOT NULL DEFAULT '[]',
  etag TEXT,
  last_modified TEXT,
  content_hash TEXT NOT NULL,
  document_id TEXT REFERENCES documents(id) ON DELETE SET NULL,
  crawled_at TEXT NOT NULL,
  PRIMARY KEY (data_source_id, url)
);
CREATE INDEX crawl_pages_job ON crawl_pages(job_id);
CREATE INDEX crawl_pages_document ON crawl_pages(document_id);
