// Crawler limits and defaults. Exported so the HTTP layer can report them (GET /capabilities) and
// validate request bodies with the same numbers the engine enforces.

/** Bytes of one fetched page (after decompression). Larger pages are skipped, not truncated. */
export const PAGE_SIZE_LIMIT_BYTES = 5 * 1024 * 1024;
/** Contract: CrawlCreate.page_limit is 1..20000, default 25. */
export const MAX_PAGE_LIMIT = 20_000;
export const DEFAULT_PAGE_LIMIT = 25;
/** Contract: CrawlCreate.max_depth is 0..10, default 2. */
export const MAX_DEPTH = 10;
export const DEFAULT_MAX_DEPTH = 2;
/** Contract: include_paths has at most 50 items. */
export const MAX_INCLUDE_PATHS = 50;
/** Contract: crawl URLs are 1..2083 characters; discovered links longer than this are dropped too. */
export const MAX_URL_LENGTH = 2083;

export const USER_AGENT = "QuarryBot/0.2 (+https://github.com/quarry)";
/** The product token robots.txt groups are matched against. */
export const ROBOTS_USER_AGENT_TOKEN = "QuarryBot";

export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
export const MAX_REDIRECTS = 10;
/** Parallel requests to the crawled host; 1 whenever robots.txt sets a crawl delay. */
export const DEFAULT_HOST_CONCURRENCY = 2;
/** A robots.txt Crawl-delay above this is clamped so a crawl of a few hundred pages still ends. */
export const MAX_CRAWL_DELAY_SECONDS = 30;

/** RFC 9309 asks parsers to read at least 500 KiB; anything after that is ignored. */
export const ROBOTS_MAX_BYTES = 512 * 1024;
/** One sitemap file; the protocol allows 50 MB but 10 MiB (~100k URLs) is plenty for a crawl. */
export const SITEMAP_MAX_BYTES = 10 * 1024 * 1024;
/** Sitemap files (index + children) fetched while seeding a crawl. */
export const MAX_SITEMAP_FETCHES = 20;
/** Page URLs taken from sitemaps; more than any crawl can use. */
export const MAX_SITEMAP_URLS = 50_000;

// Link-trap guards (calendars, faceted search, session ids in paths). Numbers are generous so
// real documentation sites never hit them; the page limit bounds everything else.
/** Pages per URL shape (digit runs collapsed, query keys only), e.g. /calendar/{n}/{n}. */
export const MAX_PAGES_PER_PATTERN = 100;
/** Query-string variants of one path, e.g. /search?q=a, /search?q=b ... */
export const MAX_QUERY_VARIANTS_PER_PATH = 25;
/** Path segments in a URL. */
export const MAX_PATH_SEGMENTS = 16;
/** The same path segment occurring this many times marks a loop like /a/b/a/b/a/b. */
export const MAX_REPEATED_SEGMENT = 3;
/** Links kept per page (handed to the sink and expanded on resume). */
export const MAX_LINKS_PER_PAGE = 2_000;
