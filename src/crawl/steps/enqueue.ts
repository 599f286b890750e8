// Enqueue step: which found URLs join the frontier. Same site (in the site's own spelling),
// include_paths, depth, never twice, and the link-trap guards.

import { MAX_LINKS_PER_PAGE } from "../limits.js";
import { inIncludePaths, sameSite } from "../scope.js";
import { normalizeUrl, tryNormalizeUrl } from "../url-policy.js";
import type { CrawlReport, CrawlState, ItemSource, QueueItem } from "./state.js";

/**
 * Normalised URL in the site's own spelling, or null when off-site: once the start page showed
 * whether the site lives at www or the apex, on http or https, links to the other spelling are
 * rewritten instead of being fetched only to redirect (and racing their twin in parallel).
 */
export function onSite(raw: string, site: URL): string | null {
  const norm = tryNormalizeUrl(raw);
  if (!norm) return null;
  const u = new URL(norm);
  if (!sameSite(u, site)) return null;
  if (u.hostname === site.hostname && u.protocol === site.protocol) return norm;
  u.protocol = site.protocol;
  u.hostname = site.hostname;
  return normalizeUrl(u);
}

/** A page's links as the crawl keeps them: on the site, normalised, once each, at most MAX_LINKS_PER_PAGE. */
export function sameSiteLinks(links: readonly string[], site: URL): string[] {
  const out: string[] = [];
  const dedup = new Set<string>();
  for (const l of links) {
    const n = onSite(l, site);
    if (!n || dedup.has(n)) continue;
    dedup.add(n);
    out.push(n);
    if (out.length >= MAX_LINKS_PER_PAGE) break;
  }
  return out;
}

/** Queues a URL unless it is too deep, off-site, outside include_paths, known, or a link trap (reported as skipped). */
export function enqueueUrl(state: CrawlState, report: CrawlReport, raw: string, depth: number, source: ItemSource, lastmod?: string): void {
  if (depth > state.plan.maxDepth) return;
  const norm = onSite(raw, state.site);
  if (norm && lastmod) state.lastmod.set(norm, lastmod);
  if (!norm || state.seen.has(norm)) return;
  const u = new URL(norm);
  if (!inIncludePaths(u, state.plan.includePaths)) return;
  const trap = state.traps.admit(u, source === "sitemap" || source === "llms");
  state.seen.add(norm);
  if (trap) {
    report.skip(norm, `Not crawled: ${trap}.`);
    return;
  }
  state.queue.push({ url: norm, depth, source });
  state.pending.add(norm);
  report.queued();
}

/** Queues a page's links one level below it. */
export function enqueueLinks(state: CrawlState, report: CrawlReport, links: readonly string[], depth: number): void {
  for (const l of links) enqueueUrl(state, report, l, depth, "link");
}

/**
 * Resume: a page an earlier attempt handed over is not fetched again, but its stored links are
 * followed. True when the item was such a page.
 */
export function expandStored(state: CrawlState, report: CrawlReport, item: QueueItem): boolean {
  const stored = state.plan.already.get(item.url);
  if (!stored) return false;
  enqueueLinks(state, report, stored.links, item.depth + 1);
  state.claimed.add(item.url);
  return true;
}
