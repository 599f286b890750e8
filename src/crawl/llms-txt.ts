// /llms.txt (llmstxt.org): a Markdown file whose H2 sections list links to the pages an LLM should
// read. The crawler uses its links as seeds next to sitemap entries.

import { describeError } from "./errors.js";
import type { Fetcher } from "./fetcher.js";

export interface LlmsTxtLink {
  url: string;
  title: string;
  /** the H2 section the link is listed under ("" before the first one) */
  section: string;
  /** listed under "## Optional", which the format marks as skippable */
  optional: boolean;
}

export interface LlmsTxt {
  title: string | null;
  links: LlmsTxtLink[];
}

// [text](url) and [text](url "title"); images (![..](..)) are not links to pages.
const LINK = /(!?)\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

export function parseLlmsTxt(text: string, baseUrl: string): LlmsTxt {
  let title: string | null = null;
  let section = "";
  const links: LlmsTxtLink[] = [];
  const seen = new Set<string>();
  let inFence = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const h1 = /^#\s+(.+?)\s*#*\s*$/.exec(line);
    if (h1 && title === null) {
      title = h1[1];
      continue;
    }
    const h2 = /^##\s+(.+?)\s*#*\s*$/.exec(line);
    if (h2) {
      section = h2[1];
      continue;
    }
    for (const m of line.matchAll(LINK)) {
      if (m[1] === "!") continue;
      let url: URL;
      try {
        url = new URL(m[3], baseUrl);
      } catch {
        continue;
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") continue;
      url.hash = "";
      if (seen.has(url.href)) continue;
      seen.add(url.href);
      links.push({ url: url.href, title: m[2].trim(), section, optional: section.trim().toLowerCase() === "optional" });
    }
  }
  return { title, links };
}

export interface LlmsTxtFetch {
  url: string;
  found: boolean;
  status: number | null;
  parsed: LlmsTxt;
  detail: string;
}

/** GET <origin>/llms.txt. found only for a 2xx that is not an HTML page (soft 404s are common). */
export async function fetchLlmsTxt(site: string | URL, fetcher: Fetcher, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<LlmsTxtFetch> {
  const url = new URL("/llms.txt", site).href;
  const empty: LlmsTxt = { title: null, links: [] };
  try {
    const res = await fetcher.fetch(url, {
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      maxBytes: 2 * 1024 * 1024,
      accept: "text/markdown,text/plain;q=0.9,*/*;q=0.5",
    });
    const type = (res.contentType ?? "").toLowerCase();
    const text = res.body.toString("utf8");
    if (res.status < 200 || res.status >= 300) return { url, found: false, status: res.status, parsed: empty, detail: `No /llms.txt (HTTP ${res.status}).` };
    if (type.includes("html") || /^\s*<(!doctype|html)/i.test(text)) {
      return { url, found: false, status: res.status, parsed: empty, detail: "/llms.txt answers with an HTML page, not an llms.txt file." };
    }
    const parsed = parseLlmsTxt(text, res.finalUrl);
    return { url, found: true, status: res.status, parsed, detail: `/llms.txt lists ${parsed.links.length} links.` };
  } catch (err) {
    if (options.signal?.aborted) throw err;
    return { url, found: false, status: null, parsed: empty, detail: `/llms.txt could not be fetched (${describeError(err)}).` };
  }
}
