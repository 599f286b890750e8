// Extract step: from a fetched answer to the page the crawl would hand over. Detects the format,
// reads title and links (HTML or Markdown), honours robots meta, settles the page's identity
// (rel=canonical) and swaps in a Markdown twin where the site has one.

import type { FetchResult } from "../fetcher.js";
import { detectFormat, mimeType } from "../formats.js";
import { analyzeHtml, decodeHtml, extractMarkdownLinks, markdownTitle, markdownTwinCandidate } from "../links.js";
import { inIncludePaths, sameSite } from "../scope.js";
import type { PageFormat, PreviousPage } from "../types.js";
import { tryNormalizeUrl } from "../url-policy.js";
import { enqueueLinks, enqueueUrl, onSite, sameSiteLinks } from "./enqueue.js";
import { fetchTwin, renderPage } from "./fetch.js";
import type { CrawlNetwork } from "./network.js";
import type { CrawlReport, CrawlState, QueueItem } from "./state.js";

/** A page on its way to the sink. */
export interface PageDraft {
  /** the page's identity: final URL, or its canonical URL */
  identity: string;
  /** URL whose body this is: final URL, or the twin's */
  fetchedUrl: string;
  body: Buffer;
  contentType: string | null;
  format: PageFormat;
  etag: string | null;
  lastModified: string | null;
  title: string | undefined;
  /** same-site links to follow */
  links: string[];
  /** the twin answered 304: body is empty, the previous hash stands */
  unchanged: boolean;
  /** null: hand it over; otherwise why not (its links are followed all the same) */
  withheld: string | null;
}

export interface HtmlFindings {
  title: string | undefined;
  /** same-site links; none when the page says nofollow */
  links: string[];
  noindex: boolean;
  /** rel=canonical in the site's spelling, null when absent or off-site */
  canonical: string | null;
  /** <link rel="alternate" type="text/markdown"> when on the site */
  advertisedTwin: string | null;
}

/** What the crawl takes from an HTML page. */
export function readHtml(html: string, pageUrl: string, site: URL): HtmlFindings {
  const a = analyzeHtml(html, pageUrl);
  return {
    title: a.title ?? undefined,
    links: a.robots.nofollow ? [] : sameSiteLinks(a.links, site),
    noindex: a.robots.noindex,
    canonical: a.canonical ? onSite(a.canonical, site) : null,
    advertisedTwin: a.markdownTwin && sameSite(new URL(a.markdownTwin), site) ? a.markdownTwin : null,
  };
}

/** What the crawl takes from a Markdown page. */
export function readMarkdown(body: Buffer, pageUrl: string, site: URL): { title: string | undefined; links: string[] } {
  const text = body.toString("utf8");
  return { title: markdownTitle(text) ?? undefined, links: sameSiteLinks(extractMarkdownLinks(text, pageUrl), site) };
}

/** The draft of a fetched page before its content is read: the answer as served. */
export function draftOf(state: CrawlState, item: QueueItem, res: FetchResult, final: URL, finalNorm: string, format: PageFormat): PageDraft {
  const outside = item.source === "start" && !inIncludePaths(final, state.plan.includePaths);
  return {
    identity: finalNorm,
    fetchedUrl: res.finalUrl,
    body: res.body,
    contentType: res.contentType,
    format,
    etag: res.etag,
    lastModified: res.lastModified,
    title: undefined,
    links: [],
    unchanged: false,
    withheld: outside ? "The start URL is outside include_paths; only its links were followed." : null,
  };
}

/**
 * The page to hand over (or withhold) from a 2xx answer; null when the item ended here
 * (unsupported type, failed rendering, canonical duplicate), already reported.
 */
export async function extractPage(
  state: CrawlState,
  net: CrawlNetwork,
  report: CrawlReport,
  item: QueueItem,
  fetched: { res: FetchResult; prev: PreviousPage | null; final: URL; finalNorm: string },
): Promise<PageDraft | null> {
  const { res, final, finalNorm } = fetched;
  const format = detectFormat(res.contentType, res.finalUrl, res.body);
  if (!format) {
    report.skip(item.url, `Unsupported content type ${mimeType(res.contentType) || "(none)"}.`);
    return null;
  }
  const draft = draftOf(state, item, res, final, finalNorm, format);
  if (format === "markdown") Object.assign(draft, readMarkdown(draft.body, res.finalUrl, state.site));
  if (format !== "html") return draft;

  let html: string;
  if (state.plan.renderJs && net.renderer) {
    const rendered = await renderPage(state, net, report, item, res);
    if (rendered === null) return null;
    html = rendered;
    draft.body = Buffer.from(html, "utf8");
    draft.contentType = "text/html; charset=utf-8";
  } else {
    html = decodeHtml(res.body, res.contentType);
  }
  const found = readHtml(html, res.finalUrl, state.site);
  draft.title = found.title;
  draft.links = found.links;
  if (found.noindex && draft.withheld === null) draft.withheld = "The page asks not to be indexed (robots noindex).";
  if (!claimCanonical(state, report, item, draft, found.canonical)) return null;
  await useTwin(state, net, item, draft, res.finalUrl, found.advertisedTwin, fetched.prev);
  return draft;
}

/**
 * rel=canonical in scope becomes the page's identity. A page whose canonical URL was already
 * handed over, or is still to be fetched (queued, in flight, or queued now), is a duplicate: its
 * links are still followed, and false says the item ends here. Yielding to a pending canonical URL
 * keeps the stored content the canonical page's own whichever fetch ends first, so a re-crawl of an
 * unchanged site stores nothing again (an /amp twin no longer wins a race now and then).
 */
export function claimCanonical(state: CrawlState, report: CrawlReport, item: QueueItem, draft: PageDraft, canonical: string | null): boolean {
  if (!canonical || canonical === draft.identity) return true;
  if (!inIncludePaths(new URL(canonical), state.plan.includePaths)) return true;
  // an item that is the canonical URL itself (it redirected here) claims it: nothing else would
  const yields = draft.withheld === null && item.url !== canonical;
  if (yields && !state.seen.has(canonical)) enqueueUrl(state, report, canonical, item.depth, "link");
  const pending = yields && state.pending.has(canonical);
  if ((state.claimed.has(canonical) || state.plan.already.has(canonical) || pending) && draft.withheld === null) {
    enqueueLinks(state, report, draft.links, item.depth + 1);
    report.skip(item.url, `Duplicate of its canonical URL ${canonical}.`);
    return false;
  }
  draft.identity = canonical;
  state.seen.add(canonical);
  state.claimed.add(canonical);
  return true;
}

/**
 * Markdown twin: advertised on the page, or at the probed location when the start page showed
 * that the site serves unadvertised twins. The start page probes even when it is withheld (outside
 * include_paths), since it decides for the rest of the site. The twin replaces the HTML's body,
 * not its links.
 */
export async function useTwin(
  state: CrawlState,
  net: CrawlNetwork,
  item: QueueItem,
  draft: PageDraft,
  pageUrl: string,
  advertised: string | null,
  prev: PreviousPage | null,
): Promise<void> {
  const decideMode = item.source === "start" && state.twinMode === "unknown" && !advertised;
  if (draft.withheld !== null && !decideMode) return;
  const twinUrl = advertised ?? (state.twinMode === "probe" || decideMode ? markdownTwinCandidate(pageUrl) : null);
  const twinNorm = twinUrl ? tryNormalizeUrl(twinUrl) : null;
  if (twinNorm) state.seen.add(twinNorm);
  const twin = twinUrl ? await fetchTwin(state, net, twinUrl, prev) : null;
  if (decideMode) state.twinMode = twin ? "probe" : "none";
  if (!twin || draft.withheld !== null) return;
  draft.format = "markdown";
  draft.fetchedUrl = twin.res.finalUrl;
  draft.etag = twin.res.etag;
  draft.lastModified = twin.res.lastModified;
  if (twin.unchanged && prev) {
    draft.body = Buffer.alloc(0);
    draft.contentType = null;
    draft.unchanged = true;
  } else {
    draft.body = twin.res.body;
    draft.contentType = twin.res.contentType;
    draft.title = markdownTitle(draft.body.toString("utf8")) ?? draft.title;
  }
  if (twinNorm) state.claimed.add(twinNorm);
}
