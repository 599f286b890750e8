// Fixture websites for the crawler tests, served on 127.0.0.1 with random ports.

import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { FetchError } from "../../src/crawl/errors.js";
import { createUrlPolicy, type UrlGuard } from "../../src/crawl/url-policy.js";

export interface Hit {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  at: number;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, ctx: { base: string; url: URL }) => void | Promise<void>;

export interface FixtureServer {
  base: string;
  port: number;
  hits: Hit[];
  /** paths requested (path + query as sent) */
  paths(): string[];
  count(path: string): number;
  maxInFlight: number;
  close(): Promise<void>;
}

export async function serve(handler: Handler): Promise<FixtureServer> {
  const hits: Hit[] = [];
  let inFlight = 0;
  const state = { maxInFlight: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    hits.push({ method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, at: Date.now() });
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    res.on("close", () => inFlight--);
    Promise.resolve(handler(req, res, { base: `http://127.0.0.1:${port}`, url })).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    hits,
    paths: () => hits.map((h) => h.path),
    count: (path) => hits.filter((h) => h.path === path).length,
    get maxInFlight() {
      return state.maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Page {
  status?: number;
  type?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** send an ETag and answer If-None-Match with 304 */
  etag?: boolean;
  lastModified?: string;
}

export function send(req: http.IncomingMessage, res: http.ServerResponse, page: Page): void {
  const body = typeof page.body === "string" ? Buffer.from(page.body) : (page.body ?? Buffer.alloc(0));
  const headers: Record<string, string> = { "content-type": page.type ?? "text/html; charset=utf-8", ...page.headers };
  if (page.etag) {
    const tag = `"${createHash("sha1").update(body).digest("hex").slice(0, 16)}"`;
    headers.etag = tag;
    if (page.lastModified) headers["last-modified"] = page.lastModified;
    if (req.headers["if-none-match"] === tag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
  }
  headers["content-length"] = String(body.length);
  res.writeHead(page.status ?? 200, headers);
  res.end(req.method === "HEAD" ? undefined : body);
}

export function html(title: string, bodyHtml: string, head = ""): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body><main><h1>${title}</h1>
<p>${title} is a page of the Quarry fixture site. It has enough prose to count as real content for the crawler's
JavaScript detection, which looks for a couple of hundred characters of visible text.</p>${bodyHtml}</main></body></html>`;
}

export const links = (...hrefs: string[]) => hrefs.map((h) => `<a href="${h}">${h}</a>`).join("\n");

// ---------------------------------------------------------------------------------------------
// The docs site

export interface DocsSiteOptions {
  crawlDelay?: number;
  sitemap?: boolean;
  llms?: boolean;
  /** text that changes /docs/guide/config, for re-crawl tests */
  configText?: () => string;
  /** milliseconds to hold the answer of these paths (races between parallel fetches) */
  delays?: Record<string, number>;
}

/** Pages a full crawl of the docs site hands to the sink (paths). */
export const DOCS_FULL = [
  "/",
  "/about",
  "/page",
  "/docs/",
  "/blog/",
  "/files/manual.pdf",
  "/files/notes.txt",
  "/docs/guide/",
  "/docs/api/",
  "/blog/post-1",
  "/docs/guide/install",
  "/docs/guide/config",
  "/docs/guide/install/linux",
  "/docs/only-in-sitemap",
  "/docs/llms-only",
];

const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n", "latin1");

export function docsSite(opts: DocsSiteOptions = {}): Handler {
  const pages = docsPages(opts);
  return (req, res, ctx) => {
    const delay = opts.delays?.[ctx.url.pathname];
    if (!delay) return pages(req, res, ctx);
    setTimeout(() => pages(req, res, ctx), delay);
  };
}

function docsPages(opts: DocsSiteOptions): Handler {
  const sitemap = opts.sitemap ?? true;
  const llms = opts.llms ?? true;
  return (req, res, { base, url }) => {
    const p = url.pathname;
    const page = (title: string, body: string, head = "", extra: Partial<Page> = {}) =>
      send(req, res, { body: html(title, body, head), etag: true, lastModified: "Tue, 01 Oct 2024 10:00:00 GMT", ...extra });
    switch (p) {
      case "/robots.txt": {
        const lines = ["User-agent: *", "Disallow: /private/"];
        if (opts.crawlDelay) lines.push(`Crawl-delay: ${opts.crawlDelay}`);
        if (sitemap) lines.push(`Sitemap: ${base}/sitemap_index.xml`);
        return send(req, res, { type: "text/plain", body: lines.join("\n") + "\n" });
      }
      case "/sitemap_index.xml":
        if (!sitemap) break;
        return send(req, res, {
          type: "application/xml",
          body: `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>${base}/sitemap-docs.xml</loc></sitemap><sitemap><loc>${base}/sitemap-blog.xml</loc></sitemap></sitemapindex>`,
        });
      case "/sitemap-docs.xml":
        if (!sitemap) break;
        return send(req, res, {
          type: "application/xml",
          body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>${base}/docs/</loc></url><url><loc>${base}/docs/guide/</loc></url>
<url><loc>${base}/docs/guide/install</loc></url><url><loc>${base}/docs/only-in-sitemap</loc></url></urlset>`,
        });
      case "/sitemap-blog.xml":
        if (!sitemap) break;
        // gzip-compressed on the wire: the fetcher must inflate it
        return send(req, res, {
          type: "application/xml",
          headers: { "content-encoding": "gzip" },
          body: gzipSync(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>${base}/blog/</loc></url><url><loc>${base}/blog/post-1</loc></url></urlset>`),
        });
      case "/llms.txt":
        if (!llms) break;
        return send(req, res, {
          type: "text/plain; charset=utf-8",
          body: `# Fixture docs\n\n> The fixture site.\n\n## Docs\n\n- [Install](${base}/docs/guide/install): how to install\n- [LLM only](/docs/llms-only)\n\n## Optional\n\n- [Elsewhere](https://example.org/elsewhere)\n`,
        });
      case "/start":
        res.writeHead(301, { location: "/" });
        res.end();
        return;
      case "/":
        return page(
          "Home",
          links("/docs/", "/blog/", "/about", "/files/manual.pdf", "/files/notes.txt", "/image.png", "/private/secret",
            "mailto:team@example.org", "javascript:void(0)", "tel:+123456", "https://example.org/external",
            "/page?sid=123&utm_source=newsletter", "/page?PHPSESSID=abc", "/page;jsessionid=XYZ", "/page#section") +
            `<a rel="nofollow" href="/nofollow-target">nofollow</a>`,
        );
      case "/about":
        // no validators: re-crawls must compare it by content hash
        return send(req, res, { body: html("About", links("/")) });
      case "/page":
        return page("Page", links("/"));
      case "/docs/":
        // relative links resolve against <base>
        return page("Docs", links("guide/", "api/"), `<base href="${base}/docs/">`);
      case "/docs/guide/":
        return page("Guide", links("install", "config"));
      case "/docs/guide/install":
        return page("Install", links("/docs/guide/install/linux"));
      case "/docs/guide/install/linux":
        return page("Install on Linux", links("/docs/"));
      case "/docs/guide/config":
        return page("Config", `<p>${opts.configText ? opts.configText() : "Configuration v1"}</p>`);
      case "/docs/api/":
        return page("API", links("/docs/"), `<link rel="alternate" type="text/markdown" href="/docs/api.md">`);
      case "/docs/api.md":
        return send(req, res, { type: "text/markdown; charset=utf-8", body: "# API reference\n\nCall `search`.\n", etag: true });
      case "/docs/only-in-sitemap":
        return page("Only in sitemap", "");
      case "/docs/llms-only":
        return page("Only in llms.txt", "");
      case "/blog/":
        return page("Blog", links("/blog/post-1", "/blog/post-1?utm_campaign=x", "/blog/post-1-amp"));
      case "/blog/post-1":
        return page("Post 1", links("/blog/"), `<link rel="canonical" href="${base}/blog/post-1">`);
      case "/blog/post-1-amp":
        return page("Post 1 (AMP)", links("/blog/"), `<link rel="canonical" href="/blog/post-1">`);
      case "/files/manual.pdf":
        return send(req, res, { type: "application/pdf", body: PDF, etag: true });
      case "/files/notes.txt":
        return send(req, res, { type: "text/plain; charset=utf-8", body: "Plain notes.\n", etag: true });
      case "/image.png":
        return send(req, res, { type: "image/png", body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) });
    }
    send(req, res, { status: 404, body: html("Not found", "") });
  };
}

/**
 * Loopback is allowed only for the given fixture origins. Any other URL gets the strict policy
 * (private networks off) with a resolver that refuses to resolve, and if it would pass (a public
 * IP literal) it is refused too: a test can never send traffic, DNS included, off this machine.
 */
export function fixtureGuard(...origins: string[]): UrlGuard {
  const strict = createUrlPolicy({
    allowPrivateNetworks: false,
    resolve: async (host) => {
      throw Object.assign(new Error(`test guard: no DNS for ${host}`), { code: "ETESTNODNS" });
    },
  });
  const loose = createUrlPolicy({ allowPrivateNetworks: true });
  return {
    async check(url, signal) {
      const u = new URL(String(url));
      if (origins.includes(u.origin)) return loose.check(u, signal);
      await strict.check(u, signal);
      throw new FetchError("network", `test guard: ${u.href} is not a fixture`, u.href);
    },
  };
}

export function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}
