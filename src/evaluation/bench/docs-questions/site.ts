// A tiny static site on loopback for the crawl: `<mount><page id>` serves a set's pages from its
// docs directory, unmodified; robots.txt keeps the crawler off the excluded pages. The Node.js
// set's home page `/` lists the pages (`/api/fs.html`, ...); a set with a sitemap (LibreOffice:
// `/en-US/text/scalc/guide/autofilter.html`, ...) lists them in /sitemap.xml and its home page
// links none (sets.ts says why). Nothing else exists (404), so no assets are fetched.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { NODE_SET, type DocsSet } from "./sets.js";

export interface DocsSite {
  /** the crawl's start URL */
  start: string;
  /** path prefix of the pages (the crawl's include_paths) */
  prefix: string;
  requests(): number;
  close(): Promise<void>;
}

const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** A page's URL path: the mount and the id, each path segment percent-encoded. */
function pagePath(set: DocsSet, page: string): string {
  return set.mount + page.split("/").map(encodeURIComponent).join("/");
}

function homePage(set: DocsSet, pages: string[]): string {
  const head = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeXml(set.title)}</title></head><body><h1>${escapeXml(set.title)}</h1>`;
  if (set.sitemap) return `${head}<p>${pages.length} pages, listed in the sitemap.</p></body></html>`;
  const items = pages.map((p) => `<li><a href="${pagePath(set, p)}">${p.replace(/\.html$/, "")}</a></li>`).join("\n");
  return `${head}<ul>\n${items}\n</ul></body></html>`;
}

function sitemap(set: DocsSet, pages: string[], origin: string): string {
  const urls = pages.map((p) => `<url><loc>${escapeXml(origin + pagePath(set, p))}</loc></url>`).join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`;
}

export async function serveDocs(dir: string, pages: string[], set: DocsSet = NODE_SET): Promise<DocsSite> {
  const allowed = new Set(pages);
  const robots = ["User-agent: *", ...[...set.excluded].map((p) => `Disallow: ${pagePath(set, p)}`), ""].join("\n");
  let count = 0;
  let origin = "";
  const server = http.createServer((req, res) => {
    count++;
    const url = new URL(req.url ?? "/", "http://localhost");
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    if (url.pathname === "/") return send(200, "text/html; charset=utf-8", homePage(set, pages));
    if (url.pathname === "/robots.txt") return send(200, "text/plain; charset=utf-8", robots);
    if (set.sitemap && url.pathname === "/sitemap.xml") return send(200, "application/xml; charset=utf-8", sitemap(set, pages, origin));
    let name = "";
    try {
      name = url.pathname.startsWith(set.mount) ? decodeURIComponent(url.pathname.slice(set.mount.length)) : "";
    } catch {
      // a malformed escape: not a page
    }
    if (allowed.has(name)) return send(200, "text/html; charset=utf-8", fs.readFileSync(path.join(dir, set.pagesDir, name)));
    send(404, "text/plain; charset=utf-8", "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  origin = `http://127.0.0.1:${port}`;
  return {
    start: `${origin}/`,
    prefix: set.mount,
    requests: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
