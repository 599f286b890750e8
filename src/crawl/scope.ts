// Which URLs belong to a crawl: same site, include_paths, and link-trap guards.

import {
  MAX_PAGES_PER_PATTERN,
  MAX_PATH_SEGMENTS,
  MAX_QUERY_VARIANTS_PER_PATH,
  MAX_REPEATED_SEGMENT,
  MAX_URL_LENGTH,
} from "./limits.js";

/** Host without one leading "www.": example.com and www.example.com are one site. */
export function siteHost(url: URL): string {
  return url.hostname.replace(/^www\./, "");
}

/**
 * Same site = same host (ignoring a leading "www.") and port, either of http/https. Sites
 * routinely redirect apex <-> www and http -> https; treating those as different sites would
 * stop most crawls at the first link. Duplicates that result are caught on the final URL.
 */
export function sameSite(url: URL, site: URL): boolean {
  return (url.protocol === "http:" || url.protocol === "https:") && siteHost(url) === siteHost(site) && url.port === site.port;
}

/** "/docs/", "docs", "https://x/docs/" -> "/docs/"; duplicates and blanks removed. */
export function normalizeIncludePaths(paths: readonly string[] | undefined): string[] {
  const out = new Set<string>();
  for (const raw of paths ?? []) {
    let p = raw.trim();
    if (!p) continue;
    if (/^https?:\/\//i.test(p)) {
      try {
        p = new URL(p).pathname;
      } catch {
        continue;
      }
    }
    if (!p.startsWith("/")) p = `/${p}`;
    out.add(p);
  }
  return [...out];
}

/** Plain prefix match on the path: "/docs/" matches "/docs/a" but not "/docs-old". Empty = all. */
export function inIncludePaths(url: URL, includePaths: readonly string[]): boolean {
  if (includePaths.length === 0) return true;
  return includePaths.some((p) => url.pathname.startsWith(p));
}

/**
 * Link-trap guards. URLs discovered through links are admitted only while their URL shape
 * (digit runs collapsed, query keys without values) and their path's query variants stay under
 * caps: a calendar that links to the next month forever stops at MAX_PAGES_PER_PATTERN.
 * URLs the site lists itself (sitemap, llms.txt) skip the shape caps; they are finite.
 */
export class TrapGuard {
  private readonly patterns = new Map<string, number>();
  private readonly variants = new Map<string, number>();

  constructor(
    private readonly limits = {
      maxPagesPerPattern: MAX_PAGES_PER_PATTERN,
      maxQueryVariantsPerPath: MAX_QUERY_VARIANTS_PER_PATH,
    },
  ) {}

  /** null when the URL may be queued (and it is then counted); otherwise why not. */
  admit(url: URL, listedBySite: boolean): string | null {
    const structural = structuralTrap(url);
    if (structural) return structural;
    if (listedBySite) return null;
    const pattern = urlPattern(url);
    const count = this.patterns.get(pattern) ?? 0;
    if (count >= this.limits.maxPagesPerPattern) {
      return `more than ${this.limits.maxPagesPerPattern} URLs of the shape ${pattern} (possible link trap)`;
    }
    const pathKey = `${url.host}${url.pathname}`;
    const variants = this.variants.get(pathKey) ?? 0;
    if (url.search && variants >= this.limits.maxQueryVariantsPerPath) {
      return `more than ${this.limits.maxQueryVariantsPerPath} query-string variants of ${url.pathname} (possible link trap)`;
    }
    this.patterns.set(pattern, count + 1);
    if (url.search) this.variants.set(pathKey, variants + 1);
    return null;
  }
}

/** Traps visible in one URL: too long, too deep, or a path segment repeated (/a/b/a/b/a/b). */
export function structuralTrap(url: URL): string | null {
  if (url.href.length > MAX_URL_LENGTH) return `URL longer than ${MAX_URL_LENGTH} characters`;
  const segments = url.pathname.split("/").filter(Boolean);
  if (segments.length > MAX_PATH_SEGMENTS) return `path deeper than ${MAX_PATH_SEGMENTS} segments`;
  const counts = new Map<string, number>();
  for (const s of segments) {
    const n = (counts.get(s) ?? 0) + 1;
    if (n >= MAX_REPEATED_SEGMENT) return `path repeats the segment "${s}" ${n} times (possible link loop)`;
    counts.set(s, n);
  }
  return null;
}

/** /calendar/2024/05?day=3&view=x -> host/calendar/{n}/{n}?day&view */
export function urlPattern(url: URL): string {
  const path = url.pathname.replace(/\d+/g, "{n}");
  const keys = [...new URLSearchParams(url.search).keys()].sort();
  return `${url.host}${path}${keys.length ? `?${[...new Set(keys)].join("&")}` : ""}`;
}
