// What the crawler reads from an HTML page: links to follow, canonical URL, an advertised
// Markdown twin, robots meta directives, the title, and whether the page looks like an app shell
// that needs JavaScript. Content extraction for indexing is the parser's job (src/ingest).
//
// Markdown twins (llmstxt.org convention): a page may offer a clean Markdown copy of itself. We
// take it from <link rel="alternate" type="text/markdown" href> on the page; when a site
// advertises nothing, the crawler probes <url>.md (or <dir>/index.html.md) once for the start
// page and, only if that works, tries the same pattern for every HTML page (see crawler.ts).

import { parseHTML } from "../ingest/parse/dom.js";

export interface HtmlAnalysis {
  title: string | null;
  /** effective base URL (<base href> or the page URL) */
  baseUrl: string;
  /** absolute http(s) URLs without fragments, in document order, unique; nofollow excluded */
  links: string[];
  /** rel="nofollow" anchors that were left out */
  nofollowLinks: number;
  canonical: string | null;
  markdownTwin: string | null;
  /** <meta name="robots|quarrybot" content="noindex, nofollow"> */
  robots: { noindex: boolean; nofollow: boolean };
  /** characters of visible text without JavaScript (scripts, styles, noscript removed; whitespace collapsed) */
  textLength: number;
  scriptCount: number;
  /** an empty mount point such as <div id="root"></div> */
  appShell: boolean;
  /** little text without JavaScript, and scripts that would fill it in */
  needsJs: boolean;
}

const MOUNT_IDS = new Set(["root", "app", "__next", "__nuxt", "___gatsby", "svelte", "main-app"]);
const NEEDS_JS_TEXT = 200;
const SHELL_TEXT = 500;

/** Decodes an HTML body by the header charset, a BOM, or a <meta> charset; UTF-8 otherwise. */
export function decodeHtml(body: Buffer, contentType: string | null): string {
  let label = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
  if (!label) {
    if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) label = "utf-8";
    else if (body[0] === 0xff && body[1] === 0xfe) label = "utf-16le";
    else if (body[0] === 0xfe && body[1] === 0xff) label = "utf-16be";
    else {
      const head = body.subarray(0, 2048).toString("latin1");
      label = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
    }
  }
  try {
    return new TextDecoder(label ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

function resolveHttp(href: string | null | undefined, base: string): string | null {
  if (!href) return null;
  try {
    const u = new URL(href.trim(), base);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    u.hash = "";
    return u.href;
  } catch {
    return null;
  }
}

// lib.dom here has no DOM.Iterable, so NodeLists are copied into arrays.
function all(root: ParentNode, selector: string): Element[] {
  return Array.from(root.querySelectorAll(selector) as ArrayLike<Element>);
}

function relTokens(el: Element): string[] {
  return (el.getAttribute("rel") ?? "").toLowerCase().split(/\s+/).filter(Boolean);
}

export function analyzeHtml(html: string, pageUrl: string): HtmlAnalysis {
  const { document } = parseHTML(html);

  let baseUrl = pageUrl;
  const baseHref = document.querySelector("base[href]")?.getAttribute("href");
  const resolvedBase = resolveHttp(baseHref, pageUrl);
  if (resolvedBase) baseUrl = resolvedBase;

  const robots = { noindex: false, nofollow: false };
  for (const meta of all(document, "meta[name]")) {
    const name = (meta.getAttribute("name") ?? "").toLowerCase();
    if (name !== "robots" && name !== "quarrybot") continue;
    const content = (meta.getAttribute("content") ?? "").toLowerCase();
    if (/\b(noindex|none)\b/.test(content)) robots.noindex = true;
    if (/\b(nofollow|none)\b/.test(content)) robots.nofollow = true;
  }

  let canonical: string | null = null;
  let markdownTwin: string | null = null;
  for (const link of all(document, "link[href]")) {
    const rel = relTokens(link);
    if (!canonical && rel.includes("canonical")) canonical = resolveHttp(link.getAttribute("href"), baseUrl);
    const type = (link.getAttribute("type") ?? "").toLowerCase().split(";")[0].trim();
    if (!markdownTwin && rel.includes("alternate") && (type === "text/markdown" || type === "text/x-markdown")) {
      markdownTwin = resolveHttp(link.getAttribute("href"), baseUrl);
    }
  }

  const links: string[] = [];
  const seen = new Set<string>();
  let nofollowLinks = 0;
  for (const a of all(document, "a[href], area[href]")) {
    const url = resolveHttp(a.getAttribute("href"), baseUrl);
    if (!url) continue;
    if (robots.nofollow || relTokens(a).includes("nofollow")) {
      nofollowLinks++;
      continue;
    }
    if (seen.has(url)) continue;
    seen.add(url);
    links.push(url);
  }

  const title = document.querySelector("title")?.textContent?.replace(/\s+/g, " ").trim() || null;
  const scriptCount = document.querySelectorAll("script").length;

  let appShell = false;
  for (const el of all(document, "[id], app-root, [data-reactroot]")) {
    const id = (el.getAttribute("id") ?? "").toLowerCase();
    const isMount = MOUNT_IDS.has(id) || el.tagName.toLowerCase() === "app-root" || el.hasAttribute("data-reactroot");
    if (isMount && (el.textContent ?? "").trim() === "") {
      appShell = true;
      break;
    }
  }

  for (const el of all(document, "script, style, noscript, template")) el.remove();
  const textRoot = document.body ?? document.documentElement;
  const textLength = (textRoot?.textContent ?? "").replace(/\s+/g, " ").trim().length;
  const needsJs = scriptCount > 0 && (textLength < NEEDS_JS_TEXT || (appShell && textLength < SHELL_TEXT));

  return { title, baseUrl, links, nofollowLinks, canonical, markdownTwin, robots, textLength, scriptCount, appShell, needsJs };
}

/** Links in Markdown ([text](url), <https://...>), resolved against the document URL. */
export function extractMarkdownLinks(markdown: string, pageUrl: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (href: string) => {
    const url = resolveHttp(href, pageUrl);
    if (url && !seen.has(url)) {
      seen.add(url);
      out.push(url);
    }
  };
  for (const m of markdown.matchAll(/(!?)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) if (m[1] !== "!") add(m[2]);
  for (const m of markdown.matchAll(/<(https?:\/\/[^>\s]+)>/g)) add(m[1]);
  return out;
}

/** The first "# Heading" of a Markdown document. */
export function markdownTitle(markdown: string): string | null {
  const m = /^#\s+(.+?)\s*#*\s*$/m.exec(markdown);
  return m ? m[1].trim() : null;
}

/**
 * Where an unadvertised twin would live (llmstxt.org): /guide/intro -> /guide/intro.md,
 * /guide/ -> /guide/index.html.md, /page.html -> /page.html.md. Null for URLs with a query,
 * which have no stable twin.
 */
export function markdownTwinCandidate(pageUrl: string): string | null {
  const u = new URL(pageUrl);
  if (u.search) return null;
  if (/\.md$/i.test(u.pathname)) return null;
  u.hash = "";
  u.pathname = u.pathname.endsWith("/") ? `${u.pathname}index.html.md` : `${u.pathname}.md`;
  return u.href;
}

/** A body that is Markdown or plain text rather than an HTML error page served as 200. */
export function looksLikeMarkdown(body: Buffer, contentType: string | null): boolean {
  const type = (contentType ?? "").toLowerCase();
  if (type && !type.startsWith("text/markdown") && !type.startsWith("text/x-markdown") && !type.startsWith("text/plain")) return false;
  const head = body.subarray(0, 512).toString("utf8").trimStart().toLowerCase();
  return head.length > 0 && !head.startsWith("<!doctype") && !head.startsWith("<html");
}
