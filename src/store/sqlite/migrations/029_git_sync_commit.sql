-- The commit a git data source's sync reached (issue 30): the next sync indexes only the files
-- changed since the last completed sync's commit.
ALTER TABLE crawl_jobs ADD COLUMN git_commit TEXT;
CREATE INDEX crawl_jobs_source_commit ON crawl_jobs (data_source_id, finished_at) WHERE git_commit IS NOT NULL;
