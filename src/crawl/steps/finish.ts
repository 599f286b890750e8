// Finish step: the crawl's result from its counts, why it stopped, and its error when nothing
// was crawled.

import type { CrawlResult, CrawlStopReason } from "../types.js";
import type { CrawlState } from "./state.js";

/** The result as the caller sees it; `state` may be a bare one when the crawl ended before it began. */
export function crawlResult(state: Pick<CrawlState, "plan" | "counts" | "crawlDelay">, requests: number, stopReason: CrawlStopReason, error: string | null): CrawlResult {
  const { counts } = state;
  return {
    pagesCrawled: state.plan.already.size + counts.pagesThisRun,
    pagesThisRun: counts.pagesThisRun,
    unchangedPages: counts.unchangedPages,
    errors: counts.errors,
    skipped: counts.skipped,
    requests,
    stopReason,
    error,
    crawlDelay: state.crawlDelay,
  };
}

/** Cancelled by the caller wins over the request budget, which wins over the page limit. */
export function stopReasonOf(state: CrawlState, how: { cancelled: boolean; requestBudgetSpent: boolean }): CrawlStopReason {
  if (how.cancelled) return "cancelled";
  if (how.requestBudgetSpent) return "request_budget";
  if (state.counts.pagesThisRun >= state.plan.budget) return "page_limit";
  return "completed";
}

/**
 * The crawl's error: set only when it ended with no page at all (this attempt or earlier ones) and
 * was not cancelled; the start page's failure says why best.
 */
export function crawlError(state: CrawlState, stopReason: CrawlStopReason): string | null {
  if (stopReason === "cancelled" || state.plan.already.size + state.counts.pagesThisRun > 0) return null;
  return state.startError ?? `No crawlable pages were found from ${state.plan.url}; check include_paths and robots.txt.`;
}
