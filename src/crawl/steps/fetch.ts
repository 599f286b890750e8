// Fetch step: the bytes of one queued URL. robots.txt first, a conditional request where a 304
// leaves nothing unknown, then the answer's status and redirect target are checked; HTML is
// rendered in Chromium when the crawl renders JavaScript; Markdown twins are fetched here too.

import { describeError } from "../errors.js";
import type { FetchResult } from "../fetcher.js";
import { looksLikeMarkdown } from "../links.js";
import { sameSite } from "../scope.js";
import type { PreviousPage } from "../types.js";
import { normalizeUrl } from "../url-policy.js";
import type { CrawlNetwork } from "./network.js";
import { failItem, type CrawlReport, type CrawlState, type QueueItem } from "./state.js";

export type Fetched =
  /** the page answered 304 to a conditional request: it is as `prev` says */
  | { kind: "not-modified"; res: FetchResult; prev: PreviousPage }
  /** a 2xx answer on the site, its final URL claimed */
  | { kind: "ok"; res: FetchResult; prev: PreviousPage | null; final: URL; finalNorm: string };

/**
 * Conditional requests only where a 304 leaves nothing unknown: non-HTML pages, or HTML pages
 * whose stored links came with `prev`. Never with renderJs (the shell may not change when the
 * content does), nor when a twin was stored for an HTML URL (the twin has its own validators).
 */
export function isConditional(prev: PreviousPage | null, url: URL, renderJs: boolean): prev is PreviousPage {
  const prevTwin = prev?.format === "markdown" && !/\.(md|markdown|mdx)$/i.test(url.pathname);
  return !!prev && !renderJs && !prevTwin && (prev.links !== undefined || (prev.format !== undefined && prev.format !== "html"));
}

export const DUPLICATE_PAGE = "Duplicate of a page already crawled (canonical URL or redirect target).";

/** Fetches one queued URL; null when it ended here (disallowed, failed, off-site, duplicate), already reported. */
export async function fetchPage(state: CrawlState, net: CrawlNetwork, report: CrawlReport, item: QueueItem): Promise<Fetched | null> {
  const url = new URL(item.url);
  const robots = await net.robotsFor(url);
  if (robots.state === "unreachable") {
    failItem(state, report, item, robots.detail);
    return null;
  }
  if (!robots.allowed(item.url)) {
    if (item.source === "start") state.startError = `robots.txt disallows ${item.url} for QuarryBot.`;
    report.skip(item.url, "Disallowed by robots.txt.");
    return null;
  }

  const prev = state.plan.previous ? await state.plan.previous(item.url) : null;
  const conditional = isConditional(prev, url, state.plan.renderJs);
  if (conditional && unchangedPerSitemap(state.lastmod.get(item.url), prev)) return { kind: "not-modified", res: notFetched(item, prev), prev };
  let res: FetchResult;
  try {
    res = await net.fetch(item.url, { etag: conditional ? prev.etag : null, lastModified: conditional ? prev.lastModified : null });
  } catch (err) {
    if (!net.signal.aborted) failItem(state, report, item, describeError(err));
    return null;
  }
  if (res.status === 304 && conditional) return { kind: "not-modified", res, prev };
  return acceptResponse(state, net, report, item, res, prev);
}

/**
 * The sitemap dates the page's last change before the previous crawl fetched it: it is handed
 * as unchanged without a request, like a 304 (and only where a 304 would be trusted).
 */
export function unchangedPerSitemap(lastmod: string | undefined, prev: PreviousPage): boolean {
  if (!lastmod || !prev.crawledAt) return false;
  const changed = Date.parse(lastmod);
  const fetched = Date.parse(prev.crawledAt);
  return Number.isFinite(changed) && Number.isFinite(fetched) && changed <= fetched;
}

/** What a 304 would have said, for a page skipped by its sitemap lastmod. */
function notFetched(item: QueueItem, prev: PreviousPage): FetchResult {
  return {
    url: item.url, finalUrl: item.url, status: 304, statusText: "", contentType: null, body: Buffer.alloc(0),
    etag: prev.etag, lastModified: prev.lastModified, redirects: [], headers: {}, truncated: false,
  };
}

/** A non-304 answer: 2xx, still on the site (which the start page's redirects define), not a duplicate by redirect. */
export async function acceptResponse(
  state: CrawlState,
  net: CrawlNetwork,
  report: CrawlReport,
  item: QueueItem,
  res: FetchResult,
  prev: PreviousPage | null,
): Promise<Fetched | null> {
  if (res.status < 200 || res.status >= 300) {
    failItem(state, report, item, `${item.url} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}.`, res.status);
    return null;
  }
  const final = new URL(res.finalUrl);
  const finalNorm = normalizeUrl(final);
  if (item.source === "start") state.site = final; // e.g. apex -> www, http -> https
  if (!sameSite(final, state.site)) {
    report.skip(item.url, `Redirects to another site (${res.finalUrl}).`);
    return null;
  }
  // Claimed while this request was in flight: another page named it as its canonical URL (a
  // parallel worker fetched /post-amp first). Handing it too would count and store one page twice.
  if (state.claimed.has(item.url)) {
    report.skip(item.url, DUPLICATE_PAGE);
    return null;
  }
  if (finalNorm !== item.url) {
    state.seen.add(finalNorm);
    if (state.claimed.has(finalNorm) || state.plan.already.has(finalNorm)) {
      report.skip(item.url, `Duplicate of ${finalNorm} (redirect).`);
      return null;
    }
    if (!(await net.robotsFor(final)).allowed(res.finalUrl)) {
      report.skip(item.url, `Redirects to ${res.finalUrl}, which robots.txt disallows.`);
      return null;
    }
  }
  state.claimed.add(item.url);
  state.claimed.add(finalNorm);
  return { kind: "ok", res, prev, final, finalNorm };
}

/** The page's HTML after Chromium ran its scripts; null when rendering failed (reported) or the crawl stopped. */
export async function renderPage(state: CrawlState, net: CrawlNetwork, report: CrawlReport, item: QueueItem, res: FetchResult): Promise<string | null> {
  if (!net.renderer) throw new Error("renderPage needs the crawl's renderer");
  try {
    const rendered = await net.renderer.render({ url: res.finalUrl, body: res.body, contentType: res.contentType, signal: net.signal });
    return rendered.html;
  } catch (err) {
    if (!net.signal.aborted) failItem(state, report, item, describeError(err));
    return null;
  }
}

export interface FetchedTwin {
  res: FetchResult;
  /** the twin answered 304 to the validators of the twin stored last time */
  unchanged: boolean;
}

/**
 * A page's Markdown twin, or null when there is none usable (off-site, disallowed, not Markdown,
 * failed). Failures other than the crawl stopping fall back to the HTML silently.
 */
export async function fetchTwin(state: CrawlState, net: CrawlNetwork, twinUrl: string, prev: PreviousPage | null): Promise<FetchedTwin | null> {
  const u = new URL(twinUrl);
  if (!sameSite(u, state.site)) return null;
  if (!(await net.robotsFor(u)).allowed(twinUrl)) return null;
  const conditional = prev?.format === "markdown";
  try {
    const res = await net.fetch(twinUrl, {
      etag: conditional ? prev?.etag : null,
      lastModified: conditional ? prev?.lastModified : null,
      accept: "text/markdown,text/plain;q=0.9,*/*;q=0.1",
    });
    if (res.status === 304 && conditional) return { res, unchanged: true };
    if (res.status >= 200 && res.status < 300 && looksLikeMarkdown(res.body, res.contentType)) return { res, unchanged: false };
  } catch (err) {
    if (net.signal.aborted) throw err;
  }
  return null;
}
