// Storage contract of crawl jobs and crawled pages. See types.ts for the conventions: methods that
// serve a request take the tenant id and filter by it in the query; the worker-side methods take
// the crawl id the queue handed over (ids are unguessable and never come from a request there).

export type CrawlStatus = "queued" | "running" | "completed" | "failed" | "cancelled";

export interface CrawlJobRow {
  id: string;
  tenant_id: string;
  data_source_id: string;
  url: string;
  status: CrawlStatus;
  pages_crawled: number;
  pages_failed: number;
  page_limit: number;
  max_depth: number;
  render_js: boolean;
  include_paths: string[];
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** git sources: the commit a completed sync reached (null for website crawls and until then) */
  git_commit?: string | null;
}

/** What the store remembers about one page of a website source (the latest crawl that handed it). */
export interface CrawlPageRow {
  tenant_id: string;
  data_source_id: string;
  /** normalised URL, the page identity; the document's `source` */
  url: string;
  job_id: string;
  format: string;
  links: string[];
  etag: string | null;
  last_modified: string | null;
  content_hash: string;
  /** null when the document was deleted since */
  document_id: string | null;
  crawled_at: string;
}

/** A page one attempt of a crawl could not fetch or store. */
export interface CrawlFailureRow {
  job_id: string;
  tenant_id: string;
  data_source_id: string;
  url: string;
  reason: string;
  failed_at: string;
}

/** Where the documents a crawl handed over stand in indexing. */
export interface CrawlIndexProgress {
  /** queued or processing */
  pending: number;
  indexed: number;
  /** handed over but failed to index (empty page, parse error); listed with the failed pages */
  failed: number;
}

/** One entry of GET /crawl/{id}/pages: a page the crawl handed over, or one it could not fetch. */
export interface CrawlPageStatus {
  url: string;
  /** pending | indexed | failed */
  status: string;
  document_id: string | null;
  reason: string | null;
  at: string;
}

export interface CrawlPatch {
  pages_crawled?: number;
  pages_failed?: number;
  error?: string | null;
  started_at?: string | null;
  finished_at?: string | null;
  git_commit?: string | null;
}

export interface CrawlStore {
  /**
   * Inserts the crawl row (the caller queues its job through the JobQueue). False, and nothing
   * written, when the source already has a queued or running crawl.
   */
  create(row: CrawlJobRow): Promise<boolean>;
  get(tenantId: string, id: string): Promise<CrawlJobRow | null>;
  /** newest first; `before` continues after that (created_at, id), for keyset paging */
  list(tenantId: string, limit: number, before?: { created_at: string; id: string }): Promise<CrawlJobRow[]>;
  /** the queued or running crawl of a data source, if any */
  activeForSource(sourceId: string): Promise<CrawlJobRow | null>;
  /** a crawl by id for the worker (no tenant: the id comes from the queue) */
  byId(id: string): Promise<CrawlJobRow | null>;
  /**
   * Moves the crawl to `to` when its status is one of `from`, applying `patch`, atomically.
   * Returns the updated row, or null when the crawl is missing or in another state.
   */
  transition(id: string, from: readonly CrawlStatus[], to: CrawlStatus, patch?: CrawlPatch): Promise<CrawlJobRow | null>;
  /**
   * failed/cancelled -> queued (retry; the caller queues the job). Null when the crawl is missing
   * (in this tenant), in another state, or another crawl of its source is active.
   */
  requeue(tenantId: string, id: string): Promise<CrawlJobRow | null>;
  /** progress of a running crawl; no-op in any other state */
  setProgress(id: string, pagesCrawled: number, pagesFailed: number): Promise<void>;
  /** the page of the source, only while its document still exists */
  page(sourceId: string, url: string): Promise<CrawlPageRow | null>;
  /** pages handed over by this job (for resuming it) */
  pagesOfJob(jobId: string): Promise<CrawlPageRow[]>;
  /** inserts or replaces the page of its source */
  recordPage(row: CrawlPageRow): Promise<void>;
  /** remembers a page this attempt could not fetch or store (replacing an earlier reason for it) */
  recordFailure(row: CrawlFailureRow): Promise<void>;
  /** a new attempt starts: the failures of the previous one are tried again */
  clearFailures(jobId: string): Promise<void>;
  /** indexing state of the documents the job handed over */
  indexProgress(jobId: string): Promise<CrawlIndexProgress>;
  /**
   * The job's pages, failures first then handed-over pages, ordered by URL within each; `status`
   * filters (failed: unfetchable pages and pages whose indexing failed). `afterUrl` pages on.
   */
  pageStatuses(tenantId: string, jobId: string, opts: { status: string | null; limit: number; after: string | null }): Promise<CrawlPageStatus[]>;
  /** git sources: the source's latest completed sync that recorded a commit */
  lastGitSync(sourceId: string): Promise<CrawlJobRow | null>;
  /** queued and running crawls of every tenant (recovery makes sure each has a live queue job) */
  unfinished(): Promise<{ id: string; tenant_id: string }[]>;
}

/** crawl_jobs' columns in the order both stores insert and select them */
export const CRAWL_JOB_COLUMNS =
  "id, tenant_id, data_source_id, url, status, pages_crawled, pages_failed, page_limit, max_depth, render_js, include_paths, error, created_at, started_at, finished_at";

/** A job's values in CRAWL_JOB_COLUMNS order; `flag` turns render_js into what the store keeps. */
export function crawlJobValues(row: CrawlJobRow, flag: (b: boolean) => unknown): unknown[] {
  const { id, tenant_id, data_source_id, url, status, pages_crawled, pages_failed, page_limit, max_depth } = row;
  return [id, tenant_id, data_source_id, url, status, pages_crawled, pages_failed, page_limit, max_depth, flag(row.render_js), JSON.stringify(row.include_paths), row.error, row.created_at, row.started_at, row.finished_at];
}
