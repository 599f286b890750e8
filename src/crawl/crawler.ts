// The crawl engine: breadth-first over one site, storage-free. Pages go to a sink; the caller
// (the crawl service) stores them and decides what a job's status becomes.
//
// Decisions (also in the report to the lead):
// - Order: the start URL first, alone; then its links, then /llms.txt links, then sitemap URLs,
//   all at depth 1. With maxDepth 0 only the start URL is fetched (no sitemap, no llms.txt).
// - Site: the start URL's host after redirects, ignoring a leading "www." and http/https; links
//   to the other spelling are rewritten to the site's own before they are queued.
// - include_paths: path prefixes. The start URL is always fetched so its links can be followed,
//   but it is handed to the sink only when it matches.
// - Identity of a page (CrawledPage.url): its rel=canonical URL when that is same-site and in
//   scope, else its final URL after redirects, normalised. A page whose identity was already
//   handed (or crawled by an earlier attempt), or is still to be fetched, is skipped as a
//   duplicate; so is a body whose sha256 equals one already handed in this run.
// - Markdown twins: an advertised twin (<link rel="alternate" type="text/markdown">) is fetched
//   and handed instead of the HTML (format "markdown", links still from the HTML). Unadvertised
//   twins are probed once at the start page (<url>.md / index.html.md); only if that answers
//   with Markdown is the same pattern tried for every HTML page, falling back to the HTML.
// - pages_crawled counts pages handed to the sink, unchanged ones included: a re-crawl with the
//   same page_limit revisits the same pages. Pages of earlier attempts (alreadyCrawled) count
//   toward the limit but are neither fetched nor handed again; their stored links are expanded.
// - Oversized pages (> maxPageBytes after decompression) are skipped with an error, never
//   truncated: half a page indexes misleading text and half a PDF does not parse.
// - Conditional requests only where a 304 leaves nothing unknown: non-HTML pages, or HTML pages
//   whose stored links came with `previous`. Never with renderJs (the shell may not change when
//   the content does). Every page is also compared by content hash.
// - Cancellation resolves with stopReason "cancelled" after aborting in-flight requests; a
//   failing sink rejects the crawl.

import { describeError } from "./errors.js";
import { createFetcher } from "./fetcher.js";
import { DEFAULT_HOST_CONCURRENCY } from "./limits.js";
import { createRenderer, type Renderer } from "./render.js";
import type { CrawlOptions, CrawlResult, CrawlSink, CrawlStopReason } from "./types.js";
import { createUrlPolicy, normalizeUrl } from "./url-policy.js";
import { admitStart, discoverSeeds, honourCrawlDelay, settleTwinMode } from "./steps/discover.js";
import { crawlError, crawlResult, stopReasonOf } from "./steps/finish.js";
import { CrawlNetwork } from "./steps/network.js";
import { processItem } from "./steps/process.js";
import { CrawlScheduler } from "./steps/schedule.js";
import { clamp, createCrawlState, createReport, planCrawl, type CrawlReport, type CrawlState } from "./steps/state.js";

export { sha256 } from "./steps/hand.js";
export { UrlPolicyError } from "./errors.js";

/** Why a crawl ended before its first page. */
interface EarlyEnd {
  stopReason: CrawlStopReason;
  error: string | null;
}

export async function runCrawl(options: CrawlOptions, sink: CrawlSink, signal?: AbortSignal): Promise<CrawlResult> {
  const plan = planCrawl(options);
  // one controller for the whole crawl: the caller's cancel, the request budget and a failing sink all stop it
  const stop = new AbortController();
  const onOuterAbort = () => stop.abort();
  if (signal?.aborted) stop.abort();
  else signal?.addEventListener("abort", onOuterAbort, { once: true });
  const guard = options.guard ?? createUrlPolicy({ allowPrivateNetworks: options.allowPrivateNetworks ?? false });
  const fetcher = createFetcher({ guard, userAgent: options.userAgent, timeoutMs: options.requestTimeoutMs, maxBytes: options.maxPageBytes });
  const net = new CrawlNetwork(fetcher, stop, plan.maxRequests, options.renderer ?? null);

  let start: URL;
  try {
    start = await admitStart(options.url, guard, stop.signal);
  } catch (err) {
    fetcher.close();
    signal?.removeEventListener("abort", onOuterAbort);
    const none = { plan, counts: { pagesThisRun: 0, unchangedPages: 0, errors: 0, skipped: 0 }, crawlDelay: null };
    if (stop.signal.aborted) return crawlResult(none, fetcher.requestCount, "cancelled", null);
    return crawlResult(none, fetcher.requestCount, "completed", describeError(err));
  }

  const state = createCrawlState(plan, start);
  const report: CrawlReport = createReport(state, sink, () => scheduler.notify());
  const scheduler = new CrawlScheduler(state, stop.signal, () => stop.abort(), (item) => processItem(state, net, report, item), () => report.progress());
  let ownRenderer: Renderer | null = null;
  let early: EarlyEnd | null = null;
  try {
    if (plan.budget <= 0) early = { stopReason: "page_limit", error: null };
    else if (plan.renderJs && !net.renderer) {
      try {
        ownRenderer = await createRenderer({ guard, userAgent: options.userAgent, maxBytes: options.maxPageBytes });
        net.renderer = ownRenderer;
      } catch (err) {
        early = { stopReason: "completed", error: describeError(err) };
      }
    }
    if (!early) await crawlSite(state, net, scheduler, report, options.concurrency);
  } catch (err) {
    scheduler.noteFailure(err);
  } finally {
    signal?.removeEventListener("abort", onOuterAbort);
    stop.abort(); // ends anything still in flight
    if (ownRenderer) await ownRenderer.close();
    fetcher.close();
  }

  if (early) return crawlResult(state, fetcher.requestCount, early.stopReason, early.error);
  if (scheduler.failure) throw scheduler.failure;
  const stopReason = stopReasonOf(state, { cancelled: signal?.aborted ?? false, requestBudgetSpent: net.requestBudgetSpent });
  report.progress();
  return crawlResult(state, fetcher.requestCount, stopReason, crawlError(state, stopReason));
}

/** The crawl proper: the start page alone, then the seeds, then workers until the frontier is done. */
async function crawlSite(state: CrawlState, net: CrawlNetwork, scheduler: CrawlScheduler, report: CrawlReport, concurrency?: number): Promise<void> {
  const start = state.site;
  honourCrawlDelay(state, net, await net.robotsFor(start));

  // The start page goes alone: it fixes the site (after redirects) and the twin mode.
  const startNorm = normalizeUrl(start);
  state.seen.add(startNorm);
  await scheduler.runItem({ url: startNorm, depth: 0, source: "start" }, !state.plan.already.has(startNorm));
  await settleTwinMode(state, net, startNorm);
  if (state.site.origin !== start.origin) honourCrawlDelay(state, net, await net.robotsFor(state.site));
  const workers = state.crawlDelay ? 1 : clamp(concurrency ?? DEFAULT_HOST_CONCURRENCY, 1, 16);

  if (!net.signal.aborted && !scheduler.failure && state.counts.pagesThisRun < state.plan.budget) await discoverSeeds(state, net, report);
  await scheduler.run(workers);
}
