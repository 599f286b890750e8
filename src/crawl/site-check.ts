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
import { createFetcher, type FetchResult } from "./fetcher.js";
import { detectFormat, mimeType } from "./formats.js";
import { DEFAULT_MAX_DEPTH, DEFAULT_PAGE_LIMIT, MAX_CRAWL_DELAY_SECONDS, MAX_PAGE_LIMIT, USER_AGENT } from "./limits.js";
import { analyzeHtml, decodeHtml, looksLikeMarkdown, markdownTwinCandidate, type HtmlAnalysis } from "./links.js";
import { fetchLlmsTxt } from "./llms-txt.js";
import { fetchRobots } from "./robots.js";
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

export async function checkSite(url: string, options: SiteCheckOptions = {}): Promise<SiteCheckOut> {
  const t0 = Date.now();
  const checks: SiteCheckItem[] = [];
  const add = (name: string, status: SiteCheckItem["status"], detail: string) => checks.push({ name, status, detail });
  const out: SiteCheckOut = {
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
    checks,
    elapsed_ms: 0,
  };
  const done = () => {
    out.elapsed_ms = Date.now() - t0;
    return out;
  };

  const timeoutMs = options.timeoutMs ?? 8_000;
  const deadline = AbortSignal.timeout(options.totalTimeoutMs ?? 25_000);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const guard = options.guard ?? createUrlPolicy({ allowPrivateNetworks: options.allowPrivateNetworks ?? false });
  const fetcher = createFetcher({ guard, userAgent: options.userAgent ?? USER_AGENT, timeoutMs, maxBytes: options.maxPageBytes });

  try {
    // 1. policy
    try {
      parseCrawlUrl(url);
      await guard.check(url, signal);
      add("url_policy", "pass", "The URL is allowed by this deployment's crawl policy.");
    } catch (err) {
      const msg = describeError(err);
      if (err instanceof UrlPolicyError) add("url_policy", "fail", msg);
      else add("fetch", "fail", msg);
      out.blocked_reason = msg;
      return done();
    }

    // 2. the start page
    let res: FetchResult;
    try {
      res = await fetcher.fetch(url, { signal, timeoutMs });
    } catch (err) {
      const msg = describeError(err);
      add(err instanceof UrlPolicyError ? "url_policy" : "fetch", "fail", msg);
      out.blocked_reason = msg;
      add("robots", "info", "robots.txt was not checked because the start URL could not be fetched.");
      return done();
    }
    const final = new URL(res.finalUrl);
    out.reachable = true;
    out.final_url = res.finalUrl;
    out.status_code = res.status;
    out.content_type = res.contentType;
    out.scope = `${final.origin}/`;
    const ok = res.status >= 200 && res.status < 300;
    const redirectNote = res.redirects.length ? ` after ${res.redirects.length} redirect${res.redirects.length > 1 ? "s" : ""} to ${res.finalUrl}` : "";
    if (ok) add("fetch", "pass", `The URL answered HTTP ${res.status}${redirectNote}.`);
    else {
      out.blocked_reason = `The URL answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}${redirectNote}; a crawl needs a page that loads.`;
      add("fetch", "fail", out.blocked_reason);
    }

    const format = ok ? detectFormat(res.contentType, res.finalUrl, res.body) : null;
    let html: HtmlAnalysis | null = null;
    if (ok) {
      if (format === "html") {
        html = analyzeHtml(decodeHtml(res.body, res.contentType), res.finalUrl);
        add("content_type", "pass", `The URL is an HTML page (${mimeType(res.contentType)}).`);
      } else if (format) {
        add("content_type", "warn", `The URL is a ${format} document, not a web page; a crawl would index this one document.`);
      } else {
        out.blocked_reason = `The URL returns ${mimeType(res.contentType) || "an unknown content type"}, not a web page or a supported document (HTML, Markdown, plain text, PDF, DOCX).`;
        add("content_type", "fail", out.blocked_reason);
      }
    }
    const sameSiteLinks = html ? html.links.filter((l) => sameSite(new URL(l), final)) : [];

    // 3. robots.txt
    const robots = await fetchRobots(final.origin, fetcher, { signal, timeoutMs });
    out.robots_found = robots.state === "ok";
    out.robots_allowed = robots.state !== "unreachable" && robots.allowed(res.finalUrl);
    out.crawl_delay = robots.crawlDelay;
    if (robots.state === "unreachable") {
      out.blocked_reason ??= robots.detail;
      add("robots", "fail", robots.detail);
    } else if (!out.robots_allowed) {
      out.blocked_reason ??= `robots.txt disallows ${res.finalUrl} for QuarryBot; the site owner has to allow it.`;
      add("robots", "fail", out.blocked_reason);
    } else {
      const capped = robots.crawlDelay && robots.crawlDelay > MAX_CRAWL_DELAY_SECONDS ? ` (the crawler waits at most ${MAX_CRAWL_DELAY_SECONDS} s)` : "";
      const delay = robots.crawlDelay ? ` Crawl-delay ${robots.crawlDelay} s${capped}: pages are fetched one at a time, that far apart.` : "";
      add("robots", robots.found ? "pass" : "info", `${robots.detail}${delay}`);
    }

    // 4. sitemaps
    const candidates = robots.sitemaps.length ? robots.sitemaps.slice(0, SITEMAP_FETCHES) : [new URL("/sitemap.xml", final).href];
    const sitemaps = await collectSitemaps(candidates, fetcher, {
      signal,
      timeoutMs,
      maxFetches: SITEMAP_FETCHES,
      accept: (u) => sameSite(new URL(u), final),
    });
    out.sitemap_found = sitemaps.found;
    out.sitemap_page_count = sitemaps.pageCount;
    out.sitemap_index_count = sitemaps.indexChildCount;
    out.sitemap_sampled = sitemaps.sampled;
    out.sitemap_sample = sitemaps.pages.slice(0, SAMPLE_SIZE);
    let sitemapEstimate: number | null = null;
    if (sitemaps.found) {
      sitemapEstimate = sitemaps.acceptedCount;
      if (sitemaps.sampled && sitemaps.indexChildCount > 0 && sitemaps.urlsetsRead > 0) {
        sitemapEstimate = Math.round((sitemaps.acceptedCount / sitemaps.urlsetsRead) * sitemaps.indexChildCount);
      }
      const where = robots.sitemaps.length ? "listed in robots.txt" : "at /sitemap.xml";
      const index = sitemaps.indexChildCount ? `, an index of ${sitemaps.indexChildCount} sitemaps` : "";
      const sampled = sitemaps.sampled ? ` (read ${sitemaps.sitemapsRead} of the files; counts are a sample)` : "";
      add("sitemap", "pass", `Sitemap ${where}${index}: ${sitemaps.pageCount} page URLs${sampled}.`);
    } else {
      add("sitemap", "info", `No sitemap found (${sitemaps.errors[0] ?? "none listed"}); pages are discovered through links only.`);
    }

    // 5. llms.txt
    const llms = await fetchLlmsTxt(final.origin, fetcher, { signal, timeoutMs });
    out.llms_txt_found = llms.found;
    out.llms_txt_page_count = llms.parsed.links.filter((l) => sameSite(new URL(l.url), final)).length;
    add("llms_txt", llms.found ? "pass" : "info", llms.found ? `/llms.txt lists ${out.llms_txt_page_count} pages of this site.` : llms.detail);

    // 6. Markdown twin
    if (html) {
      const twinUrl = html.markdownTwin ?? markdownTwinCandidate(res.finalUrl);
      if (twinUrl && sameSite(new URL(twinUrl), final) && robots.allowed(twinUrl)) {
        try {
          const twin = await fetcher.fetch(twinUrl, { signal, timeoutMs, accept: "text/markdown,text/plain;q=0.9,*/*;q=0.1" });
          out.markdown_twin = twin.status >= 200 && twin.status < 300 && looksLikeMarkdown(twin.body, twin.contentType);
        } catch (err) {
          if (signal.aborted) throw err;
        }
      }
      const how = html.markdownTwin ? "advertised with <link rel=\"alternate\" type=\"text/markdown\">" : `at ${twinUrl ?? "the .md URL"}`;
      add(
        "markdown_twin",
        out.markdown_twin ? "pass" : "info",
        out.markdown_twin
          ? `The page has a Markdown version (${how}); the crawler indexes Markdown versions instead of HTML.`
          : html.markdownTwin
            ? `The page advertises a Markdown version at ${html.markdownTwin}, but it did not load as Markdown.`
            : "No Markdown version of the page; the HTML is converted instead.",
      );

      // 7. JavaScript
      out.needs_js = html.needsJs;
      if (html.needsJs) {
        add("javascript", "warn", `The page shows only ${html.textLength} characters of text without JavaScript${html.appShell ? " (an empty app mount point)" : ""}; set render_js to true to crawl it.`);
      } else {
        add("javascript", "pass", `The page has ${html.textLength} characters of text without JavaScript.`);
      }
      if (html.robots.noindex || html.robots.nofollow) {
        add("robots_meta", "warn", `The page's robots meta tag says ${[html.robots.noindex && "noindex", html.robots.nofollow && "nofollow"].filter(Boolean).join(", ")}; the crawler honours it.`);
      }
    }

    // 8. estimate and suggestions
    const llmsCount = llms.found ? out.llms_txt_page_count : null;
    out.estimated_pages = sitemapEstimate === null && llmsCount === null ? null : Math.max(1, sitemapEstimate ?? 0, llmsCount ?? 0);
    if (out.estimated_pages !== null) {
      // 10% headroom for pages linked but missing from the sitemap
      out.suggested_page_limit = clampInt(out.estimated_pages + Math.ceil(out.estimated_pages / 10), 1, MAX_PAGE_LIMIT);
      out.suggested_depth = 2; // listed pages are seeded at depth 1, plus one level of links
    } else {
      out.suggested_page_limit = clampInt(Math.max(DEFAULT_PAGE_LIMIT, sameSiteLinks.length * 3), 1, 500);
      out.suggested_depth = html && sameSiteLinks.length === 0 ? 0 : 3;
    }
    const startDir = final.pathname.replace(/[^/]*$/, "");
    const scopeHint = startDir !== "/" ? ` To stay under ${startDir}, set include_paths to ["${startDir}"].` : "";
    add(
      "scope",
      "info",
      `The crawl covers ${out.scope} (${out.estimated_pages === null ? `${sameSiteLinks.length} same-site links on the start page; no page count known` : `about ${out.estimated_pages} pages`}); suggested page_limit ${out.suggested_page_limit}, max_depth ${out.suggested_depth}.${scopeHint}`,
    );

    out.can_crawl = ok && format !== null && out.robots_allowed;
    if (out.can_crawl) out.blocked_reason = null;
    return done();
  } catch (err) {
    // Only the overall deadline or the caller's signal ends up here.
    const msg = deadline.aborted ? `The site check took longer than ${Math.round((options.totalTimeoutMs ?? 25_000) / 1000)} s and was stopped.` : describeError(err);
    out.can_crawl = false;
    out.blocked_reason ??= msg;
    add("deadline", "fail", msg);
    return done();
  } finally {
    fetcher.close();
  }
}

function clampInt(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.round(n)));
}
