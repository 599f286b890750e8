// Shapes at the crawler's boundary: what runCrawl takes, what it hands to its sink, what it
// returns, and the site check answer (field names are the contract's, snake_case).

import type { Renderer } from "./render.js";
import type { UrlGuard } from "./url-policy.js";

/**
 * Formats handed to the sink. Each is a member of the ingest pipeline's FileKind, so a page can
 * go to the parser exactly like an uploaded file of that kind.
 */
export type PageFormat = "html" | "markdown" | "pdf" | "docx" | "text";

export interface CrawledPage {
  /** normalised URL: the document's identity (the canonical URL when the page declares one) */
  url: string;
  /** URL whose body this is: after redirects, or the markdown twin's URL */
  finalUrl: string;
  /** link distance from the start URL (sitemap and llms.txt entries count as 1) */
  depth: number;
  contentType: string | null;
  /** raw bytes as served (rendered HTML, UTF-8, when render_js); empty when unchanged is true */
  body: Buffer;
  format: PageFormat;
  title?: string;
  etag: string | null;
  lastModified: string | null;
  /** sha256 hex of body; on a 304 the previous hash */
  contentHash: string;
  /** same-site links found on the page (normalised, followable; nofollow excluded) */
  links: string[];
  /** true when a conditional request answered 304, the sitemap's lastmod says it did not change
   * since the previous crawl, or the body hashes to the previous hash */
  unchanged: boolean;
}

export interface CrawlProgress {
  /** pages handed to the sink in this job, earlier attempts (alreadyCrawled) included */
  pagesCrawled: number;
  /** URLs waiting to be fetched */
  queued: number;
  /** pages that failed (HTTP errors, timeouts, too large ...) in this attempt */
  errors: number;
}

export interface CrawlSink {
  /** A rejection stops the crawl and rejects runCrawl: a page the store cannot take is not lost silently. */
  onPage(page: CrawledPage): Promise<void>;
  onProgress?(progress: CrawlProgress): void;
  /** a page that could not be crawled; message is a sentence for the job's log */
  onError?(url: string, message: string, status?: number): void;
  /** a URL deliberately not fetched (robots.txt, link trap) or fetched but not handed over
   * (unsupported type, duplicate, noindex, start URL outside include_paths) */
  onSkip?(url: string, reason: string): void;
}

/** What the store remembers about a page from an earlier crawl of the same source. */
export interface PreviousPage {
  etag: string | null;
  lastModified: string | null;
  contentHash: string;
  /** the links stored with the page; without them a 304 on an HTML page cannot be expanded, so
   * HTML pages are then fetched unconditionally and compared by hash */
  links?: string[];
  /** the format handed last time; "markdown" on an HTML URL means its twin was stored */
  format?: PageFormat;
  /** when it was last fetched (ISO time): a sitemap <lastmod> before it skips the request */
  crawledAt?: string;
}

export interface CrawlOptions {
  url: string;
  /** 0..10; 0 crawls the start URL only */
  maxDepth?: number;
  /** 1..20000, pages handed to the sink over the whole job */
  pageLimit?: number;
  /** path prefixes; empty = whole site */
  includePaths?: string[];
  renderJs?: boolean;
  allowPrivateNetworks?: boolean;
  /** replaces the policy built from allowPrivateNetworks (tests, custom allow-lists) */
  guard?: UrlGuard;
  /** reuse a browser across crawls; otherwise one is launched for this crawl when renderJs */
  renderer?: Renderer;
  requestTimeoutMs?: number;
  maxPageBytes?: number;
  /** parallel requests to the site; forced to 1 when robots.txt sets a crawl delay */
  concurrency?: number;
  userAgent?: string;
  /** pages handed to the sink by earlier attempts of this job, keyed by normalised URL */
  alreadyCrawled?: Map<string, { links: string[] }>;
  /** validators of a page from an earlier crawl of this source, for conditional requests */
  previous?: (url: string) => PreviousPage | null | Promise<PreviousPage | null>;
}

export type CrawlStopReason = "completed" | "page_limit" | "cancelled" | "request_budget";

export interface CrawlResult {
  /** pages handed to the sink in this job (alreadyCrawled included), unchanged ones too */
  pagesCrawled: number;
  /** pages handed to the sink by this attempt */
  pagesThisRun: number;
  /** of pagesThisRun, how many were unchanged */
  unchangedPages: number;
  errors: number;
  skipped: number;
  /** HTTP requests sent (redirect hops, robots.txt, sitemaps included; rendering subresources not) */
  requests: number;
  stopReason: CrawlStopReason;
  /** set when nothing could be crawled, in words a user can act on (job error) */
  error: string | null;
  /** robots.txt crawl delay honoured, seconds */
  crawlDelay: number | null;
}

export type CheckStatus = "pass" | "warn" | "fail" | "info";

export interface SiteCheckItem {
  name: string;
  status: CheckStatus;
  detail: string;
}

/** POST /crawl/check answer; every field is required by the contract. */
export interface SiteCheckOut {
  /** the URL as asked */
  url: string;
  /** after redirects; null when the start URL could not be fetched */
  final_url: string | null;
  reachable: boolean;
  status_code: number | null;
  content_type: string | null;
  can_crawl: boolean;
  blocked_reason: string | null;
  robots_found: boolean;
  /** robots.txt allows our user agent to fetch final_url (true when there is no robots.txt) */
  robots_allowed: boolean;
  /** seconds, from robots.txt, for QuarryBot or * */
  crawl_delay: number | null;
  sitemap_found: boolean;
  /** page URLs counted in the sitemap files that were read */
  sitemap_page_count: number;
  /** child sitemaps listed by sitemap index files */
  sitemap_index_count: number;
  /** true when only some child sitemaps were read, so sitemap_page_count is a sample */
  sitemap_sampled: boolean;
  sitemap_sample: string[];
  llms_txt_found: boolean;
  /** same-site page links listed in /llms.txt */
  llms_txt_page_count: number;
  markdown_twin: boolean;
  needs_js: boolean;
  /** URL prefix the crawl stays in with the default options (the site's origin + "/") */
  scope: string | null;
  estimated_pages: number | null;
  suggested_page_limit: number;
  suggested_depth: number;
  checks: SiteCheckItem[];
  elapsed_ms: number;
}
