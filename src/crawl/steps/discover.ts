// Discover step: what a crawl knows before following links. The start URL is checked against
// the URL policy, robots.txt sets the pace, the start page settles whether unadvertised Markdown
// twins exist, and /llms.txt and the sitemaps seed the frontier at depth 1.

import { MAX_SITEMAP_FETCHES } from "../limits.js";
import { markdownTwinCandidate } from "../links.js";
import { fetchLlmsTxt } from "../llms-txt.js";
import type { RobotsInfo } from "../robots.js";
import { inIncludePaths, sameSite } from "../scope.js";
import { collectSitemaps } from "../sitemap.js";
import { parseCrawlUrl, type UrlGuard } from "../url-policy.js";
import { enqueueUrl } from "./enqueue.js";
import { fetchTwin } from "./fetch.js";
import type { CrawlNetwork } from "./network.js";
import type { CrawlReport, CrawlState } from "./state.js";

/** The start URL, parsed and allowed by the guard; throws UrlPolicyError or FetchError otherwise. */
export async function admitStart(url: string, guard: UrlGuard, signal: AbortSignal): Promise<URL> {
  const start = parseCrawlUrl(url);
  await guard.check(start, signal);
  return start;
}

/** robots.txt's Crawl-delay, if it sets one, spaces the crawl's requests from now on. */
export function honourCrawlDelay(state: CrawlState, net: CrawlNetwork, robots: RobotsInfo): void {
  const seconds = net.applyCrawlDelay(robots);
  if (seconds !== null) state.crawlDelay = seconds;
}

/**
 * After the start item: a start page fetched by this attempt has settled the twin mode; on resume
 * it was not fetched again, but its twin probe is one cheap request.
 */
export async function settleTwinMode(state: CrawlState, net: CrawlNetwork, startNorm: string): Promise<void> {
  if (state.twinMode !== "unknown") return;
  const candidate = state.plan.already.has(startNorm) && !net.signal.aborted ? markdownTwinCandidate(startNorm) : null;
  state.twinMode = candidate && (await fetchTwin(state, net, candidate, null)) ? "probe" : "none";
}

/** Queues the site's own lists at depth 1: /llms.txt links first, then sitemap URLs in scope. Nothing at maxDepth 0. */
export async function discoverSeeds(state: CrawlState, net: CrawlNetwork, report: CrawlReport): Promise<void> {
  if (state.plan.maxDepth < 1) return;
  const { site } = state;
  const llms = await fetchLlmsTxt(site.origin, net.fetcher, { signal: net.signal });
  for (const l of llms.parsed.links) enqueueUrl(state, report, l.url, 1, "llms");
  const robots = await net.robotsFor(site);
  const candidates = robots.sitemaps.length ? robots.sitemaps : [new URL("/sitemap.xml", site).href];
  const remaining = state.plan.budget - state.counts.pagesThisRun;
  const sitemaps = await collectSitemaps(candidates, net.fetcher, {
    signal: net.signal,
    maxFetches: MAX_SITEMAP_FETCHES,
    // a few times the remaining budget: enough choice without reading 50 files for 25 pages
    maxUrls: Math.max(100, remaining * 4),
    accept: (u) => inScope(u, state),
  });
  for (const p of sitemaps.pages) enqueueUrl(state, report, p, 1, "sitemap", sitemaps.lastmod.get(p));
}

/** A sitemap URL the crawl would take: on the site and inside include_paths. */
function inScope(raw: string, state: CrawlState): boolean {
  try {
    const u = new URL(raw);
    return sameSite(u, state.site) && inIncludePaths(u, state.plan.includePaths);
  } catch {
    return false;
  }
}
