// robots.txt: fetch, parse (robots-parser), and the RFC 9309 rules for when it cannot be read.

import robotsParserModule from "robots-parser";
import { describeError } from "./errors.js";
import type { Fetcher } from "./fetcher.js";
import { ROBOTS_MAX_BYTES, ROBOTS_USER_AGENT_TOKEN } from "./limits.js";

interface ParsedRobots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}

// robots-parser is CommonJS (`module.exports = fn`) but its typings declare an ES default
// export, which NodeNext reads as `{ default: fn }`. At runtime the default import is the function.
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => ParsedRobots;

export type RobotsState = "ok" | "missing" | "unreachable";

export interface RobotsInfo {
  /** the robots.txt URL asked for */
  url: string;
  /** a robots.txt file was served (2xx) */
  found: boolean;
  /**
   * ok: rules apply. missing: 4xx, everything is allowed. unreachable: 5xx, 429 or a network
   * error; RFC 9309 says to assume complete disallow.
   */
  state: RobotsState;
  status: number | null;
  /** a sentence for site check details and crawl errors */
  detail: string;
  /** seconds, for our user agent or `*`; not clamped */
  crawlDelay: number | null;
  /** Sitemap: lines, absolute URLs */
  sitemaps: string[];
  allowed(url: string): boolean;
}

export function robotsUrlFor(site: string | URL): string {
  return new URL("/robots.txt", site).href;
}

/** Rules from robots.txt text. */
export function parseRobotsTxt(robotsUrl: string, text: string, uaToken = ROBOTS_USER_AGENT_TOKEN): Omit<RobotsInfo, "found" | "state" | "status" | "detail"> {
  const parsed = robotsParser(robotsUrl, text);
  const delay = parsed.getCrawlDelay(uaToken);
  const sitemaps: string[] = [];
  for (const s of parsed.getSitemaps()) {
    try {
      sitemaps.push(new URL(s, robotsUrl).href);
    } catch {
      // an unparsable Sitemap: line is ignored like any other bad line
    }
  }
  return {
    url: robotsUrl,
    crawlDelay: typeof delay === "number" && Number.isFinite(delay) && delay > 0 ? delay : null,
    sitemaps,
    // undefined means the URL is on another origin; those rules are not ours to apply
    allowed: (url) => parsed.isAllowed(url, uaToken) !== false,
  };
}

export async function fetchRobots(
  site: string | URL,
  fetcher: Fetcher,
  options: { signal?: AbortSignal; timeoutMs?: number; uaToken?: string } = {},
): Promise<RobotsInfo> {
  const url = robotsUrlFor(site);
  const closed = (status: number | null, detail: string): RobotsInfo => ({
    url, found: false, state: "unreachable", status, detail, crawlDelay: null, sitemaps: [], allowed: () => false,
  });
  try {
    const res = await fetcher.fetch(url, {
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      maxBytes: ROBOTS_MAX_BYTES,
      onTooLarge: "truncate",
      accept: "text/plain,*/*;q=0.5",
    });
    if (res.status >= 200 && res.status < 300) {
      const text = res.body.toString("utf8");
      const rules = parseRobotsTxt(url, text, options.uaToken);
      return { ...rules, found: true, state: "ok", status: res.status, detail: `${url} was found and its rules apply.` };
    }
    if (res.status === 429 || res.status >= 500) {
      return closed(res.status, `${url} answered HTTP ${res.status}; robots.txt rules say to crawl nothing until it can be read.`);
    }
    return {
      url, found: false, state: "missing", status: res.status,
      detail: `No robots.txt (HTTP ${res.status}); every path may be crawled.`,
      crawlDelay: null, sitemaps: [], allowed: () => true,
    };
  } catch (err) {
    if (options.signal?.aborted) throw err;
    return closed(null, `${url} could not be fetched (${describeError(err)}); robots.txt rules say to crawl nothing until it can be read.`);
  }
}
