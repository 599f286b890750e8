-- Pages a crawl attempt could not fetch or store (dead links, oversize pages, timeouts), with the
-- reason, for GET /crawl/{job_id}/pages?status=failed and the data source's failed_count. Each
-- attempt of a job starts with an empty list (the pages are tried again).
CREATE TABLE crawl_failures (
  job_id TEXT NOT NULL REFERENCES crawl_jobs(id) ON DELETE CASCADE,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  data_source_id TEXT NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  reason TEXT NOT NULL,
  failed_at TEXT NOT NULL,
  PRIMARY KEY (job_id, url)
);
CREATE INDEX crawl_failures_source ON crawl_failures(data_source_id);
