// The state one crawl shares between its steps (discover, fetch, extract, enqueue, hand, finish):
// the settings fixed before the first request (CrawlPlan), the frontier and what has been seen
// (CrawlState), and the one way steps report what became of a URL (CrawlReport). Steps take these
// explicitly, so each can be driven alone in a test with a state built by createCrawlState.

import { DEFAULT_MAX_DEPTH, DEFAULT_PAGE_LIMIT, MAX_DEPTH, MAX_PAGE_LIMIT } from "../limits.js";
import { TrapGuard, normalizeIncludePaths } from "../scope.js";
import type { CrawlOptions, CrawlSink, CrawledPage, PreviousPage } from "../types.js";

/** How a URL was found: it decides the link-trap caps (sitemap and llms.txt skip the shape caps). */
export type ItemSource = "start" | "link" | "sitemap" | "llms";

export interface QueueItem {
  /** normalised, in the site's own spelling */
  url: string;
  depth: number;
  source: ItemSource;
}

export const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.floor(n)));

/** Settings of one crawl, clamped and settled before the first request; never change. */
export interface CrawlPlan {
  /** the URL as asked, for the error when nothing could be crawled */
  url: string;
  maxDepth: number;
  pageLimit: number;
  /** pages this attempt may hand over: pageLimit less the pages of earlier attempts */
  budget: number;
  includePaths: string[];
  renderJs: boolean;
  /** pages handed over by earlier attempts of the job, with their stored links */
  already: ReadonlyMap<string, { links: string[] }>;
  /** validators of an earlier crawl of the source (re-crawl), if the caller keeps them */
  previous: ((url: string) => PreviousPage | null | Promise<PreviousPage | null>) | null;
  /** HTTP requests after which the crawl stops (a trap no other guard caught) */
  maxRequests: number;
}

export function planCrawl(options: CrawlOptions): CrawlPlan {
  const pageLimit = clamp(options.pageLimit ?? DEFAULT_PAGE_LIMIT, 1, MAX_PAGE_LIMIT);
  const already = options.alreadyCrawled ?? new Map<string, { links: string[] }>();
  return {
    url: options.url,
    maxDepth: clamp(options.maxDepth ?? DEFAULT_MAX_DEPTH, 0, MAX_DEPTH),
    pageLimit,
    budget: Math.max(0, pageLimit - already.size),
    includePaths: normalizeIncludePaths(options.includePaths),
    renderJs: options.renderJs ?? false,
    already,
    previous: options.previous ?? null,
    maxRequests: pageLimit * 5 + 200,
  };
}

export interface CrawlCounts {
  /** pages handed to the sink by this attempt, unchanged ones included */
  pagesThisRun: number;
  unchangedPages: number;
  errors: number;
  skipped: number;
}

export interface CrawlState {
  readonly plan: CrawlPlan;
  /** the site being crawled: the start URL, then its final URL once the start page answered */
  site: URL;
  /** FIFO of URLs to fetch; items before head were taken */
  readonly queue: QueueItem[];
  head: number;
  /** URLs queued or known (redirect targets, canonicals, twins): never queued again */
  readonly seen: Set<string>;
  /** identities and final URLs whose content was processed */
  readonly claimed: Set<string>;
  /** URLs queued or being processed, not finished yet (a canonical duplicate yields to them) */
  readonly pending: Set<string>;
  /** content hash -> identity of the page handed with it, in this attempt */
  readonly handedHashes: Map<string, string>;
  /** sitemap <lastmod> by normalised URL, however the URL was queued (links come first) */
  readonly lastmod: Map<string, string>;
  readonly traps: TrapGuard;
  /** unadvertised Markdown twins: decided by probing at the start page */
  twinMode: "unknown" | "probe" | "none";
  readonly counts: CrawlCounts;
  /** why the start page could not be crawled; becomes the crawl's error if nothing was */
  startError: string | null;
  /** robots.txt Crawl-delay honoured, seconds */
  crawlDelay: number | null;
}

export function createCrawlState(plan: CrawlPlan, start: URL): CrawlState {
  return {
    plan,
    site: start,
    queue: [],
    head: 0,
    seen: new Set(),
    claimed: new Set(),
    pending: new Set(),
    handedHashes: new Map(),
    lastmod: new Map(),
    traps: new TrapGuard(),
    twinMode: "unknown",
    counts: { pagesThisRun: 0, unchangedPages: 0, errors: 0, skipped: 0 },
    startError: null,
    crawlDelay: null,
  };
}

/** What became of URLs: counted here and told to the sink. */
export interface CrawlReport {
  /** hands a page to the sink; a rejection fails the crawl */
  page(page: CrawledPage): Promise<void>;
  /** a URL that could not be crawled */
  fail(url: string, message: string, status?: number): void;
  /** a URL deliberately not fetched, or fetched but not handed over */
  skip(url: string, reason: string): void;
  /** a URL was queued: idle workers may go on */
  queued(): void;
  progress(): void;
}

export function createReport(state: CrawlState, sink: CrawlSink, onQueued: () => void = () => undefined): CrawlReport {
  const { counts } = state;
  return {
    async page(page) {
      await sink.onPage(page);
      counts.pagesThisRun++;
      if (page.unchanged) counts.unchangedPages++;
    },
    fail(url, message, status) {
      counts.errors++;
      sink.onError?.(url, message, status);
    },
    skip(url, reason) {
      counts.skipped++;
      sink.onSkip?.(url, reason);
    },
    queued: onQueued,
    progress() {
      sink.onProgress?.({ pagesCrawled: state.plan.already.size + counts.pagesThisRun, queued: state.queue.length - state.head, errors: counts.errors });
    },
  };
}

/** A failed item; a failing start page also gives the crawl its error. */
export function failItem(state: CrawlState, report: CrawlReport, item: QueueItem, message: string, status?: number): void {
  if (item.source === "start") state.startError = message;
  report.fail(item.url, message, status);
}
