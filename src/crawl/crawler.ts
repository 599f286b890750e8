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
//   handed (or crawled by an earlier attempt) is skipped as a duplicate; so is a body whose
//   sha256 equals one already handed in this run.
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

import { createHash } from "node:crypto";
import { FetchError, UrlPolicyError, describeError } from "./errors.js";
import { createFetcher, type Fetcher, type FetchResult } from "./fetcher.js";
import { detectFormat, mimeType } from "./formats.js";
import {
  DEFAULT_HOST_CONCURRENCY,
  DEFAULT_MAX_DEPTH,
  DEFAULT_PAGE_LIMIT,
  MAX_CRAWL_DELAY_SECONDS,
  MAX_DEPTH,
  MAX_LINKS_PER_PAGE,
  MAX_PAGE_LIMIT,
  MAX_SITEMAP_FETCHES,
} from "./limits.js";
import { analyzeHtml, decodeHtml, extractMarkdownLinks, looksLikeMarkdown, markdownTitle, markdownTwinCandidate } from "./links.js";
import { fetchLlmsTxt } from "./llms-txt.js";
import { createRenderer, type Renderer } from "./render.js";
import { fetchRobots, type RobotsInfo } from "./robots.js";
import { TrapGuard, inIncludePaths, normalizeIncludePaths, sameSite } from "./scope.js";
import { collectSitemaps } from "./sitemap.js";
import type { CrawlOptions, CrawlResult, CrawlSink, CrawledPage, PageFormat, PreviousPage } from "./types.js";
import { createUrlPolicy, normalizeUrl, parseCrawlUrl, tryNormalizeUrl } from "./url-policy.js";

type Source = "start" | "link" | "sitemap" | "llms";

interface QueueItem {
  url: string;
  depth: number;
  source: Source;
}

class Skip {
  constructor(readonly reason: string) {}
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.floor(n)));

export function sha256(body: Buffer): string {
  return createHash("sha256").update(body).digest("hex");
}

/** Spaces request starts at least delayMs apart (robots.txt Crawl-delay). */
class PolitenessGate {
  private next = 0;
  constructor(private readonly delayMs: number) {}
  async wait(signal: AbortSignal): Promise<void> {
    if (this.delayMs <= 0) return;
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + this.delayMs;
    const ms = at - now;
    if (ms <= 0) return;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(new FetchError("aborted", "The request was cancelled.", ""));
      };
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}

export async function runCrawl(options: CrawlOptions, sink: CrawlSink, signal?: AbortSignal): Promise<CrawlResult> {
  const maxDepth = clamp(options.maxDepth ?? DEFAULT_MAX_DEPTH, 0, MAX_DEPTH);
  const pageLimit = clamp(options.pageLimit ?? DEFAULT_PAGE_LIMIT, 1, MAX_PAGE_LIMIT);
  const includePaths = normalizeIncludePaths(options.includePaths);
  const already = options.alreadyCrawled ?? new Map<string, { links: string[] }>();
  const budget = Math.max(0, pageLimit - already.size);
  const renderJs = options.renderJs ?? false;

  const stop = new AbortController();
  const onOuterAbort = () => stop.abort();
  if (signal?.aborted) stop.abort();
  else signal?.addEventListener("abort", onOuterAbort, { once: true });
  const crawlSignal = stop.signal;

  const guard = options.guard ?? createUrlPolicy({ allowPrivateNetworks: options.allowPrivateNetworks ?? false });
  const fetcher: Fetcher = createFetcher({
    guard,
    userAgent: options.userAgent,
    timeoutMs: options.requestTimeoutMs,
    maxBytes: options.maxPageBytes,
  });
  const maxRequests = pageLimit * 5 + 200;

  let pagesThisRun = 0;
  let unchangedPages = 0;
  let errors = 0;
  let skipped = 0;
  let crawlDelay: number | null = null;
  let startError: string | null = null;
  let ownRenderer: Renderer | null = null;
  let renderer: Renderer | null = options.renderer ?? null;
  let sinkFailure: unknown = null;
  let budgetExhaustedRequests = false;

  const result = (stopReason: CrawlResult["stopReason"], error: string | null): CrawlResult => ({
    pagesCrawled: already.size + pagesThisRun,
    pagesThisRun,
    unchangedPages,
    errors,
    skipped,
    requests: fetcher.requestCount,
    stopReason,
    error,
    crawlDelay,
  });

  let start: URL;
  try {
    start = parseCrawlUrl(options.url);
    await guard.check(start, crawlSignal);
  } catch (err) {
    fetcher.close();
    signal?.removeEventListener("abort", onOuterAbort);
    if (crawlSignal.aborted) return result("cancelled", null);
    return result("completed", describeError(err));
  }
  const startNorm = normalizeUrl(start);
  let site = start;

  // --- bookkeeping -----------------------------------------------------------------------------
  const queue: QueueItem[] = [];
  let head = 0;
  const seen = new Set<string>(); // queued or known; never queued again
  const claimed = new Set<string>(); // identities and final URLs whose content was processed
  const handedHashes = new Map<string, string>();
  const traps = new TrapGuard();
  const robotsByOrigin = new Map<string, Promise<RobotsInfo>>();
  let gate = new PolitenessGate(0);
  let twinMode: "unknown" | "probe" | "none" = "unknown";
  let reserved = 0;
  let active = 0;
  const waiters: Array<() => void> = [];
  const notify = () => {
    for (const w of waiters.splice(0)) w();
  };
  const waitForChange = () => new Promise<void>((resolve) => waiters.push(resolve));
  crawlSignal.addEventListener("abort", notify, { once: true });

  const progress = () =>
    sink.onProgress?.({ pagesCrawled: already.size + pagesThisRun, queued: queue.length - head, errors });
  const fail = (url: string, message: string) => {
    errors++;
    sink.onError?.(url, message);
  };
  const skip = (url: string, reason: string) => {
    skipped++;
    sink.onSkip?.(url, reason);
  };

  const robotsFor = (url: URL): Promise<RobotsInfo> => {
    let p = robotsByOrigin.get(url.origin);
    if (!p) {
      p = fetchRobots(url.origin, fetcher, { signal: crawlSignal });
      robotsByOrigin.set(url.origin, p);
    }
    return p;
  };

  const inScope = (u: URL) => sameSite(u, site) && inIncludePaths(u, includePaths);

  /**
   * Normalised URL in the site's own spelling, or null when off-site: once the start page showed
   * whether the site lives at www or the apex, on http or https, links to the other spelling are
   * rewritten instead of being fetched only to redirect (and racing their twin in parallel).
   */
  const onSite = (raw: string): string | null => {
    const norm = tryNormalizeUrl(raw);
    if (!norm) return null;
    const u = new URL(norm);
    if (!sameSite(u, site)) return null;
    if (u.hostname === site.hostname && u.protocol === site.protocol) return norm;
    u.protocol = site.protocol;
    u.hostname = site.hostname;
    return normalizeUrl(u);
  };

  const enqueue = (raw: string, depth: number, source: Source): void => {
    if (depth > maxDepth) return;
    const norm = onSite(raw);
    if (!norm || seen.has(norm)) return;
    const u = new URL(norm);
    if (!inIncludePaths(u, includePaths)) return;
    const trap = traps.admit(u, source === "sitemap" || source === "llms");
    if (trap) {
      seen.add(norm);
      skip(norm, `Not crawled: ${trap}.`);
      return;
    }
    seen.add(norm);
    queue.push({ url: norm, depth, source });
    notify();
  };

  const sameSiteLinks = (links: string[]): string[] => {
    const out: string[] = [];
    const dedup = new Set<string>();
    for (const l of links) {
      const n = onSite(l);
      if (!n || dedup.has(n)) continue;
      dedup.add(n);
      out.push(n);
      if (out.length >= MAX_LINKS_PER_PAGE) break;
    }
    return out;
  };

  const politeFetch = async (url: string, req: Parameters<Fetcher["fetch"]>[1] = {}): Promise<FetchResult> => {
    if (fetcher.requestCount >= maxRequests) {
      budgetExhaustedRequests = true;
      stop.abort();
      throw new FetchError("aborted", "The crawl's request budget is spent.", url);
    }
    await gate.wait(crawlSignal);
    return fetcher.fetch(url, { ...req, signal: crawlSignal });
  };

  const hand = async (page: CrawledPage): Promise<void> => {
    await sink.onPage(page);
    pagesThisRun++;
    if (page.unchanged) unchangedPages++;
  };

  // --- one page ----------------------------------------------------------------------------------
  const fetchTwin = async (
    twinUrl: string,
    prev: PreviousPage | null,
  ): Promise<{ res: FetchResult; unchanged: boolean } | null> => {
    const u = new URL(twinUrl);
    if (!sameSite(u, site)) return null;
    if (!(await robotsFor(u)).allowed(twinUrl)) return null;
    const conditional = prev?.format === "markdown";
    try {
      const res = await politeFetch(twinUrl, {
        etag: conditional ? prev?.etag : null,
        lastModified: conditional ? prev?.lastModified : null,
        accept: "text/markdown,text/plain;q=0.9,*/*;q=0.1",
      });
      if (res.status === 304 && conditional) return { res, unchanged: true };
      if (res.status >= 200 && res.status < 300 && looksLikeMarkdown(res.body, res.contentType)) return { res, unchanged: false };
    } catch (err) {
      if (crawlSignal.aborted) throw err;
    }
    return null;
  };

  const processItem = async (item: QueueItem): Promise<void> => {
    const isStart = item.source === "start";
    const stored = already.get(item.url);
    if (stored) {
      for (const l of stored.links) enqueue(l, item.depth + 1, "link");
      claimed.add(item.url);
      return;
    }
    if (claimed.has(item.url)) {
      skip(item.url, "Duplicate of a page already crawled (canonical URL or redirect target).");
      return;
    }
    const url = new URL(item.url);
    const robots = await robotsFor(url);
    if (robots.state === "unreachable") {
      const msg = robots.detail;
      if (isStart) startError = msg;
      fail(item.url, msg);
      return;
    }
    if (!robots.allowed(item.url)) {
      if (isStart) startError = `robots.txt disallows ${item.url} for QuarryBot.`;
      skip(item.url, "Disallowed by robots.txt.");
      return;
    }

    const prev = options.previous ? await options.previous(item.url) : null;
    const prevTwin = prev?.format === "markdown" && !/\.(md|markdown|mdx)$/i.test(url.pathname);
    const conditional =
      !!prev && !renderJs && !prevTwin && (prev.links !== undefined || (prev.format !== undefined && prev.format !== "html"));

    let res: FetchResult;
    try {
      res = await politeFetch(item.url, {
        etag: conditional ? prev?.etag : null,
        lastModified: conditional ? prev?.lastModified : null,
      });
    } catch (err) {
      if (crawlSignal.aborted) return;
      const msg = describeError(err);
      if (isStart) startError = msg;
      fail(item.url, msg);
      return;
    }

    if (res.status === 304 && conditional && prev) {
      const finalNorm = normalizeUrl(res.finalUrl);
      claimed.add(item.url);
      claimed.add(finalNorm);
      const links = sameSiteLinks(prev.links ?? []);
      if (!isStart || inIncludePaths(url, includePaths)) {
        await hand({
          url: item.url,
          finalUrl: res.finalUrl,
          depth: item.depth,
          contentType: null,
          body: Buffer.alloc(0),
          format: prev.format ?? "html",
          etag: res.etag ?? prev.etag,
          lastModified: res.lastModified ?? prev.lastModified,
          contentHash: prev.contentHash,
          links,
          unchanged: true,
        });
      }
      for (const l of links) enqueue(l, item.depth + 1, "link");
      return;
    }
    if (res.status < 200 || res.status >= 300) {
      const msg = `${item.url} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}.`;
      if (isStart) startError = msg;
      fail(item.url, msg);
      return;
    }

    const final = new URL(res.finalUrl);
    const finalNorm = normalizeUrl(final);
    if (isStart) site = final; // e.g. apex -> www, http -> https
    if (!sameSite(final, site)) {
      skip(item.url, `Redirects to another site (${res.finalUrl}).`);
      return;
    }
    if (finalNorm !== item.url) {
      seen.add(finalNorm);
      if (claimed.has(finalNorm) || already.has(finalNorm)) {
        skip(item.url, `Duplicate of ${finalNorm} (redirect).`);
        return;
      }
      if (!(await robotsFor(final)).allowed(res.finalUrl)) {
        skip(item.url, `Redirects to ${res.finalUrl}, which robots.txt disallows.`);
        return;
      }
    }
    claimed.add(item.url);
    claimed.add(finalNorm);

    const format = detectFormat(res.contentType, res.finalUrl, res.body);
    if (!format) {
      skip(item.url, `Unsupported content type ${mimeType(res.contentType) || "(none)"}.`);
      return;
    }

    let identity = finalNorm;
    let body = res.body;
    let contentType = res.contentType;
    let pageFormat: PageFormat = format;
    let etag = res.etag;
    let lastModified = res.lastModified;
    let fetchedUrl = res.finalUrl;
    let title: string | undefined;
    let links: string[] = [];
    let unchanged = false;
    let handOver = isStart ? inIncludePaths(final, includePaths) : true;
    let skipReason = handOver ? null : "The start URL is outside include_paths; only its links were followed.";

    if (format === "html") {
      let html: string;
      if (renderJs && renderer) {
        try {
          const rendered = await renderer.render({ url: res.finalUrl, body: res.body, contentType: res.contentType, signal: crawlSignal });
          html = rendered.html;
          body = Buffer.from(html, "utf8");
          contentType = "text/html; charset=utf-8";
        } catch (err) {
          if (crawlSignal.aborted) return;
          const msg = describeError(err);
          if (isStart) startError = msg;
          fail(item.url, msg);
          return;
        }
      } else {
        html = decodeHtml(res.body, res.contentType);
      }
      const a = analyzeHtml(html, res.finalUrl);
      title = a.title ?? undefined;
      links = a.robots.nofollow ? [] : sameSiteLinks(a.links);
      if (a.robots.noindex && handOver) {
        handOver = false;
        skipReason = "The page asks not to be indexed (robots noindex).";
      }
      if (a.canonical) {
        const c = onSite(a.canonical);
        if (c && c !== identity) {
          if (inIncludePaths(new URL(c), includePaths)) {
            if ((claimed.has(c) || already.has(c)) && handOver) {
              for (const l of links) enqueue(l, item.depth + 1, "link");
              skip(item.url, `Duplicate of its canonical URL ${c}.`);
              return;
            }
            identity = c;
            seen.add(c);
            claimed.add(c);
          }
        }
      }

      // Markdown twin: advertised on the page, or at the probed location when the start page
      // showed that the site serves unadvertised twins. The start page probes even when it is
      // outside include_paths, since it decides for the rest of the site.
      const advertised = a.markdownTwin && sameSite(new URL(a.markdownTwin), site) ? a.markdownTwin : null;
      const decideMode = isStart && twinMode === "unknown" && !advertised;
      if (handOver || decideMode) {
        const twinUrl = advertised ?? (twinMode === "probe" || decideMode ? markdownTwinCandidate(res.finalUrl) : null);
        const twinNorm = twinUrl ? tryNormalizeUrl(twinUrl) : null;
        if (twinNorm) seen.add(twinNorm);
        const twin = twinUrl ? await fetchTwin(twinUrl, prev) : null;
        if (decideMode) twinMode = twin ? "probe" : "none";
        if (twin && handOver) {
          pageFormat = "markdown";
          fetchedUrl = twin.res.finalUrl;
          etag = twin.res.etag;
          lastModified = twin.res.lastModified;
          if (twin.unchanged && prev) {
            body = Buffer.alloc(0);
            contentType = null;
            unchanged = true;
          } else {
            body = twin.res.body;
            contentType = twin.res.contentType;
            title = markdownTitle(body.toString("utf8")) ?? title;
          }
          if (twinNorm) claimed.add(twinNorm);
        }
      }
    } else if (format === "markdown") {
      const text = body.toString("utf8");
      title = markdownTitle(text) ?? undefined;
      links = sameSiteLinks(extractMarkdownLinks(text, res.finalUrl));
    }

    if (item.depth < maxDepth) for (const l of links) enqueue(l, item.depth + 1, "link");

    if (!handOver) {
      skip(item.url, skipReason ?? "Not indexed.");
      return;
    }
    const contentHash = unchanged && prev ? prev.contentHash : sha256(body);
    if (!unchanged) {
      const dup = handedHashes.get(contentHash);
      if (dup && dup !== identity) {
        skip(item.url, `Same content as ${dup}.`);
        return;
      }
      handedHashes.set(contentHash, identity);
      if (prev && prev.contentHash === contentHash) unchanged = true;
    }
    await hand({
      url: identity,
      finalUrl: fetchedUrl,
      depth: item.depth,
      contentType,
      body,
      format: pageFormat,
      title,
      etag,
      lastModified,
      contentHash,
      links,
      unchanged,
    });
  };

  // --- seeds -------------------------------------------------------------------------------------
  const seed = async (): Promise<void> => {
    if (maxDepth < 1) return;
    const remaining = () => budget - pagesThisRun;
    const llms = await fetchLlmsTxt(site.origin, fetcher, { signal: crawlSignal });
    for (const l of llms.parsed.links) enqueue(l.url, 1, "llms");
    const robots = await robotsFor(site);
    const candidates = robots.sitemaps.length ? robots.sitemaps : [new URL("/sitemap.xml", site).href];
    const sitemaps = await collectSitemaps(candidates, fetcher, {
      signal: crawlSignal,
      maxFetches: MAX_SITEMAP_FETCHES,
      // a few times the remaining budget: enough choice without reading 50 files for 25 pages
      maxUrls: Math.max(100, remaining() * 4),
      accept: (u) => {
        try {
          return inScope(new URL(u));
        } catch {
          return false;
        }
      },
    });
    for (const p of sitemaps.pages) enqueue(p, 1, "sitemap");
  };

  // --- main loop ---------------------------------------------------------------------------------
  const runItem = async (item: QueueItem, reserves: boolean): Promise<void> => {
    if (reserves) reserved++;
    active++;
    try {
      await processItem(item);
    } catch (err) {
      if (!(crawlSignal.aborted && err instanceof FetchError)) {
        sinkFailure = sinkFailure ?? err;
        stop.abort();
      }
    } finally {
      active--;
      if (reserves) reserved--;
      progress();
      notify();
    }
  };

  const worker = async (): Promise<void> => {
    for (;;) {
      if (crawlSignal.aborted || sinkFailure || pagesThisRun >= budget) return;
      if (head >= queue.length) {
        if (active === 0) return;
        await waitForChange();
        continue;
      }
      const item = queue[head];
      // Reserve a page slot before fetching so parallel workers never overshoot the page limit.
      const reserves = !already.has(item.url);
      if (reserves && pagesThisRun + reserved >= budget) {
        await waitForChange(); // reserved > 0 implies active > 0, so a change will come
        continue;
      }
      head++;
      await runItem(item, reserves);
    }
  };

  const applyCrawlDelay = (robots: RobotsInfo) => {
    if (robots.crawlDelay === null) return;
    crawlDelay = Math.min(robots.crawlDelay, MAX_CRAWL_DELAY_SECONDS);
    gate = new PolitenessGate(crawlDelay * 1000);
  };

  try {
    if (budget <= 0) return result("page_limit", null);

    if (renderJs && !renderer) {
      try {
        ownRenderer = await createRenderer({ guard, userAgent: options.userAgent, maxBytes: options.maxPageBytes });
        renderer = ownRenderer;
      } catch (err) {
        return result("completed", describeError(err));
      }
    }

    applyCrawlDelay(await robotsFor(start));

    // The start page goes alone: it fixes the site (after redirects) and the twin mode.
    seen.add(startNorm);
    const startItem: QueueItem = { url: startNorm, depth: 0, source: "start" };
    await runItem(startItem, !already.has(startNorm));
    if (twinMode === "unknown") {
      // On resume the start page is not fetched again, but its twin probe is one cheap request.
      const candidate = already.has(startNorm) && !crawlSignal.aborted ? markdownTwinCandidate(startNorm) : null;
      twinMode = candidate && (await fetchTwin(candidate, null)) ? "probe" : "none";
    }
    if (site.origin !== start.origin) applyCrawlDelay(await robotsFor(site));
    const concurrency = crawlDelay ? 1 : clamp(options.concurrency ?? DEFAULT_HOST_CONCURRENCY, 1, 16);

    if (!crawlSignal.aborted && !sinkFailure && pagesThisRun < budget) await seed();
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
  } catch (err) {
    if (!(crawlSignal.aborted && err instanceof FetchError)) sinkFailure = sinkFailure ?? err;
  } finally {
    signal?.removeEventListener("abort", onOuterAbort);
    stop.abort(); // ends anything still in flight
    if (ownRenderer) await ownRenderer.close();
    fetcher.close();
  }

  if (sinkFailure) throw sinkFailure;
  let stopReason: CrawlResult["stopReason"] = "completed";
  if (signal?.aborted) stopReason = "cancelled";
  else if (budgetExhaustedRequests) stopReason = "request_budget";
  else if (pagesThisRun >= budget) stopReason = "page_limit";
  progress();
  let error: string | null = null;
  if (stopReason !== "cancelled" && already.size + pagesThisRun === 0) {
    error = startError ?? `No crawlable pages were found from ${options.url}; check include_paths and robots.txt.`;
  }
  return result(stopReason, error);
}

export { UrlPolicyError };
