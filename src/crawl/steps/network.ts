// The crawl's own view of the network: one fetcher, robots.txt read once per origin, requests
// spaced by the site's Crawl-delay, and a request budget whose exhaustion stops the crawl.

import { FetchError } from "../errors.js";
import type { Fetcher, FetchRequest, FetchResult } from "../fetcher.js";
import { MAX_CRAWL_DELAY_SECONDS } from "../limits.js";
import type { Renderer } from "../render.js";
import { fetchRobots, type RobotsInfo } from "../robots.js";

/** Spaces request starts at least delayMs apart (robots.txt Crawl-delay). */
export class PolitenessGate {
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

export class CrawlNetwork {
  private gate = new PolitenessGate(0);
  private readonly robots = new Map<string, Promise<RobotsInfo>>();
  /** set when the request budget stopped the crawl */
  requestBudgetSpent = false;

  /**
   * stop aborts the whole crawl (in-flight requests included); renderer is the browser for
   * render_js crawls, null otherwise.
   */
  constructor(
    readonly fetcher: Fetcher,
    private readonly stop: AbortController,
    private readonly maxRequests: number,
    public renderer: Renderer | null = null,
  ) {}

  get signal(): AbortSignal {
    return this.stop.signal;
  }

  get requestCount(): number {
    return this.fetcher.requestCount;
  }

  /** A page request: within the budget, after the crawl delay, cancelled with the crawl. */
  async fetch(url: string, req: FetchRequest = {}): Promise<FetchResult> {
    if (this.fetcher.requestCount >= this.maxRequests) {
      this.requestBudgetSpent = true;
      this.stop.abort();
      throw new FetchError("aborted", "The crawl's request budget is spent.", url);
    }
    await this.gate.wait(this.signal);
    return this.fetcher.fetch(url, { ...req, signal: this.signal });
  }

  /** robots.txt of the URL's origin, fetched once per crawl. */
  robotsFor(url: URL): Promise<RobotsInfo> {
    let p = this.robots.get(url.origin);
    if (!p) {
      p = fetchRobots(url.origin, this.fetcher, { signal: this.signal });
      this.robots.set(url.origin, p);
    }
    return p;
  }

  /** Honours robots.txt's Crawl-delay (clamped); returns the delay in seconds, or null when none is set. */
  applyCrawlDelay(robots: RobotsInfo): number | null {
    if (robots.crawlDelay === null) return null;
    const seconds = Math.min(robots.crawlDelay, MAX_CRAWL_DELAY_SECONDS);
    this.gate = new PolitenessGate(seconds * 1000);
    return seconds;
  }
}
