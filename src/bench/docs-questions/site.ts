// A tiny static site on loopback for the crawl: `/` lists the pages, `/api/<page>.html` serves
// them from the docs directory, robots.txt keeps the crawler off the excluded pages (all.html,
// index.html, which every page links to). Nothing else exists (404), so no assets are fetched.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { EXCLUDED_PAGES } from "./questions.js";

export interface DocsSite {
  /** the crawl's start URL */
  start: string;
  /** path prefix of the pages (the crawl's include_paths) */
  prefix: string;
  requests(): number;
  close(): Promise<void>;
}

const PREFIX = "/api/";

function homePage(pages: string[]): string {
  const items = pages.map((p) => `<li><a href="${PREFIX}${p}">${p.replace(/\.html$/, "")}</a></li>`).join("\n");
  return `<!doctype html><html><head><meta charset="utf-8"><title>Node.js API documentation</title></head><body><h1>Node.js API documentation</h1><ul>\n${items}\n</ul></body></html>`;
}

export async function serveDocs(dir: string, pages: string[]): Promise<DocsSite> {
  const allowed = new Set(pages);
  const robots = ["User-agent: *", ...[...EXCLUDED_PAGES].map((p) => `Disallow: ${PREFIX}${p}`), ""].join("\n");
  let count = 0;
  const server = http.createServer((req, res) => {
    count++;
    const url = new URL(req.url ?? "/", "http://localhost");
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    if (url.pathname === "/") return send(200, "text/html; charset=utf-8", homePage(pages));
    if (url.pathname === "/robots.txt") return send(200, "text/plain; charset=utf-8", robots);
    const name = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : "";
    if (allowed.has(name)) return send(200, "text/html; charset=utf-8", fs.readFileSync(path.join(dir, name)));
    send(404, "text/plain; charset=utf-8", "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    start: `http://127.0.0.1:${port}/`,
    prefix: PREFIX,
    requests: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
