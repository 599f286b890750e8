// Website crawls: site check, crawl jobs (create, list, get, cancel, retry) and the crawl job
// handler that turns crawled pages into documents of a website data source.
//
// Crawls run on their own queue instance (kind "crawl", 1-2 workers) so a long crawl never holds
// an ingest worker; every page the crawl stores becomes an ordinary ingest job. The crawler engine
// (src/crawl) is storage-free: this service gives it the job's options, what earlier attempts
// already indexed (resume) and what an earlier crawl of the source saw (re-crawl), and stores what
// it hands over.
//
// The operations are named functions taking their dependencies: crawl-requests.ts (the API),
// crawl-runner.ts (the job), crawl-pages.ts (a crawled page becomes a document), crawl-model.ts
// (shared shapes). createCrawlService binds them to one set of dependencies for the runtime.
import type { RecoveryHook, RunningJob } from "../../jobs/types.js";
import type { Principal } from "../auth/auth.js";
import { RunningCrawls, type CrawlCreateBody, type CrawlServiceDeps } from "./crawl-types.js";
import { cancelCrawl, checkCrawlSite, crawlPages, createCrawl, getCrawl, isSourceSyncing, listCrawlPage, listCrawls, retryCrawl } from "./crawl-requests.js";
import { giveUpCrawl, handleCrawlJob, recoverCrawls } from "./crawl-runner.js";
import { forgetGitMirror, startGitSync } from "./git-sync.js";

export { CRAWL_JOB_KIND, PAGES_DEFAULT_LIMIT, PAGES_MAX_LIMIT, crawlOut, type CrawlCreateBody, type CrawlOut, type CrawlServiceDeps } from "./crawl-types.js";

export function createCrawlService(deps: CrawlServiceDeps) {
  /** crawls running in this process, for prompt cancel and shutdown */
  const running = new RunningCrawls();
  const recover: RecoveryHook = (queue) => recoverCrawls(deps, queue);
  return {
    /** POST /crawl/check: the URL policy first (400), then a handful of requests; indexes nothing. */
    check: (p: Principal, url: string) => checkCrawlSite(deps, p, url),
    /** POST /crawl: validates, finds or creates the website source, saves the settings, queues the job. */
    create: (p: Principal, body: CrawlCreateBody) => createCrawl(deps, p, body),
    /** POST /data-sources/{id}/sync of a git source: a sync job (a crawl job of the source) with its saved settings */
    syncGit: (p: Principal, sourceId: string) => startGitSync(deps, p, sourceId),
    /** a deleted source: its git mirror, if this process has one */
    forgetSource: (tenantId: string, sourceId: string) => forgetGitMirror(deps, tenantId, sourceId),
    list: (p: Principal) => listCrawls(deps, p),
    listPage: (p: Principal, o: { limit?: number; cursor?: string }) => listCrawlPage(deps, p, o),
    get: (p: Principal, id: string) => getCrawl(deps, p, id),
    /** GET /crawl/{id}/pages: failed pages (with the reason) and handed-over pages (with their indexing state). */
    pages: (p: Principal, id: string, o: { status?: string; limit?: number; cursor?: string }) => crawlPages(deps, p, id, o),
    /** queued or running -> cancelled; a running crawl stops promptly, its indexed pages stay. */
    cancel: (p: Principal, id: string) => cancelCrawl(deps, running, p, id),
    /** failed or cancelled -> queued: resumes, skipping the pages it already indexed. */
    retry: (p: Principal, id: string) => retryCrawl(deps, p, id),
    /** "syncing" of a data source: a crawl of it is queued or running */
    isSyncing: (sourceId: string) => isSourceSyncing(deps, sourceId),
    /** the crawl queue's handler */
    handle: (job: RunningJob) => handleCrawlJob(deps, running, job),
    /** the queue gave up on a crawl job (attempts used up): say so on the crawl */
    giveUp: (job: { subject: string; kind: string }, error: string) => giveUpCrawl(deps, job, error),
    /** crawl queue recovery: every queued or running crawl has a live queue job */
    recover,
    /** Stops running crawls so the queue can stop; they are requeued and resume at next start. Returns how many. */
    shutdown: () => running.stopAll(),
  };
}

export type CrawlService = ReturnType<typeof createCrawlService>;
