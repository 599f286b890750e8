// Sitemaps (sitemaps.org): <urlset>, <sitemapindex> with nested sitemaps, and plain-text
// sitemaps (one URL per line). Gzipped bodies are inflated when they arrive as gzip bytes.

import { gunzipSync } from "node:zlib";
import { XMLParser } from "fast-xml-parser";
import { describeError } from "./errors.js";
import type { Fetcher } from "./fetcher.js";
import { MAX_SITEMAP_FETCHES, MAX_SITEMAP_URLS, SITEMAP_MAX_BYTES } from "./limits.js";

export interface ParsedSitemap {
  kind: "urlset" | "index" | "text" | "invalid";
  /** page URLs for urlset/text, child sitemap URLs for index; absolute */
  urls: string[];
  /** <lastmod> of urlset entries that have one, by URL as in `urls` */
  lastmod?: Map<string, string>;
}

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === "url" || name === "sitemap",
});

function locs(entries: unknown, base: string, lastmod?: Map<string, string>): string[] {
  if (!Array.isArray(entries)) return [];
  const out: string[] = [];
  for (const e of entries) {
    const entry = e && typeof e === "object" ? (e as Record<string, unknown>) : undefined;
    const loc = entry?.loc;
    if (typeof loc !== "string" || loc === "") continue;
    try {
      const u = new URL(loc.trim(), base);
      if (u.protocol !== "http:" && u.protocol !== "https:") continue;
      out.push(u.href);
      // a W3C datetime the page says it last changed at; one that does not parse is ignored
      if (lastmod && typeof entry?.lastmod === "string" && !Number.isNaN(Date.parse(entry.lastmod))) lastmod.set(u.href, entry.lastmod);
    } catch {
      // malformed <loc>: skip the entry, keep the rest
    }
  }
  return out;
}

export function parseSitemap(body: Buffer | string, baseUrl: string): ParsedSitemap {
  let bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  if (bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: SITEMAP_MAX_BYTES });
    } catch {
      return { kind: "invalid", urls: [] };
    }
  }
  const text = bytes.toString("utf8").replace(/^\uFEFF/, "").trim();
  if (!text.startsWith("<")) {
    const urls: string[] = [];
    for (const line of text.split(/\r?\n/)) {
      const l = line.trim();
      if (!/^https?:\/\//i.test(l)) continue;
      try {
        urls.push(new URL(l).href);
      } catch {
        // not a URL line
      }
    }
    return { kind: urls.length ? "text" : "invalid", urls };
  }
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(text) as Record<string, unknown>;
  } catch {
    return { kind: "invalid", urls: [] };
  }
  const urlset = doc.urlset as Record<string, unknown> | string | undefined;
  if (urlset !== undefined) {
    const lastmod = new Map<string, string>();
    return { kind: "urlset", urls: typeof urlset === "object" ? locs(urlset.url, baseUrl, lastmod) : [], lastmod };
  }
  const index = doc.sitemapindex as Record<string, unknown> | string | undefined;
  if (index !== undefined) return { kind: "index", urls: typeof index === "object" ? locs(index.sitemap, baseUrl) : [] };
  return { kind: "invalid", urls: [] };
}

export interface SitemapCollectOptions {
  /** sitemap files fetched in total (indexes included) */
  maxFetches?: number;
  /** accepted page URLs kept; reading stops once this many are kept */
  maxUrls?: number;
  /** which page URLs to keep (e.g. same site, in scope); all are counted */
  accept?: (url: string) => boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface SitemapCollection {
  /** at least one sitemap file was read */
  found: boolean;
  /** unique accepted page URLs in document order, at most maxUrls */
  pages: string[];
  /** <lastmod> of accepted pages that have one */
  lastmod: Map<string, string>;
  /** page URLs counted in the files read (duplicates across files counted once) */
  pageCount: number;
  /** of pageCount, how many were accepted */
  acceptedCount: number;
  /** child sitemaps listed by index files */
  indexChildCount: number;
  /** sitemap files read successfully */
  sitemapsRead: number;
  /** of those, <urlset> or text files (not indexes) */
  urlsetsRead: number;
  /** listed sitemaps left unread because of maxFetches: counts are a sample */
  sampled: boolean;
  /** URLs of the sitemap files read, in order */
  read: string[];
  errors: string[];
}

/**
 * Reads sitemaps breadth-first starting from candidates (robots.txt Sitemap: lines, or
 * /sitemap.xml), following index files, with a bounded number of fetches.
 */
export async function collectSitemaps(candidates: string[], fetcher: Fetcher, options: SitemapCollectOptions = {}): Promise<SitemapCollection> {
  const maxFetches = options.maxFetches ?? MAX_SITEMAP_FETCHES;
  const maxUrls = options.maxUrls ?? MAX_SITEMAP_URLS;
  const queue = [...new Set(candidates)];
  const queued = new Set(queue);
  const pageSet = new Set<string>();
  const result: SitemapCollection = {
    found: false, pages: [], lastmod: new Map(), pageCount: 0, acceptedCount: 0, indexChildCount: 0, sitemapsRead: 0, urlsetsRead: 0, sampled: false, read: [], errors: [],
  };
  let fetches = 0;
  while (queue.length) {
    if (fetches >= maxFetches || result.pages.length >= maxUrls) {
      result.sampled = true;
      break;
    }
    const url = queue.shift() as string;
    fetches++;
    let parsed: ParsedSitemap;
    try {
      const res = await fetcher.fetch(url, {
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        maxBytes: SITEMAP_MAX_BYTES,
        accept: "application/xml,text/xml,text/plain;q=0.8,*/*;q=0.5",
      });
      if (res.status < 200 || res.status >= 300) {
        result.errors.push(`${url} answered HTTP ${res.status}.`);
        continue;
      }
      parsed = parseSitemap(res.body, res.finalUrl);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      result.errors.push(`${url}: ${describeError(err)}`);
      continue;
    }
    if (parsed.kind === "invalid") {
      result.errors.push(`${url} is not a sitemap.`);
      continue;
    }
    result.found = true;
    result.sitemapsRead++;
    result.read.push(url);
    if (parsed.kind === "index") {
      result.indexChildCount += parsed.urls.length;
      for (const child of parsed.urls) {
        if (!queued.has(child)) {
          queued.add(child);
          queue.push(child);
        }
      }
    } else {
      result.urlsetsRead++;
      for (const page of parsed.urls) {
        if (pageSet.has(page)) continue;
        pageSet.add(page);
        result.pageCount++;
        if (options.accept && !options.accept(page)) continue;
        result.acceptedCount++;
        if (result.pages.length >= maxUrls) continue;
        result.pages.push(page);
        const changed = parsed.lastmod?.get(page);
        if (changed) result.lastmod.set(page, changed);
      }
    }
  }
  return result;
}
