// Website crawls: site check, crawl jobs (create, list, get, cancel, retry) and the crawl job
// handler that turns crawled pages into documents of a website data source.
//
// Crawls run on their own queue instance (kind "crawl", 1-2 workers) so a long crawl never holds
// an ingest worker; every page the crawl stores becomes an ordinary ingest job. The crawler engine
// (src/crawl) is storage-free: this module gives it the job's options, what earlier attempts
// already indexed (resume) and what an earlier crawl of the source saw (re-crawl), and stores what
// it hands over.
import fsp from "node:fs/promises";
import type { Logger } from "pino";
import type { Store, TenantRow } from "../store/types.js";
import type { FileStore } from "../store/files.js";
import { LimitReached, type Json, type SourceView } from "../store/content-types.js";
import type { CrawlIndexProgress, CrawlJobRow, CrawlPageRow, CrawlPageStatus } from "../store/crawl-types.js";
import { newId, nowIso } from "../store/ids.js";
import { QueueUnavailableError, type JobQueue, type RecoveryHook, type RunningJob } from "../jobs/types.js";
import {
  checkSite,
  chromiumAvailable,
  createUrlPolicy,
  decodeHtml,
  describeError,
  normalizeIncludePaths,
  runCrawl,
  FetchError,
  UrlPolicyError,
  DEFAULT_MAX_DEPTH,
  DEFAULT_PAGE_LIMIT,
  type CrawledPage,
  type CrawlResult,
  type CrawlSink,
  type PreviousPage,
  type SiteCheckOut,
  type UrlGuard,
} from "../crawl/index.js";
import { tenantOf, type Principal } from "./auth.js";
import { badRequest, conflict, notFound, ServiceError, unavailable } from "./errors.js";
import { limitsOf } from "./plans.js";
import { acceptDocuments } from "./acceptance.js";
import { quotaExceededError } from "./quotas.js";
import { insertSource } from "./sources.js";
import { decodeKeyset, page } from "./paging.js";

export const CRAWL_JOB_KIND = "crawl";
/** Queue attempts of one crawl job; a crawl interrupted by a shutdown uses one and resumes. */
const CRAWL_JOB_ATTEMPTS = 5;
const queueJob = (row: { id: string; tenant_id: string }) => ({
  tenant_id: row.tenant_id,
  kind: CRAWL_JOB_KIND,
  subject: row.id,
  max_attempts: CRAWL_JOB_ATTEMPTS,
});
/** GET /crawl lists this many at a time, newest first. */
const LIST_LIMIT = 200;
/** How often a running crawl looks at its own row (cancelled by another process, source deleted). */
const STATUS_CHECK_MS = 1_000;
/** How often a crawl that has fetched everything looks whether its pages are indexed. */
const INDEX_POLL_MS = 200;
/** GET /crawl/{id}/pages: page size bounds. */
export const PAGES_DEFAULT_LIMIT = 100;
export const PAGES_MAX_LIMIT = 1000;

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
}

export const crawlOut = (r: CrawlJobRow, progress: CrawlIndexProgress = { pending: 0, indexed: 0, failed: 0 }): CrawlOut => ({
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

export interface CrawlServiceDeps {
  store: Store;
  files: FileStore;
  log: Logger;
  config: { allowPrivateNetworks: boolean; renderJs: boolean };
  /** the crawl queue; a getter because the queue's handler is this service */
  queue: () => Pick<JobQueue, "available" | "enqueue" | "cancel">;
  /** where crawled pages are queued for indexing */
  ingestQueue: () => Pick<JobQueue, "enqueue">;
  /** replaces the URL policy built from config (tests) */
  guard?: UrlGuard;
  /** counts for metrics: each page fetched or failed, each crawl that ended */
  observe?: { page(outcome: "fetched" | "failed"): void; finished(status: "completed" | "failed" | "cancelled"): void };
}

/** What a crawl saves in its data source's configuration (the sync settings of a website source). */
function crawlSettings(row: Pick<CrawlJobRow, "url" | "max_depth" | "page_limit" | "render_js" | "include_paths">): Json {
  return { url: row.url, max_depth: row.max_depth, page_limit: row.page_limit, render_js: row.render_js, include_paths: row.include_paths };
}

interface Running {
  ctl: AbortController;
  done: Promise<void>;
}

export function createCrawlService(deps: CrawlServiceDeps) {
  const { store, files, log } = deps;
  const content = store.content;
  const crawls = store.crawls;
  const guard = () => deps.guard ?? createUrlPolicy({ allowPrivateNetworks: deps.config.allowPrivateNetworks });
  /** crawls running in this process, for prompt cancel and shutdown */
  const running = new Map<string, Running>();
  let stopping = false;

  async function get(tenantId: string, id: string): Promise<CrawlJobRow> {
    const row = await crawls.get(tenantId, id);
    if (!row) throw notFound("Crawl job", id);
    return row;
  }

  /** The URL policy's verdict as a 400; other failures (DNS) are left to the caller. */
  async function checkUrl(url: string): Promise<unknown> {
    try {
      await guard().check(url);
      return null;
    } catch (err) {
      if (err instanceof UrlPolicyError) throw badRequest(err.message);
      return err;
    }
  }

  function checkRenderJs(renderJs: boolean): void {
    if (!renderJs) return;
    if (!deps.config.renderJs) {
      throw badRequest("render_js is not allowed on this deployment (CRAWL_RENDER_JS is off); crawl without render_js.");
    }
    if (!chromiumAvailable()) {
      throw badRequest("render_js is not allowed on this deployment: Chromium is not installed; crawl without render_js.");
    }
  }

  function checkQueue(): void {
    if (!deps.queue().available()) throw queueDown();
  }

  const queueDown = () => unavailable("The crawl queue is not running, so the crawl was not started. Try again in a moment.");

  /** queues the crawl's job; if the queue went away since checkQueue, the crawl fails and the answer is 503 */
  async function enqueueCrawl(row: CrawlJobRow): Promise<void> {
    try {
      await deps.queue().enqueue(queueJob(row));
    } catch (err) {
      if (!(err instanceof QueueUnavailableError)) throw err;
      await crawls.transition(row.id, ["queued"], "failed", { error: "The crawl queue was unavailable; the crawl did not start.", finished_at: nowIso() });
      throw queueDown();
    }
  }

  async function refuseIfActive(sourceId: string, except?: string): Promise<void> {
    const active = await crawls.activeForSource(sourceId);
    if (active && active.id !== except) {
      throw conflict(
        `Data source '${sourceId}' already has a ${active.status} crawl ('${active.id}'); cancel it or wait until it finishes before starting another.`,
      );
    }
  }

  async function createWebsiteSource(tenant: TenantRow, url: string, collectionIds: string[], configuration: Json): Promise<SourceView> {
    const id = await insertSource(store, tenant, { name: new URL(url).host, source_type: "website", configuration }, collectionIds);
    return (await content.getSource(tenant.id, id))!;
  }

  // --- the job ---------------------------------------------------------------------------------

  /** Stores one crawled page as a document of the source and queues its indexing. */
  async function storePage(row: CrawlJobRow, tenant: TenantRow, page: CrawledPage): Promise<void> {
    const record = (documentId: string) =>
      crawls.recordPage({
        tenant_id: row.tenant_id,
        data_source_id: row.data_source_id,
        url: page.url,
        job_id: row.id,
        format: page.format,
        links: page.links,
        etag: page.etag,
        last_modified: page.lastModified,
        content_hash: page.contentHash,
        document_id: documentId,
        crawled_at: nowIso(),
      } satisfies CrawlPageRow);

    if (page.unchanged) {
      // the document is as the page is: nothing to re-index, only the validators move on
      const doc = await content.findDocumentBySource(row.tenant_id, row.data_source_id, page.url);
      if (doc) {
        // A page whose indexing failed last time (a parse cut off on a busy machine, a model
        // outage) is indexed again from its stored file: otherwise only a change to the page
        // could ever repair it.
        if (doc.status === "failed") {
          await content.setDocumentStatus(row.tenant_id, doc.id, "queued", null);
          await deps.ingestQueue().enqueue({ tenant_id: row.tenant_id, kind: "ingest", subject: doc.id });
        }
        return record(doc.id);
      }
      if (page.body.length === 0) {
        log.warn({ crawl: row.id, url: page.url }, "unchanged page without a stored document; it will be fetched in full next time");
        return;
      }
    }
    // HTML is stored as UTF-8 (the parser reads UTF-8); the hash stays the one of the served bytes
    const body = page.format === "html" ? Buffer.from(decodeHtml(page.body, page.contentType), "utf8") : page.body;
    const temp = files.tempPath();
    await fsp.writeFile(temp, body);
    try {
      let docs;
      try {
        const doc = {
          id: newId("doc"),
          source: page.url,
          title: page.title?.trim() || page.url,
          source_type: "website",
          kind: page.format,
          content_type: page.contentType,
          size_bytes: page.body.length,
          content_hash: page.contentHash,
          metadata: { url: page.url, final_url: page.finalUrl, depth: page.depth, crawl_id: row.id },
        };
        const limit = limitsOf(tenant.plan).documents;
        docs = await acceptDocuments({ content, files }, row.tenant_id, row.data_source_id, [{ doc, tempPath: temp }], limit);
      } catch (err) {
        if (err instanceof LimitReached) throw quotaExceededError("documents", tenant.plan, err.used, err.limit, err.adding);
        throw err;
      }
      const doc = docs[0];
      await deps.ingestQueue().enqueue({ tenant_id: row.tenant_id, kind: "ingest", subject: doc.id });
      await record(doc.id);
    } finally {
      await fsp.rm(temp, { force: true });
    }
  }

  /** Resolves when no document the job handed over is queued or processing, or on abort. */
  async function waitIndexed(jobId: string, signal: AbortSignal, check: () => Promise<void>): Promise<void> {
    while (!signal.aborted) {
      const p = await crawls.indexProgress(jobId);
      if (p.pending === 0) return;
      await new Promise((resolve) => setTimeout(resolve, INDEX_POLL_MS));
      await check();
    }
  }

  /** The row with its indexing progress, as the API shows it. */
  async function out(row: CrawlJobRow): Promise<CrawlOut> {
    return crawlOut(row, await crawls.indexProgress(row.id));
  }

  /** GET /crawl: newest first, `limit` (200) at a time; `next` is the cursor of the following page, if any. */
  async function listPage(p: Principal, o: { limit?: number; cursor?: string }): Promise<{ items: CrawlOut[]; next: string | null }> {
    const limit = o.limit ?? LIST_LIMIT;
    const rows = await crawls.list(tenantOf(p).id, limit + 1, o.cursor ? decodeKeyset(o.cursor) : undefined);
    const { items, next } = page(rows, limit);
    return { items: await Promise.all(items.map(out)), next };
  }

  /** Why a crawl failed, in words for the job's error. */
  function failureMessage(err: unknown): string {
    if (err instanceof ServiceError) return `The crawl stopped: ${err.message}`;
    return `The crawl stopped because a page could not be stored: ${describeError(err)}`;
  }

  async function run(row: CrawlJobRow, jobSignal: AbortSignal, ctl: AbortController): Promise<void> {
    const tenant = await store.tenants.get(row.tenant_id);
    const source = tenant ? await content.getSource(row.tenant_id, row.data_source_id) : null;
    if (!tenant || !source) return; // deleted meanwhile; the crawl row went with it

    const already = new Map((await crawls.pagesOfJob(row.id)).map((p) => [p.url, { links: p.links }] as const));
    let pagesCrawled = already.size;
    let pagesFailed = 0;
    let lastCheck = Date.now();
    const startedAt = Date.now();
    const failureWrites: Promise<void>[] = [];
    const signal = AbortSignal.any([jobSignal, ctl.signal]);

    // cancel from another process, or the source deleted: noticed within STATUS_CHECK_MS
    const watchStatus = async (force = false) => {
      if (ctl.signal.aborted || (!force && Date.now() - lastCheck < STATUS_CHECK_MS)) return;
      lastCheck = Date.now();
      const now = await crawls.byId(row.id);
      if (!now || now.status !== "running") ctl.abort();
    };
    const progress = () => {
      crawls.setProgress(row.id, pagesCrawled, pagesFailed).catch((err: unknown) => log.warn({ err, crawl: row.id }, "could not record crawl progress"));
    };

    const sink: CrawlSink = {
      onPage: async (page) => {
        deps.observe?.page("fetched");
        await storePage(row, tenant, page);
        await watchStatus();
      },
      onProgress: (p) => {
        pagesCrawled = p.pagesCrawled;
        pagesFailed = p.errors;
        progress();
        void watchStatus().catch(() => undefined);
      },
      onError: (url, message) => {
        deps.observe?.page("failed");
        log.debug({ crawl: row.id, url, message }, "page not crawled");
        const failure = { job_id: row.id, tenant_id: row.tenant_id, data_source_id: row.data_source_id, url, reason: message, failed_at: nowIso() };
        failureWrites.push(crawls.recordFailure(failure).catch((err: unknown) => log.warn({ err, crawl: row.id, url }, "could not record a failed page")));
      },
      onSkip: (url, reason) => log.trace({ crawl: row.id, url, reason }, "page skipped"),
    };
    const previous = async (url: string): Promise<PreviousPage | null> => {
      const p = await crawls.page(row.data_source_id, url);
      if (!p) return null;
      return { etag: p.etag, lastModified: p.last_modified, contentHash: p.content_hash, links: p.links, format: p.format as PreviousPage["format"] };
    };

    let result: CrawlResult | null = null;
    let failure: unknown = null;
    try {
      result = await runCrawl(
        {
          url: row.url,
          maxDepth: row.max_depth,
          pageLimit: row.page_limit,
          includePaths: row.include_paths,
          renderJs: row.render_js,
          allowPrivateNetworks: deps.config.allowPrivateNetworks,
          guard: deps.guard,
          alreadyCrawled: already,
          previous,
        },
        sink,
        signal,
      );
    } catch (err) {
      failure = err;
    }
    await Promise.all(failureWrites);
    // fetched everything: the crawl stays running until the pages it handed over are indexed
    if (!failure && !result?.error && result?.stopReason !== "cancelled") {
      await waitIndexed(row.id, signal, () => watchStatus(true));
    }
    const counts = {
      pages_crawled: result?.pagesCrawled ?? pagesCrawled,
      pages_failed: result?.errors ?? pagesFailed,
      finished_at: nowIso(),
    };

    if (stopping && ctl.signal.aborted) {
      // shutdown: back to queued; throwing hands the job back to the queue, which runs it again
      await crawls.transition(row.id, ["running"], "queued", { ...counts, finished_at: null });
      throw new Error("The crawl was interrupted by a shutdown; it resumes when the service starts again.");
    }
    // one line per finished crawl: tenant, ids, counts, duration, error
    const finished = (status: "completed" | "failed" | "cancelled", extra: Record<string, unknown> = {}) => {
      deps.observe?.finished(status);
      const fields = {
        event: "crawl",
        crawl: row.id,
        tenant: row.tenant_id,
        data_source: row.data_source_id,
        status,
        pages_crawled: counts.pages_crawled,
        pages_failed: counts.pages_failed,
        ms: Date.now() - startedAt,
        ...extra,
      };
      if (status === "failed") log.warn(fields, "crawl failed");
      else log.info(fields, `crawl ${status}`);
    };
    // a cancel that lands while the crawl is finishing wins: the row already says cancelled
    const cancelled = async () => {
      await crawls.transition(row.id, ["cancelled"], "cancelled", counts);
      finished("cancelled");
    };
    if (ctl.signal.aborted || jobSignal.aborted || result?.stopReason === "cancelled") {
      // cancelled, or the source was deleted (then the row is gone); pages indexed so far stay
      await crawls.transition(row.id, ["running"], "cancelled", counts);
      return cancelled();
    }
    const error = failure ? failureMessage(failure) : result!.error;
    if (error) {
      if (!(await crawls.transition(row.id, ["running"], "failed", { ...counts, error }))) return cancelled();
      await content.updateSource(row.tenant_id, row.data_source_id, { error });
      finished("failed", { error });
      return;
    }
    if (!(await crawls.transition(row.id, ["running"], "completed", { ...counts, error: null }))) return cancelled();
    await content.updateSource(row.tenant_id, row.data_source_id, { error: null, last_synced_at: nowIso() });
    finished("completed", { stop: result!.stopReason, requests: result!.requests, error: null });
  }

  return {
    /** POST /crawl/check: the URL policy first (400), then a handful of requests; indexes nothing. */
    async check(p: Principal, url: string): Promise<SiteCheckOut> {
      tenantOf(p);
      await checkUrl(url);
      return checkSite(url, { guard: guard() });
    },

    /** POST /crawl: validates, finds or creates the website source, saves the settings, queues the job. */
    async create(p: Principal, body: CrawlCreateBody): Promise<CrawlOut> {
      const tenant = tenantOf(p);
      const renderJs = body.render_js ?? false;
      checkRenderJs(renderJs);
      const dnsProblem = await checkUrl(body.url);
      if (dnsProblem instanceof FetchError) throw badRequest(dnsProblem.message);
      if (dnsProblem) throw dnsProblem;
      checkQueue();

      const settings = {
        url: body.url,
        max_depth: body.max_depth ?? DEFAULT_MAX_DEPTH,
        page_limit: body.page_limit ?? DEFAULT_PAGE_LIMIT,
        render_js: renderJs,
        include_paths: normalizeIncludePaths(body.include_paths),
      };
      const collectionId = body.collection_id ?? null;
      if (collectionId && !(await content.getCollection(tenant.id, collectionId))) throw notFound("Collection", collectionId);

      let source: SourceView;
      if (body.data_source_id) {
        const found = await content.getSource(tenant.id, body.data_source_id);
        if (!found) throw notFound("Data source", body.data_source_id);
        if (found.source_type !== "website") {
          throw badRequest(`Data source '${found.id}' is a ${found.source_type} source; crawl into a source of type 'website', or leave data_source_id out to create one.`);
        }
        await refuseIfActive(found.id);
        await content.updateSource(tenant.id, found.id, { configuration: { ...found.configuration, ...crawlSettings(settings) } });
        if (collectionId && !found.collection_ids.includes(collectionId)) await content.attachSource(tenant.id, collectionId, found.id);
        source = found;
      } else {
        source = await createWebsiteSource(tenant, body.url, collectionId ? [collectionId] : [], crawlSettings(settings));
      }

      const row: CrawlJobRow = {
        id: newId("crawl"),
        tenant_id: tenant.id,
        data_source_id: source.id,
        ...settings,
        status: "queued",
        pages_crawled: 0,
        pages_failed: 0,
        error: null,
        created_at: nowIso(),
        started_at: null,
        finished_at: null,
      };
      if (!(await crawls.create(row))) {
        // another request started a crawl of this source since the check above
        await refuseIfActive(source.id);
        throw conflict(`Data source '${source.id}' had a crawl in progress; try again.`);
      }
      await enqueueCrawl(row);
      return crawlOut(row);
    },

    async list(p: Principal): Promise<CrawlOut[]> {
      return (await listPage(p, {})).items;
    },

    listPage,

    async get(p: Principal, id: string): Promise<CrawlOut> {
      return out(await get(tenantOf(p).id, id));
    },

    /** GET /crawl/{id}/pages: failed pages (with the reason) and handed-over pages (with their indexing state). */
    async pages(p: Principal, id: string, o: { status?: string; limit?: number; cursor?: string }): Promise<{ items: CrawlPageStatus[]; next: string | null }> {
      const tenant = tenantOf(p);
      await get(tenant.id, id);
      const limit = o.limit ?? PAGES_DEFAULT_LIMIT;
      const after = o.cursor ? decodeCursor(o.cursor) : null;
      const rows = await crawls.pageStatuses(tenant.id, id, { status: o.status ?? null, limit: limit + 1, after });
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      const next = rows.length > limit && last ? encodeCursor(`${last.status === "failed" && last.document_id === null ? "0" : "1"}${last.url}`) : null;
      return { items, next };
    },

    /** queued or running -> cancelled; a running crawl stops promptly, its indexed pages stay. */
    async cancel(p: Principal, id: string): Promise<CrawlOut> {
      const tenant = tenantOf(p);
      const before = await get(tenant.id, id);
      const row = await crawls.transition(before.id, ["queued", "running"], "cancelled", { finished_at: nowIso() });
      if (!row) {
        const now = await get(tenant.id, id);
        throw conflict(`Crawl job '${id}' is ${now.status}; only queued or running crawls can be cancelled.`);
      }
      // reaches the worker that runs it, in this process or another
      running.get(id)?.ctl.abort();
      await deps.queue().cancel(CRAWL_JOB_KIND, id);
      return out(row);
    },

    /** failed or cancelled -> queued: resumes, skipping the pages it already indexed. */
    async retry(p: Principal, id: string): Promise<CrawlOut> {
      const tenant = tenantOf(p);
      const before = await get(tenant.id, id);
      if (before.status !== "failed" && before.status !== "cancelled") {
        throw conflict(`Crawl job '${id}' is ${before.status}; only failed or cancelled crawls can be retried.`);
      }
      checkRenderJs(before.render_js);
      checkQueue();
      await refuseIfActive(before.data_source_id, id);
      const row = await crawls.requeue(tenant.id, id);
      if (!row) {
        await refuseIfActive(before.data_source_id, id); // another crawl of the source started meanwhile
        const now = await get(tenant.id, id);
        throw conflict(`Crawl job '${id}' is ${now.status}; only failed or cancelled crawls can be retried.`);
      }
      await enqueueCrawl(row);
      return out(row);
    },

    /** "syncing" of a data source: a crawl of it is queued or running */
    isSyncing: async (sourceId: string) => (await crawls.activeForSource(sourceId)) !== null,

    /** the crawl queue's handler */
    async handle(job: RunningJob): Promise<void> {
      const id = job.subject;
      // a retried crawl waits until its cancelled attempt has wound down in this process
      await running.get(id)?.done;
      if (stopping) throw new Error("The service is shutting down; the crawl runs when it starts again.");
      // "running": its worker died and this job took over (the crawl resumes)
      const row = await crawls.transition(id, ["queued", "running"], "running", { started_at: nowIso(), finished_at: null, error: null });
      if (!row) return; // cancelled while queued, or deleted
      await crawls.clearFailures(id); // this attempt tries the failed pages again
      const ctl = new AbortController();
      let finish!: () => void;
      const done = new Promise<void>((resolve) => (finish = resolve));
      running.set(id, { ctl, done });
      try {
        await run(row, job.signal, ctl);
      } catch (err) {
        if (stopping) throw err;
        // anything unexpected ends the crawl as failed rather than retrying a whole crawl blindly
        const error = failureMessage(err);
        log.error({ err, crawl: id }, "crawl job failed");
        await crawls.transition(id, ["running"], "failed", { error, finished_at: nowIso() });
        await content.updateSource(row.tenant_id, row.data_source_id, { error });
      } finally {
        running.delete(id);
        finish();
      }
    },

    /** the queue gave up on a crawl job (attempts used up): say so on the crawl */
    async giveUp(job: { subject: string; kind: string }, error: string): Promise<void> {
      if (job.kind !== CRAWL_JOB_KIND) return;
      const row = await crawls.transition(job.subject, ["queued", "running"], "failed", { error: `The crawl could not run: ${error}`, finished_at: nowIso() });
      if (row) await content.updateSource(row.tenant_id, row.data_source_id, { error: row.error });
    },

    /** crawl queue recovery: every queued or running crawl has a live queue job */
    recover: (async (queue) => {
      let n = 0;
      for (const row of await crawls.unfinished()) if (await queue.enqueue({ ...queueJob(row), unlessLive: true })) n++;
      if (n) log.info({ crawls: n }, "resuming interrupted crawls");
      return n;
    }) satisfies RecoveryHook,

    /** Stops running crawls so the queue can stop; they are requeued and resume at next start. Returns how many. */
    async shutdown(): Promise<number> {
      stopping = true;
      const all = [...running.values()];
      for (const r of all) r.ctl.abort();
      await Promise.all(all.map((r) => r.done));
      return all.length;
    },
  };
}

export type CrawlService = ReturnType<typeof createCrawlService>;

// Opaque page cursors: the position key of the last entry, base64url-encoded.
const encodeCursor = (key: string) => Buffer.from(key, "utf8").toString("base64url");
function decodeCursor(cursor: string): string {
  const key = Buffer.from(cursor, "base64url").toString("utf8");
  if (!/^[01]/.test(key)) throw badRequest("cursor is not valid; pass the cursor of the Link header unchanged, or leave it out to start at the first page.");
  return key;
}
