// What the crawl service's modules share: its dependencies, the API shape of a crawl job, the
// queue job of a crawl, and the crawls running in this process.

import type { Logger } from "pino";
import type { Store } from "../../store/types.js";
import type { CollectionCatalog, DocumentCatalog, SourceCatalog } from "../../store/content-store.js";
import type { FileStore } from "../../store/files.js";
import type { Json } from "../../store/content-types.js";
import type { CrawlIndexProgress, CrawlJobRow } from "../../store/crawl-types.js";
import type { OutcomeCounts } from "../../store/freshness-types.js";
import type { JobQueue } from "../../jobs/types.js";
import { createUrlPolicy, describeError, type UrlGuard } from "../../crawl/index.js";
import { ServiceError } from "../errors.js";
import type { WebhookEmitter } from "../webhooks/webhooks.js";

export const CRAWL_JOB_KIND = "crawl";
/** Queue attempts of one crawl job; a crawl interrupted by a shutdown uses one and resumes. */
const CRAWL_JOB_ATTEMPTS = 5;
/** The queue job that runs a crawl. */
export const queueJob = (row: { id: string; tenant_id: string }) => ({
  tenant_id: row.tenant_id,
  kind: CRAWL_JOB_KIND,
  subject: row.id,
  max_attempts: CRAWL_JOB_ATTEMPTS,
});
/** GET /crawl lists this many at a time, newest first. */
export const LIST_LIMIT = 200;
/** GET /crawl/{id}/pages: page size bounds. */
export const PAGES_DEFAULT_LIMIT = 100;
export const PAGES_MAX_LIMIT = 1000;

export interface CrawlServiceDeps {
  store: Pick<Store, "crawls" | "tenants" | "freshness"> & { content: SourceCatalog & CollectionCatalog & DocumentCatalog };
  files: FileStore;
  log: Logger;
  config: {
    allowPrivateNetworks: boolean;
    renderJs: boolean;
    /** consecutive crawls that miss a page (404/410, or no longer found) before it is removed; default 2 */
    removeAfterMisses?: number;
  };
  /** the crawl queue; a getter because the queue's handler is this service */
  queue: () => Pick<JobQueue, "available" | "enqueue" | "cancel">;
  /** where crawled pages are queued for indexing */
  ingestQueue: () => Pick<JobQueue, "enqueue">;
  /** replaces the URL policy built from config (tests) */
  guard?: UrlGuard;
  /** where git sources' mirrors are kept (DATA_DIR/git) */
  gitCacheDir?: string;
  /** webhook events (crawl.completed, crawl.failed, source.synced); none in tests that leave it out */
  events?: WebhookEmitter;
  /** counts for metrics: each page fetched or failed, each crawl that ended */
  observe?: { page(outcome: "fetched" | "failed"): void; finished(status: "completed" | "failed" | "cancelled"): void };
}

/** The URL policy crawls of this deployment follow. */
export function urlGuard(deps: Pick<CrawlServiceDeps, "guard" | "config">): UrlGuard {
  return deps.guard ?? createUrlPolicy({ allowPrivateNetworks: deps.config.allowPrivateNetworks });
}

export interface CrawlOut {
  id: string;
  data_source_id: string;
  url: string;
  status: string;
  pages_crawled: number;
  page_limit: number;
  max_depth: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  pages_failed: number;
  render_js: boolean;
  include_paths: string[];
  /** pages handed over and indexed (searchable) */
  pages_indexed: number;
  /** pages handed over and still waiting to be indexed; a crawl reads completed only at 0 */
  pages_pending: number;
  /** of the pages handed over: first seen by this crawl of the source */
  pages_new: number;
  /** ... stored before, with new content (re-indexed unless its text stayed the same) */
  pages_changed: number;
  /** ... stored before and unchanged (304, sitemap lastmod, or same content): not re-indexed */
  pages_unchanged: number;
  /** pages this crawl removed from the index (gone, or missed by consecutive crawls) */
  pages_removed: number;
  /** failed pages that keep their last good version (5xx, timeouts): still searchable, stale */
  pages_stale: number;
  /** a git source's sync: the commit it reached (null for website crawls, and until it ends) */
  git_commit: string | null;
}

const NO_OUTCOMES: OutcomeCounts & { stale: number } = { new: 0, changed: 0, unchanged: 0, removed: 0, failed: 0, stale: 0 };

export const crawlOut = (r: CrawlJobRow, progress: CrawlIndexProgress = { pending: 0, indexed: 0, failed: 0 }, outcomes = NO_OUTCOMES): CrawlOut => ({
  id: r.id,
  data_source_id: r.data_source_id,
  url: r.url,
  status: r.status,
  pages_crawled: r.pages_crawled,
  page_limit: r.page_limit,
  max_depth: r.max_depth,
  error: r.error,
  created_at: r.created_at,
  started_at: r.started_at,
  finished_at: r.finished_at,
  pages_failed: r.pages_failed,
  render_js: r.render_js,
  include_paths: r.include_paths,
  pages_indexed: progress.indexed,
  pages_pending: progress.pending,
  pages_new: outcomes.new,
  pages_changed: outcomes.changed,
  pages_unchanged: outcomes.unchanged,
  pages_removed: outcomes.removed,
  pages_stale: outcomes.stale,
  git_commit: r.git_commit ?? null,
});

export interface CrawlCreateBody {
  url: string;
  collection_id?: string | null;
  data_source_id?: string | null;
  max_depth?: number;
  page_limit?: number;
  render_js?: boolean;
  include_paths?: string[];
}

/** What a crawl saves in its data source's configuration (the sync settings of a website source). */
export function crawlSettings(row: Pick<CrawlJobRow, "url" | "max_depth" | "page_limit" | "render_js" | "include_paths">): Json {
  return { url: row.url, max_depth: row.max_depth, page_limit: row.page_limit, render_js: row.render_js, include_paths: row.include_paths };
}

/** Why a crawl failed, in words for the job's error. */
export function failureMessage(err: unknown): string {
  if (err instanceof ServiceError) return `The crawl stopped: ${err.message}`;
  return `The crawl stopped because a page could not be stored: ${describeError(err)}`;
}

interface Running {
  ctl: AbortController;
  done: Promise<void>;
}

/** Crawls running in this process, for prompt cancel and shutdown. */
export class RunningCrawls {
  private readonly byId = new Map<string, Running>();
  /** set by shutdown: crawls that stop now go back to the queue instead of ending */
  stopping = false;

  get(id: string): Running | undefined {
    return this.byId.get(id);
  }

  /** Registers a crawl that starts running; call the returned function when it has wound down. */
  add(id: string, ctl: AbortController): () => void {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    this.byId.set(id, { ctl, done });
    return () => {
      this.byId.delete(id);
      finish();
    };
  }

  /** Aborts every running crawl and resolves when all have wound down; how many there were. */
  async stopAll(): Promise<number> {
    this.stopping = true;
    const all = [...this.byId.values()];
    for (const r of all) r.ctl.abort();
    await Promise.all(all.map((r) => r.done));
    return all.length;
  }
}
