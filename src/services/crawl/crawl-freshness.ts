// What a crawl did to each page of its source, beyond storing it: the outcome of every page
// (new, changed, unchanged, failed, removed) recorded once per job and URL so the counts are exact
// however many attempts ran, and at the end of a crawl the pages it missed: removed after
// `removeAfterMisses` consecutive misses (gone: 404/410, or neither linked nor in the sitemap any
// more), or kept at their last good version and marked stale when they failed otherwise.

import type { CrawlJobRow } from "../../store/crawl-types.js";
import { type OutcomeCounts, type PageOutcome } from "../../store/freshness-types.js";
import { nowIso } from "../../store/ids.js";
import type { CrawlServiceDeps } from "./crawl-types.js";

type Deps = Pick<CrawlServiceDeps, "store" | "files" | "log" | "config">;

/** Consecutive misses after which a page is removed, unless the deployment sets another number. */
export const DEFAULT_REMOVE_AFTER_MISSES = 2;

/** 404 and 410 say the page is gone; any other failure may pass (5xx, timeouts, too large). */
export const isGone = (status: number | null | undefined) => status === 404 || status === 410;

export async function recordOutcome(deps: Pick<CrawlServiceDeps, "store">, row: CrawlJobRow, url: string, outcome: PageOutcome, httpStatus: number | null = null): Promise<void> {
  await deps.store.freshness.recordOutcome({
    job_id: row.id,
    tenant_id: row.tenant_id,
    data_source_id: row.data_source_id,
    url,
    outcome,
    http_status: httpStatus,
    at: nowIso(),
  });
}

/** The job's counts by outcome (all zero for a job that recorded none). */
export async function outcomeCounts(deps: Pick<CrawlServiceDeps, "store">, jobId: string): Promise<OutcomeCounts> {
  return deps.store.freshness.outcomeCounts(jobId);
}

/**
 * After a crawl that ended well: each page of the source it did not hand over. A crawl that saw
 * the whole site (`complete`: not stopped by its page limit or request budget) counts a miss for
 * pages it never reached; any crawl counts one for a 404/410. Other failures keep the page, stale.
 * Returns the URLs removed.
 */
export async function settleMissedPages(deps: Deps, row: CrawlJobRow, complete: boolean): Promise<string[]> {
  const { freshness, content } = deps.store;
  const failed = await freshness.failedStatuses(row.id);
  const removed: string[] = [];
  for (const page of await freshness.missedPages(row.data_source_id, row.id)) {
    // another attempt of this job (one running beside it, or before a crash) counted it already
    if (page.miss_job_id === row.id) continue;
    const status = failed.get(page.url);
    const miss = { tenant_id: row.tenant_id, data_source_id: row.data_source_id, url: page.url, job_id: row.id };
    if (status !== undefined && !isGone(status)) {
      await freshness.setMiss({ ...miss, misses: page.misses, stale_since: page.stale_since ?? nowIso(), reason: `HTTP ${status ?? "no answer"}` });
      continue;
    }
    if (status === undefined && !complete) continue; // not reached because the crawl stopped early
    const misses = page.misses + 1;
    if (misses < (deps.config.removeAfterMisses ?? DEFAULT_REMOVE_AFTER_MISSES)) {
      await freshness.setMiss({ ...miss, misses, stale_since: null, reason: status === undefined ? "not found by the crawl" : `HTTP ${status}` });
      continue;
    }
    if (await content.deleteDocument(row.tenant_id, page.document_id)) await deps.files.remove(row.tenant_id, page.document_id);
    await freshness.forgetPage(row.data_source_id, page.url);
    await recordOutcome(deps, row, page.url, "removed", status ?? null);
    removed.push(page.url);
  }
  if (removed.length) deps.log.info({ crawl: row.id, removed: removed.length }, "pages removed from the index");
  return removed;
}
