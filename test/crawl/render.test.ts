import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCrawl } from "../../src/crawl/crawler.js";
import { chromiumAvailable, createRenderer } from "../../src/crawl/render.js";
import type { CrawledPage } from "../../src/crawl/types.js";
import { fixtureGuard, html, send, serve, type FixtureServer } from "./fixtures.js";

const APP_JS = `
fetch('/api/content').then((r) => r.json()).then((d) => {
  document.getElementById('root').innerHTML =
    '<h1>' + d.title + '</h1><p>' + d.text + '</p><a href="/spa/page2">Next page</a>';
  document.title = d.title;
});
// requests the URL policy must stop: a private address, and a redirect into the metadata service
fetch('http://10.0.0.1/steal').catch(() => {});
fetch('/api/redirect-private').catch(() => {});
`;

let site: FixtureServer;
beforeAll(async () => {
  site = await serve((req, res, { url }) => {
    switch (url.pathname) {
      case "/":
        return send(req, res, {
          body: `<!doctype html><html><head><title>Loading</title><script src="/app.js" defer></script></head><body><div id="root"></div><img src="/logo.png"></body></html>`,
        });
      case "/app.js":
        return send(req, res, { type: "text/javascript", body: APP_JS });
      case "/api/content":
        return send(req, res, { type: "application/json", body: JSON.stringify({ title: "Rendered Title", text: "This text appears only after JavaScript runs." }) });
      case "/api/redirect-private":
        res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" });
        res.end();
        return;
      case "/spa/page2":
        return send(req, res, { body: html("Second page", "") });
      case "/logo.png":
        return send(req, res, { type: "image/png", body: Buffer.from([0x89, 0x50]) });
    }
    send(req, res, { status: 404, body: "not found" });
  });
});
afterAll(() => site.close());

describe.skipIf(!chromiumAvailable())("render_js with Chromium", () => {
  it("without rendering, the app shell has no text and no links", async () => {
    const pages: CrawledPage[] = [];
    await runCrawl({ url: `${site.base}/`, guard: fixtureGuard(site.base), maxDepth: 2 }, { onPage: async (p) => void pages.push(p) });
    expect(pages).toHaveLength(1);
    expect(pages[0].body.toString()).not.toContain("appears only after JavaScript");
  });

  it("renders pages before link extraction and hand-off; the page's requests obey the URL policy", async () => {
    const before = site.hits.length;
    const pages: CrawledPage[] = [];
    const result = await runCrawl(
      { url: `${site.base}/`, guard: fixtureGuard(site.base), maxDepth: 2, renderJs: true },
      { onPage: async (p) => void pages.push(p) },
    );
    const hits = site.hits.slice(before).map((h) => h.path);
    expect(result.error).toBeNull();
    const home = pages.find((p) => p.url === `${site.base}/`);
    expect(home?.body.toString()).toContain("This text appears only after JavaScript runs.");
    expect(home).toMatchObject({ format: "html", title: "Rendered Title", contentType: "text/html; charset=utf-8" });
    expect(home?.links).toContain(`${site.base}/spa/page2`);
    expect(pages.map((p) => new URL(p.url).pathname).sort()).toEqual(["/", "/spa/page2"]);
    // the main document was fetched once (the browser got the crawler's bytes); images are not loaded
    expect(hits.filter((h) => h === "/")).toHaveLength(1);
    expect(hits).toContain("/api/content");
    expect(hits).not.toContain("/logo.png");
  });

  it("reports the requests it refused", async () => {
    const renderer = await createRenderer({ guard: fixtureGuard(site.base) });
    try {
      const out = await renderer.render({ url: `${site.base}/` });
      expect(out.html).toContain("Rendered Title");
      expect(out.blockedRequests.sort()).toEqual(["http://10.0.0.1/steal", `${site.base}/api/redirect-private`].sort());
      expect(out.finalUrl).toBe(`${site.base}/`);
    } finally {
      await renderer.close();
    }
  });
});
