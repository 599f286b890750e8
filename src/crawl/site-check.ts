// POST /crawl/check: what a crawl of this URL would find, from a handful of requests and without
// indexing anything. At most 7 fetches (start page, robots.txt, up to 3 sitemap files, llms.txt,
// one Markdown-twin probe), each with its own timeout, inside an overall deadline.
//
// Field semantics chosen where the contract is silent:
// - reachable: the start URL produced an HTTP response (any status) after redirects.
// - robots_allowed: robots.txt lets QuarryBot fetch final_url (true when there is no robots.txt;
//   false when robots.txt is unreachable, per RFC 9309, or when it was not checked).
// - sitemap_index_count: child sitemaps listed by sitemap index files; sitemap_page_count: page
//   URLs in the files read; sitemap_sampled: some listed sitemaps were not read.
// - llms_txt_page_count: same-site links in /llms.txt.
// - scope: the URL prefix a default crawl stays in, i.e. the whole site (include_paths empty).
// - estimated_pages: same-site sitemap URLs (scaled up to all child sitemaps when sampled), or the
//   llms.txt count if larger; null when neither exists.

import { UrlPolicyError, describeError } from "./errors.js";
import { createFetcher, type Fetcher, type FetchResult } from "./fetcher.js";
import { detectFormat, mimeType } from "./formats.js";
import { DEFAULT_MAX_DEPTH, DEFAULT_PAGE_LIMIT, MAX_CRAWL_DELAY_SECONDS, MAX_PAGE_LIMIT, USER_AGENT } from "./limits.js";
import { analyzeHtml, decodeHtml, looksLikeMarkdown, markdownTwinCandidate, type HtmlAnalysis } from "./links.js";
import { fetchLlmsTxt } from "./llms-txt.js";
import { fetchRobots, type RobotsInfo } from "./robots.js";
import { sameSite } from "./scope.js";
import { collectSitemaps } from "./sitemap.js";
import type { SiteCheckItem, SiteCheckOut } from "./types.js";
import { createUrlPolicy, parseCrawlUrl, type UrlGuard } from "./url-policy.js";

export interface SiteCheckOptions {
  allowPrivateNetworks?: boolean;
  guard?: UrlGuard;
  /** per request */
  timeoutMs?: number;
  /** the whole check */
  totalTimeoutMs?: number;
  signal?: AbortSignal;
  userAgent?: string;
  maxPageBytes?: number;
}

const SAMPLE_SIZE = 5;
const SITEMAP_FETCHES = 3;

/** One site check under way: the answer being filled in, and how its requests are made. */
export interface SiteCheckRun {
  out: SiteCheckOut;
  fetcher: Fetcher;
  /** the caller's signal and the overall deadline */
  signal: AbortSignal;
  /** per request */
  timeoutMs: number;
}

/** The start page once it answered: its response and final URL. */
export interface StartPage {
  res: FetchResult;
  final: URL;
  /** it answered 2xx */
  ok: boolean;
}

export async function checkSite(url: string, options: SiteCheckOptions = {}): Promise<SiteCheckOut> {
  const t0 = Date.now();
  const totalTimeoutMs = options.totalTimeoutMs ?? 25_000;
  const deadline = AbortSignal.timeout(totalTimeoutMs);
  const guard = options.guard ?? createUrlPolicy({ allowPrivateNetworks: options.allowPrivateNetworks ?? false });
  const timeoutMs = options.timeoutMs ?? 8_000;
  const run: SiteCheckRun = {
    out: emptySiteCheck(url),
    fetcher: createFetcher({ guard, userAgent: options.userAgent ?? USER_AGENT, timeoutMs, maxBytes: options.maxPageBytes }),
    signal: options.signal ? AbortSignal.any([options.signal, deadline]) : deadline,
    timeoutMs,
  };
  try {
    await inspectSite(run, url, guard);
  } catch (err) {
    // Only the overall deadline or the caller's signal ends up here.
    const msg = deadline.aborted ? `The site check took longer than ${Math.round(totalTimeoutMs / 1000)} s and was stopped.` : describeError(err);
    run.out.can_crawl = false;
    run.out.blocked_reason ??= msg;
    addCheck(run.out, "deadline", "fail", msg);
  } finally {
    run.fetcher.close();
  }
  run.out.elapsed_ms = Date.now() - t0;
  return run.out;
}

/** The checks in order; each fills its fields of run.out and adds its line to run.out.checks. */
async function inspectSite(run: SiteCheckRun, url: string, guard: UrlGuard): Promise<void> {
  if (!(await checkUrlPolicy(run, url, guard))) return;
  const start = await checkStartPage(run, url);
  if (!start) return;
  const { format, html } = checkContentType(run, start);
  const sameSiteLinks = html ? html.links.filter((l) => sameSite(new URL(l), start.final)) : [];
  const robots = await checkRobots(run, start);
  const sitemapEstimate = await checkSitemaps(run, robots, start.final);
  const llmsCount = await checkLlmsTxt(run, start.final);
  if (html) {
    await checkMarkdownTwin(run, html, start, robots);
    checkJavaScript(run, html);
  }
  suggestCrawl(run, start.final, { sitemapEstimate, llmsCount, sameSiteLinks: sameSiteLinks.length, startIsHtml: html !== null });
  run.out.can_crawl = start.ok && format !== null && run.out.robots_allowed;
  if (run.out.can_crawl) run.out.blocked_reason = null;
}

export function emptySiteCheck(url: string): SiteCheckOut {
  return {
    url,
    final_url: null,
    reachable: false,
    status_code: null,
    content_type: null,
    can_crawl: false,
    blocked_reason: null,
    robots_found: false,
    robots_allowed: false,
    crawl_delay: null,
    sitemap_found: false,
    sitemap_page_count: 0,
    sitemap_index_count: 0,
    sitemap_sampled: false,
    sitemap_sample: [],
    llms_txt_found: false,
    llms_txt_page_count: 0,
    markdown_twin: false,
    needs_js: false,
    scope: null,
    estimated_pages: null,
    suggested_page_limit: DEFAULT_PAGE_LIMIT,
    suggested_depth: DEFAULT_MAX_DEPTH,
    checks: [],
    elapsed_ms: 0,
  };
}

function addCheck(out: SiteCheckOut, name: string, status: SiteCheckItem["status"], detail: string): void {
  out.checks.push({ name, status, detail });
}

/** 1. The deployment's URL policy; false when it refuses the URL (or its name does not resolve). */
export async function checkUrlPolicy(run: SiteCheckRun, url: string, guard: UrlGuard): Promise<boolean> {
  try {
    parseCrawlUrl(url);
    await guard.check(url, run.signal);
    addCheck(run.out, "url_policy", "pass", "The URL is allowed by this deployment's crawl policy.");
    return true;
  } catch (err) {
    const msg = describeError(err);
    addCheck(run.out, err instanceof UrlPolicyError ? "url_policy" : "fetch", "fail", msg);
    run.out.blocked_reason = msg;
    return false;
  }
}

/** 2. The start page: reachable, where its redirects end, its status; null when it could not be fetched at all. */
export async function checkStartPage(run: SiteCheckRun, url: string): Promise<StartPage | null> {
  const { out } = run;
  let res: FetchResult;
  try {
    res = await run.fetcher.fetch(url, { signal: run.signal, timeoutMs: run.timeoutMs });
  } catch (err) {
    const msg = describeError(err);
    addCheck(out, err instanceof UrlPolicyError ? "url_policy" : "fetch", "fail", msg);
    out.blocked_reason = msg;
    addCheck(out, "robots", "info", "robots.txt was not checked because the start URL could not be fetched.");
    return null;
  }
  const final = new URL(res.finalUrl);
  out.reachable = true;
  out.final_url = res.finalUrl;
  out.status_code = res.status;
  out.content_type = res.contentType;
  out.scope = `${final.origin}/`;
  const ok = res.status >= 200 && res.status < 300;
  const redirectNote = res.redirects.length ? ` after ${res.redirects.length} redirect${res.redirects.length > 1 ? "s" : ""} to ${res.finalUrl}` : "";
  if (ok) addCheck(out, "fetch", "pass", `The URL answered HTTP ${res.status}${redirectNote}.`);
  else {
    out.blocked_reason = `The URL answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}${redirectNote}; a crawl needs a page that loads.`;
    addCheck(out, "fetch", "fail", out.blocked_reason);
  }
  return { res, final, ok };
}

/** The start page's format (null when unsupported or not 2xx) and, for HTML, what it contains. */
export function checkContentType(run: SiteCheckRun, start: StartPage): { format: ReturnType<typeof detectFormat>; html: HtmlAnalysis | null } {
  const { out } = run;
  const { res, ok } = start;
  if (!ok) return { format: null, html: null };
  const format = detectFormat(res.contentType, res.finalUrl, res.body);
  let html: HtmlAnalysis | null = null;
  if (format === "html") {
    html = analyzeHtml(decodeHtml(res.body, res.contentType), res.finalUrl);
    addCheck(out, "content_type", "pass", `The URL is an HTML page (${mimeType(res.contentType)}).`);
  } else if (format) {
    addCheck(out, "content_type", "warn", `The URL is a ${format} document, not a web page; a crawl would index this one document.`);
  } else {
    out.blocked_reason = `The URL returns ${mimeType(res.contentType) || "an unknown content type"}, not a web page or a supported document (HTML, Markdown, plain text, PDF, DOCX).`;
    addCheck(out, "content_type", "fail", out.blocked_reason);
  }
  return { format, html };
}

/** 3. robots.txt: found, whether it lets QuarryBot fetch the final URL, its crawl delay. */
export async function checkRobots(run: SiteCheckRun, start: StartPage): Promise<RobotsInfo> {
  const { out } = run;
  const { res, final } = start;
  const robots = await fetchRobots(final.origin, run.fetcher, { signal: run.signal, timeoutMs: run.timeoutMs });
  out.robots_found = robots.state === "ok";
  out.robots_allowed = robots.state !== "unreachable" && robots.allowed(res.finalUrl);
  out.crawl_delay = robots.crawlDelay;
  if (robots.state === "unreachable") {
    out.blocked_reason ??= robots.detail;
    addCheck(out, "robots", "fail", robots.detail);
  } else if (!out.robots_allowed) {
    out.blocked_reason ??= `robots.txt disallows ${res.finalUrl} for QuarryBot; the site owner has to allow it.`;
    addCheck(out, "robots", "fail", out.blocked_reason);
  } else {
    const capped = robots.crawlDelay && robots.crawlDelay > MAX_CRAWL_DELAY_SECONDS ? ` (the crawler waits at most ${MAX_CRAWL_DELAY_SECONDS} s)` : "";
    const delay = robots.crawlDelay ? ` Crawl-delay ${robots.crawlDelay} s${capped}: pages are fetched one at a time, that far apart.` : "";
    addCheck(out, "robots", robots.found ? "pass" : "info", `${robots.detail}${delay}`);
  }
  return robots;
}

/**
 * 4. Sitemaps, from robots.txt or /sitemap.xml, at most SITEMAP_FETCHES files. Returns the pages
 * they list on the site (scaled up to all child sitemaps when only some were read), or null.
 */
export async function checkSitemaps(run: SiteCheckRun, robots: RobotsInfo, final: URL): Promise<number | null> {
  const { out } = run;
  const candidates = robots.sitemaps.length ? robots.sitemaps.slice(0, SITEMAP_FETCHES) : [new URL("/sitemap.xml", final).href];
  const sitemaps = await collectSitemaps(candidates, run.fetcher, {
    signal: run.signal,
    timeoutMs: run.timeoutMs,
    maxFetches: SITEMAP_FETCHES,
    accept: (u) => sameSite(new URL(u), final),
  });
  out.sitemap_found = sitemaps.found;
  out.sitemap_page_count = sitemaps.pageCount;
  out.sitemap_index_count = sitemaps.indexChildCount;
  out.sitemap_sampled = sitemaps.sampled;
  out.sitemap_sample = sitemaps.pages.slice(0, SAMPLE_SIZE);
  if (!sitemaps.found) {
    addCheck(out, "sitemap", "info", `No sitemap found (${sitemaps.errors[0] ?? "none listed"}); pages are discovered through links only.`);
    return null;
  }
  let estimate = sitemaps.acceptedCount;
  if (sitemaps.sampled && sitemaps.indexChildCount > 0 && sitemaps.urlsetsRead > 0) {
    estimate = Math.round((sitemaps.acceptedCount / sitemaps.urlsetsRead) * sitemaps.indexChildCount);
  }
  const where = robots.sitemaps.length ? "listed in robots.txt" : "at /sitemap.xml";
  const index = sitemaps.indexChildCount ? `, an index of ${sitemaps.indexChildCount} sitemaps` : "";
  const sampled = sitemaps.sampled ? ` (read ${sitemaps.sitemapsRead} of the files; counts are a sample)` : "";
  addCheck(out, "sitemap", "pass", `Sitemap ${where}${index}: ${sitemaps.pageCount} page URLs${sampled}.`);
  return estimate;
}

/** 5. /llms.txt: the number of same-site pages it lists, or null when there is none. */
export async function checkLlmsTxt(run: SiteCheckRun, final: URL): Promise<number | null> {
  const { out } = run;
  const llms = await fetchLlmsTxt(final.origin, run.fetcher, { signal: run.signal, timeoutMs: run.timeoutMs });
  out.llms_txt_found = llms.found;
  out.llms_txt_page_count = llms.parsed.links.filter((l) => sameSite(new URL(l.url), final)).length;
  addCheck(out, "llms_txt", llms.found ? "pass" : "info", llms.found ? `/llms.txt lists ${out.llms_txt_page_count} pages of this site.` : llms.detail);
  return llms.found ? out.llms_txt_page_count : null;
}

/** 6. A Markdown version of the start page: advertised, or at the conventional .md URL. */
export async function checkMarkdownTwin(run: SiteCheckRun, html: HtmlAnalysis, start: StartPage, robots: RobotsInfo): Promise<void> {
  const { out } = run;
  const twinUrl = html.markdownTwin ?? markdownTwinCandidate(start.res.finalUrl);
  if (twinUrl && sameSite(new URL(twinUrl), start.final) && robots.allowed(twinUrl)) {
    try {
      const twin = await run.fetcher.fetch(twinUrl, { signal: run.signal, timeoutMs: run.timeoutMs, accept: "text/markdown,text/plain;q=0.9,*/*;q=0.1" });
      out.markdown_twin = twin.status >= 200 && twin.status < 300 && looksLikeMarkdown(twin.body, twin.contentType);
    } catch (err) {
      if (run.signal.aborted) throw err;
    }
  }
  const how = html.markdownTwin ? "advertised with <link rel=\"alternate\" type=\"text/markdown\">" : `at ${twinUrl ?? "the .md URL"}`;
  addCheck(
    out,
    "markdown_twin",
    out.markdown_twin ? "pass" : "info",
    out.markdown_twin
      ? `The page has a Markdown version (${how}); the crawler indexes Markdown versions instead of HTML.`
      : html.markdownTwin
        ? `The page advertises a Markdown version at ${html.markdownTwin}, but it did not load as Markdown.`
        : "No Markdown version of the page; the HTML is converted instead.",
  );
}

/** 7. Whether the page needs JavaScript to show its text, and what its robots meta tag says. */
export function checkJavaScript(run: SiteCheckRun, html: HtmlAnalysis): void {
  const { out } = run;
  out.needs_js = html.needsJs;
  if (html.needsJs) {
    addCheck(out, "javascript", "warn", `The page shows only ${html.textLength} characters of text without JavaScript${html.appShell ? " (an empty app mount point)" : ""}; set render_js to true to crawl it.`);
  } else {
    addCheck(out, "javascript", "pass", `The page has ${html.textLength} characters of text without JavaScript.`);
  }
  if (html.robots.noindex || html.robots.nofollow) {
    addCheck(out, "robots_meta", "warn", `The page's robots meta tag says ${[html.robots.noindex && "noindex", html.robots.nofollow && "nofollow"].filter(Boolean).join(", ")}; the crawler honours it.`);
  }
}

/** 8. The estimate of pages and the suggested page_limit and max_depth. */
export function suggestCrawl(
  run: SiteCheckRun,
  final: URL,
  found: { sitemapEstimate: number | null; llmsCount: number | null; sameSiteLinks: number; startIsHtml: boolean },
): void {
  const { out } = run;
  const { sitemapEstimate, llmsCount, sameSiteLinks } = found;
  out.estimated_pages = sitemapEstimate === null && llmsCount === null ? null : Math.max(1, sitemapEstimate ?? 0, llmsCount ?? 0);
  if (out.estimated_pages !== null) {
    // 10% headroom for pages linked but missing from the sitemap
    out.suggested_page_limit = clampInt(out.estimated_pages + Math.ceil(out.estimated_pages / 10), 1, MAX_PAGE_LIMIT);
    out.suggested_depth = 2; // listed pages are seeded at depth 1, plus one level of links
  } else {
    out.suggested_page_limit = clampInt(Math.max(DEFAULT_PAGE_LIMIT, sameSiteLinks * 3), 1, 500);
    out.suggested_depth = found.startIsHtml && sameSiteLinks === 0 ? 0 : 3;
  }
  const startDir = final.pathname.replace(/[^/]*$/, "");
  const scopeHint = startDir !== "/" ? ` To stay under ${startDir}, set include_paths to ["${startDir}"].` : "";
  const size = out.estimated_pages === null ? `${sameSiteLinks} same-site links on the start page; no page count known` : `about ${out.estimated_pages} pages`;
  addCheck(out, "scope", "info", `The crawl covers ${out.scope} (${size}); suggested page_limit ${out.suggested_page_limit}, max_depth ${out.suggested_depth}.${scopeHint}`);
}

function clampInt(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.round(n)));
}
