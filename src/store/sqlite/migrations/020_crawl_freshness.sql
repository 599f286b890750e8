-- Re-crawls that do only the work that changed (issue 30).

-- What became of each page in a crawl job: one row per job and URL, so the job's counts
-- (pages_new, pages_changed, pages_unchanged, pages_removed) stay exact when an attempt is
-- retried or a second attempt runs beside the first.
CREATE TABLE crawl_page_outcomes (
  job_id TEXT NOT NULL REFERENCES crawl_jobs(id) ON DELETE CASCADE,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  data_source_id TEXT NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  -- new | changed | unchanged | removed | failed
  outcome TEXT NOT NULL,
  -- the HTTP status of a failed page, when it answered at all
  http_status INTEGER,
  at TEXT NOT NULL,
  PRIMARY KEY (job_id, url)
);

-- Pages of a website source that recent crawls did not hand over: consecutive misses (gone,
-- 404/410, or no longer linked nor in the sitemap) and since when a page is stale (kept at its
-- last good version because it answered 5xx or timed out).
CREATE TABLE crawl_page_misses (
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  data_source_id TEXT NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  misses INTEGER NOT NULL DEFAULT 0,
  stale_since TEXT,
  reason TEXT,
  -- the crawl job that counted the latest miss: a second attempt of that job does not count again
  job_id TEXT,
  PRIMARY KEY (data_source_id, url)
);

-- A hash of a document's extracted text (and the chunking that made its chunks): a changed page
-- whose text did not change keeps its chunks and vectors.
CREATE TABLE document_text_hashes (
  document_id TEXT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  text_hash TEXT NOT NULL
);
