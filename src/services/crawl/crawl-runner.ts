// The crawl job: the crawl queue's handler runs the crawler engine for a crawl row, stores what it
// hands over, keeps the row's progress, notices a cancel from any process, and ends the row as
// completed, failed or cancelled (or back to queued when the service shuts down).

import type { TenantRow } from "../../store/types.js";
import type { CrawlJobRow } from "../../store/crawl-types.js";
import { nowIso } from "../../store/ids.js";
import type { JobQueue, RunningJob } from "../../jobs/types.js";
import { runCrawl, type CrawlProgress, type CrawlResult, type CrawlSink, type PreviousPage } from "../../crawl/index.js";
import { CRAWL_JOB_KIND, failureMessage, queueJob, type CrawlServiceDeps, type RunningCrawls } from "./crawl-types.js";
import { storePage } from "./crawl-pages.js";
import { outcomeCounts, recordOutcome, settleMissedPages } from "./crawl-freshness.js";
import { emitCrawlEnded } from "./crawl-events.js";
import { runGitSync } from "./git-sync.js";

/** How often a running crawl looks at its own row (cancelled by another process, source deleted). */
const STATUS_CHECK_MS = 1_000;
/** How often a crawl that has fetched everything looks whether its pages are indexed. */
const INDEX_POLL_MS = 200;
/** A running crawl writes its progress to its row at most this often (the final counts always). */
const PROGRESS_WRITE_MS = 250;

/** The crawl queue's handler. */
export async function handleCrawlJob(deps: CrawlServiceDeps, running: RunningCrawls, job: RunningJob): Promise<void> {
  const { crawls, content } = deps.store;
  const id = job.subject;
  // a retried crawl waits until its cancelled attempt has wound down in this process
  await running.get(id)?.done;
  if (running.stopping) throw new Error("The service is shutting down; the crawl runs when it starts again.");
  // "running": its worker died and this job took over (the crawl resumes)
  const row = await crawls.transition(id, ["queued", "running"], "running", { started_at: nowIso(), finished_at: null, error: null });
  if (!row) return; // cancelled while queued, or deleted
  await crawls.clearFailures(id); // this attempt tries the failed pages again
  await deps.store.freshness.clearFailedOutcomes(id);
  const ctl = new AbortController();
  const finish = running.add(id, ctl);
  try {
    await runCrawlJob(deps, running, row, job.signal, ctl);
  } catch (err) {
    if (running.stopping) throw err;
    // anything unexpected ends the crawl as failed rather than retrying a whole crawl blindly
    const error = failureMessage(err);
    deps.log.error({ err, crawl: id }, "crawl job failed");
    await crawls.transition(id, ["running"], "failed", { error, finished_at: nowIso() });
    await content.updateSource(row.tenant_id, row.data_source_id, { error });
  } finally {
    finish();
  }
}

/** What the crawler engine gave: its result, or the error that stopped it. */
interface CrawlOutcome {
  result: CrawlResult | null;
  failure: unknown;
}

/** One attempt of a crawl job, from resuming its pages to the row's final status. */
export async function runCrawlJob(deps: CrawlServiceDeps, running: RunningCrawls, row: CrawlJobRow, jobSignal: AbortSignal, ctl: AbortController): Promise<void> {
  const { store } = deps;
  const tenant = await store.tenants.get(row.tenant_id);
  const source = tenant ? await store.content.getSource(row.tenant_id, row.data_source_id) : null;
  if (!tenant || !source) return; // deleted meanwhile; the crawl row went with it

  const already = new Map((await store.crawls.pagesOfJob(row.id)).map((p) => [p.url, { links: p.links }] as const));
  const tracker = new CrawlJobTracker(deps, row, ctl, already.size);
  const startedAt = Date.now();
  const signal = AbortSignal.any([jobSignal, ctl.signal]);
  // a git source's sync reads its repository; removals come from the commits, not from misses
  const git = source.source_type === "git" ? await runGitSync(deps, row, tenant, source, signal) : null;
  const outcome = git ? { result: git.result, failure: null } : await crawlForJob(deps, row, tenant, tracker, already, signal);
  await Promise.all(tracker.failureWrites);
  // fetched everything: the crawl stays running until the pages it handed over are indexed
  if (!outcome.failure && !outcome.result?.error && outcome.result?.stopReason !== "cancelled") {
    await waitIndexed(deps, row.id, signal, () => tracker.watchStatus(true));
    if (!signal.aborted && !git) await settleMissedPages(deps, row, outcome.result?.stopReason === "completed");
  }
  const counts = { ...(await exactCounts(deps, row.id, outcome.result, tracker)), finished_at: nowIso(), ...(git?.commit ? { git_commit: git.commit } : {}) };
  if (running.stopping && ctl.signal.aborted) {
    // shutdown: back to queued; throwing hands the job back to the queue, which runs it again
    await store.crawls.transition(row.id, ["running"], "queued", { ...counts, finished_at: null });
    throw new Error("The crawl was interrupted by a shutdown; it resumes when the service starts again.");
  }
  const cancelled = ctl.signal.aborted || jobSignal.aborted || outcome.result?.stopReason === "cancelled";
  await endCrawlJob(deps, { row, counts, startedAt }, outcome, cancelled);
}

/**
 * pages_crawled and pages_failed from the outcomes recorded per job and URL (and the pages stored
 * for the job, one row per URL): exact and idempotent
 * when an attempt is retried or a second attempt ran beside the first (each would count the pages
 * the other handed over). Before any outcome was recorded, the engine's own counts.
 */
async function exactCounts(deps: Pick<CrawlServiceDeps, "store">, jobId: string, result: CrawlResult | null, tracker: CrawlJobTracker) {
  const c = await outcomeCounts(deps, jobId);
  // a worker killed between storing a page and recording its outcome leaves the page stored for
  // the job (so a resumed attempt skips it) with no outcome: the job's stored pages count it
  const stored = (await deps.store.crawls.pagesOfJob(jobId)).length;
  const handed = Math.max(c.new + c.changed + c.unchanged, stored);
  return {
    pages_crawled: handed || (result?.pagesCrawled ?? tracker.pagesCrawled),
    pages_failed: handed + c.failed > 0 ? c.failed : (result?.errors ?? tracker.pagesFailed),
  };
}

/** Runs the crawler engine for the row: resume from `already`, re-crawl with the source's stored validators. */
async function crawlForJob(
  deps: CrawlServiceDeps,
  row: CrawlJobRow,
  tenant: TenantRow,
  tracker: CrawlJobTracker,
  already: Map<string, { links: string[] }>,
  signal: AbortSignal,
): Promise<CrawlOutcome> {
  const options = {
    url: row.url,
    maxDepth: row.max_depth,
    pageLimit: row.page_limit,
    includePaths: row.include_paths,
    renderJs: row.render_js,
    allowPrivateNetworks: deps.config.allowPrivateNetworks,
    guard: deps.guard,
    alreadyCrawled: already,
    previous: previousPages(deps, row),
  };
  try {
    return { result: await runCrawl(options, jobSink(deps, row, tenant, tracker), signal), failure: null };
  } catch (err) {
    return { result: null, failure: err };
  }
}

/** Where the crawler hands pages: stored as documents; failures recorded for GET /crawl/{id}/pages. */
function jobSink(deps: CrawlServiceDeps, row: CrawlJobRow, tenant: TenantRow, tracker: CrawlJobTracker): CrawlSink {
  return {
    onPage: async (page) => {
      deps.observe?.page("fetched");
      await recordOutcome(deps, row, page.url, await storePage(deps, row, tenant, page));
      await tracker.watchStatus();
    },
    onProgress: (p) => tracker.progress(p),
    onError: (url, message, status) => tracker.failed(url, message, status),
    onSkip: (url, reason) => deps.log.trace({ crawl: row.id, url, reason }, "page skipped"),
  };
}

/** What an earlier crawl of the source stored about a page, for conditional requests. */
function previousPages(deps: Pick<CrawlServiceDeps, "store">, row: CrawlJobRow): (url: string) => Promise<PreviousPage | null> {
  return async (url) => {
    const p = await deps.store.crawls.page(row.data_source_id, url);
    if (!p) return null;
    return { etag: p.etag, lastModified: p.last_modified, contentHash: p.content_hash, links: p.links, format: p.format as PreviousPage["format"], crawledAt: p.crawled_at };
  };
}

/** A running crawl's bookkeeping on its row: progress written, failed pages recorded, a cancel noticed. */
export class CrawlJobTracker {
  pagesCrawled: number;
  pagesFailed = 0;
  /** writes of failed pages, awaited before the row's final status */
  readonly failureWrites: Promise<void>[] = [];
  private lastCheck = Date.now();
  private lastProgressWrite = 0;

  constructor(
    private readonly deps: Pick<CrawlServiceDeps, "store" | "log" | "observe">,
    private readonly row: CrawlJobRow,
    private readonly ctl: AbortController,
    alreadyCrawled: number,
  ) {
    this.pagesCrawled = alreadyCrawled;
  }

  /** Cancel from another process, or the source deleted: noticed within STATUS_CHECK_MS (at once when forced). */
  async watchStatus(force = false): Promise<void> {
    if (this.ctl.signal.aborted || (!force && Date.now() - this.lastCheck < STATUS_CHECK_MS)) return;
    this.lastCheck = Date.now();
    const now = await this.deps.store.crawls.byId(this.row.id);
    if (!now || now.status !== "running") this.ctl.abort();
  }

  progress(p: CrawlProgress): void {
    this.pagesCrawled = p.pagesCrawled;
    this.pagesFailed = p.errors;
    // one write per page would cost a re-crawl of unchanged pages more than the pages themselves
    if (Date.now() - this.lastProgressWrite < PROGRESS_WRITE_MS) return;
    this.lastProgressWrite = Date.now();
    this.deps.store.crawls
      .setProgress(this.row.id, this.pagesCrawled, this.pagesFailed)
      .catch((err: unknown) => this.deps.log.warn({ err, crawl: this.row.id }, "could not record crawl progress"));
    void this.watchStatus().catch(() => undefined);
  }

  failed(url: string, message: string, status?: number): void {
    const { row, deps } = this;
    deps.observe?.page("failed");
    deps.log.debug({ crawl: row.id, url, message }, "page not crawled");
    const failure = { job_id: row.id, tenant_id: row.tenant_id, data_source_id: row.data_source_id, url, reason: message, failed_at: nowIso() };
    const write = Promise.all([deps.store.crawls.recordFailure(failure), recordOutcome(deps, row, url, "failed", status ?? null)]);
    this.failureWrites.push(write.then(() => undefined).catch((err: unknown) => deps.log.warn({ err, crawl: row.id, url }, "could not record a failed page")));
  }
}

/** Resolves when no document the job handed over is queued or processing, or on abort. */
async function waitIndexed(deps: Pick<CrawlServiceDeps, "store">, jobId: string, signal: AbortSignal, check: () => Promise<void>): Promise<void> {
  while (!signal.aborted) {
    const p = await deps.store.crawls.indexProgress(jobId);
    if (p.pending === 0) return;
    await new Promise((resolve) => setTimeout(resolve, INDEX_POLL_MS));
    await check();
  }
}

interface EndedJob {
  row: CrawlJobRow;
  counts: { pages_crawled: number; pages_failed: number; finished_at: string; git_commit?: string };
  startedAt: number;
}

/** The row's final status. A cancel that lands while the crawl is finishing wins: the row already says cancelled. */
async function endCrawlJob(deps: CrawlServiceDeps, ended: EndedJob, outcome: CrawlOutcome, cancelled: boolean): Promise<void> {
  const { crawls, content } = deps.store;
  const { row, counts } = ended;
  const endCancelled = async () => {
    await crawls.transition(row.id, ["cancelled"], "cancelled", counts);
    logFinished(deps, ended, "cancelled");
  };
  if (cancelled) {
    // cancelled, or the source was deleted (then the row is gone); pages indexed so far stay
    await crawls.transition(row.id, ["running"], "cancelled", counts);
    return endCancelled();
  }
  const error = outcome.failure ? failureMessage(outcome.failure) : outcome.result!.error;
  if (error) {
    if (!(await crawls.transition(row.id, ["running"], "failed", { ...counts, error }))) return endCancelled();
    await content.updateSource(row.tenant_id, row.data_source_id, { error });
    logFinished(deps, ended, "failed", { error });
    await emitCrawlEnded(deps, row, error);
    return;
  }
  if (!(await crawls.transition(row.id, ["running"], "completed", { ...counts, error: null }))) return endCancelled();
  await content.updateSource(row.tenant_id, row.data_source_id, { error: null, last_synced_at: nowIso() });
  logFinished(deps, ended, "completed", { stop: outcome.result!.stopReason, requests: outcome.result!.requests, error: null });
  await emitCrawlEnded(deps, row, null);
}

/** One line per finished crawl (tenant, ids, counts, duration, error), and the metric. */
function logFinished(deps: Pick<CrawlServiceDeps, "log" | "observe">, ended: EndedJob, status: "completed" | "failed" | "cancelled", extra: Record<string, unknown> = {}): void {
  const { row, counts } = ended;
  deps.observe?.finished(status);
  const fields = {
    event: "crawl",
    crawl: row.id,
    tenant: row.tenant_id,
    data_source: row.data_source_id,
    status,
    pages_crawled: counts.pages_crawled,
    pages_failed: counts.pages_failed,
    ms: Date.now() - ended.startedAt,
    ...extra,
  };
  if (status === "failed") deps.log.warn(fields, "crawl failed");
  else deps.log.info(fields, `crawl ${status}`);
}

/** The queue gave up on a crawl job (attempts used up): say so on the crawl. */
export async function giveUpCrawl(deps: Pick<CrawlServiceDeps, "store" | "events">, job: { subject: string; kind: string }, error: string): Promise<void> {
  if (job.kind !== CRAWL_JOB_KIND) return;
  const row = await deps.store.crawls.transition(job.subject, ["queued", "running"], "failed", { error: `The crawl could not run: ${error}`, finished_at: nowIso() });
  if (!row) return;
  await deps.store.content.updateSource(row.tenant_id, row.data_source_id, { error: row.error });
  await emitCrawlEnded(deps, row, row.error);
}

/** Crawl queue recovery: every queued or running crawl has a live queue job. Returns how many were queued again. */
export async function recoverCrawls(deps: Pick<CrawlServiceDeps, "store" | "log">, queue: Pick<JobQueue, "enqueue">): Promise<number> {
  let n = 0;
  for (const row of await deps.store.crawls.unfinished()) if (await queue.enqueue({ ...queueJob(row), unlessLive: true })) n++;
  if (n) deps.log.info({ crawls: n }, "resuming interrupted crawls");
  return n;
}
