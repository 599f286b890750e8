// Website crawling over real HTTP: fixture sites on loopback (CRAWL_ALLOW_PRIVATE_NETWORKS=true),
// crawl jobs through the API, pages indexed as documents of a website source, then searched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollection, createSource, startServer, waitIndexed, type TestServer } from "../kit/index.js";
import { DOCS_FULL, docsSite, html, links, send, serve, type FixtureServer } from "../crawl/fixtures.js";
import { chromiumAvailable } from "../../src/crawl/render.js";
import { docPaths, documentsOf, sleep, waitCrawl, waitCrawlUntil } from "./helpers.js";

// The install page of the docs site gets nested sections, so chunks have heading paths.
const INSTALL_PAGE = html(
  "Install",
  `<h2>Requirements</h2>
<p>Quarry runs on Node.js 20 or newer on Linux, macOS and Windows. A C compiler is only needed when no prebuilt
binary of the database driver matches the platform.</p>
<h3>Memory</h3>
<p>The indexer keeps a zephyr cache of recent embeddings; give the process at least 512 megabytes of memory so
the zephyr cache never evicts entries while a large batch is being indexed.</p>
<h2>Upgrading</h2>
<p>Stop the service, replace the package, and start it again; migrations run on start.</p>
${links("/docs/guide/install/linux")}`,
);

const SLOW_PAGES = 12;

describe("crawling through the API", () => {
  let s: TestServer;
  let key: string;
  let tenantId: string;
  let docs: FixtureServer;
  let slow: FixtureServer;
  let js: FixtureServer;
  const site = { configText: "Configuration v1: the default settings." };

  beforeAll(async () => {
    s = await startServer({ CRAWL_ALLOW_PRIVATE_NETWORKS: "true", DEFAULT_PLAN: "enterprise" });
    const t = await s.tenant();
    key = t.adminKey;
    tenantId = t.id;
    const docsHandler = docsSite({ configText: () => site.configText });
    docs = await serve((req, res, ctx) =>
      ctx.url.pathname === "/docs/guide/install" ? send(req, res, { body: INSTALL_PAGE, etag: true }) : docsHandler(req, res, ctx),
    );
    // every page but the home page takes 400 ms: a crawl long enough to cancel in the middle
    slow = await serve(async (req, res, { url }) => {
      if (url.pathname === "/") {
        return send(req, res, { body: html("Slow home", links(...Array.from({ length: SLOW_PAGES }, (_, i) => `/p${i + 1}`))) });
      }
      const m = /^\/p(\d+)$/.exec(url.pathname);
      if (m) {
        await sleep(400);
        return send(req, res, { body: html(`Slow page ${m[1]}`, `<p>Slow page number ${m[1]} has its own text.</p>`) });
      }
      send(req, res, { status: 404, body: "not found", type: "text/plain" });
    });
    // an app shell whose text exists only after its script ran
    js = await serve((req, res, { url }) => {
      if (url.pathname === "/") {
        return send(req, res, {
          body: `<!doctype html><html><head><title>Loading</title><script src="/app.js" defer></script></head><body><div id="root"></div></body></html>`,
        });
      }
      if (url.pathname === "/app.js") {
        return send(req, res, {
          type: "text/javascript",
          body: `document.getElementById('root').innerHTML = '<main><h1>Rendered manual</h1><p>The marmalade calibration procedure ' +
            'is described here, and this paragraph appears only after JavaScript runs in the browser that rendered it.</p></main>';
            document.title = 'Rendered manual';`,
        });
      }
      send(req, res, { status: 404, body: "not found", type: "text/plain" });
    });
  });

  afterAll(async () => {
    await s?.close();
    await Promise.all([docs?.close(), slow?.close(), js?.close()]);
  });

  const crawl = (json: Record<string, unknown>, k = key) => s.call("POST", "/crawl", { key: k, json });

  describe("the docs site", () => {
    let col: string;
    let srcId: string;
    let crawlId: string;

    it("POST /crawl/check reports what a crawl would find, indexing nothing", async () => {
      const b = docs.base;
      const before = docs.hits.length;
      const r = await s.call("POST", "/crawl/check", { key, json: { url: `${b}/start` } });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        url: `${b}/start`,
        final_url: `${b}/`,
        reachable: true,
        status_code: 200,
        content_type: "text/html; charset=utf-8",
        can_crawl: true,
        blocked_reason: null,
        robots_found: true,
        robots_allowed: true,
        crawl_delay: null,
        sitemap_found: true,
        sitemap_page_count: 6,
        sitemap_index_count: 2,
        sitemap_sampled: false,
        sitemap_sample: [`${b}/docs/`, `${b}/docs/guide/`, `${b}/docs/guide/install`, `${b}/docs/only-in-sitemap`, `${b}/blog/`],
        llms_txt_found: true,
        llms_txt_page_count: 2,
        markdown_twin: false,
        needs_js: false,
        scope: `${b}/`,
        estimated_pages: 6,
        suggested_page_limit: 7,
        suggested_depth: 2,
        checks: expect.any(Array),
        elapsed_ms: expect.any(Number),
      });
      expect(r.body.checks.map((c: any) => c.name)).toEqual(
        expect.arrayContaining(["url_policy", "fetch", "robots", "sitemap", "llms_txt", "markdown_twin", "javascript"]),
      );
      for (const c of r.body.checks) expect(Object.keys(c).sort()).toEqual(["detail", "name", "status"]);
      expect(docs.hits.length - before).toBeLessThanOrEqual(8);
      // nothing was created
      expect((await s.call("GET", "/data-sources", { key })).body).toEqual([]);
      expect((await s.call("GET", "/crawl", { key })).body).toEqual([]);
    });

    it("POST /crawl creates a website source in the collection, saves the settings and queues the job", async () => {
      col = await createCollection(s, key, [], "Docs");
      const r = await crawl({ url: `${docs.base}/`, collection_id: col, max_depth: 10, page_limit: 100 });
      expect(r.status).toBe(202);
      expect(r.body).toMatchObject({
        url: `${docs.base}/`,
        status: "queued",
        pages_crawled: 0,
        page_limit: 100,
        max_depth: 10,
        error: null,
        render_js: false,
        include_paths: [],
      });
      expect(r.body.id).toMatch(/^crawl_/);
      crawlId = r.body.id;
      srcId = r.body.data_source_id;

      const src = await s.call("GET", `/data-sources/${srcId}`, { key });
      expect(src.body).toMatchObject({
        name: `127.0.0.1:${docs.port}`,
        source_type: "website",
        collection_ids: [col],
        configuration: { url: `${docs.base}/`, max_depth: 10, page_limit: 100, render_js: false, include_paths: [] },
      });
      expect(src.body.status).toBe("syncing");
    });

    it("crawls every page once, honouring robots.txt; the source ends ready", async () => {
      const job = await waitCrawl(s, key, crawlId);
      expect(job).toMatchObject({ status: "completed", pages_crawled: DOCS_FULL.length, pages_failed: 0, error: null });
      expect(Date.parse(job.started_at)).toBeGreaterThanOrEqual(Date.parse(job.created_at));
      expect(Date.parse(job.finished_at)).toBeGreaterThanOrEqual(Date.parse(job.started_at));

      const list = await waitIndexed(s, key, srcId);
      expect(docPaths(list)).toEqual([...DOCS_FULL].sort());
      for (const d of list) expect(d.source_type).toBe("website");
      const byPath = new Map(list.map((d) => [new URL(d.source).pathname, d]));
      expect(byPath.get("/docs/guide/install")).toMatchObject({ status: "indexed", title: "Install" });
      expect(byPath.get("/docs/api/")).toMatchObject({ status: "indexed", title: "API reference" }); // its Markdown twin
      expect(byPath.get("/files/notes.txt")?.status).toBe("indexed");
      // robots.txt disallows /private/: never fetched, never a document
      expect(docs.count("/private/secret")).toBe(0);

      const src = await s.call("GET", `/data-sources/${srcId}`, { key });
      expect(src.body).toMatchObject({ status: "ready", error: null, document_count: DOCS_FULL.length });
      expect(src.body.last_synced_at).not.toBeNull();
    });

    it("the crawled site is searchable, with heading paths taken from the pages", async () => {
      const r = await s.call("POST", "/search", { key, json: { collection_id: col, query: "zephyr cache memory" } });
      expect(r.status).toBe(200);
      const top = r.body.results[0];
      expect(top).toMatchObject({ source: `${docs.base}/docs/guide/install`, title: "Install", heading_path: ["Requirements", "Memory"] });
      expect(top.snippet.toLowerCase()).toContain("zephyr");
    });

    it("a re-crawl after one page changed updates only that document, and indexes again a page that had failed", async () => {
      let before = await documentsOf(s, key, srcId);
      // an unchanged page whose indexing failed last time (say, a parse cut off on a busy machine)
      const failed = before.find((d) => new URL(d.source).pathname === "/docs/guide/install")!;
      await s.rt.store.content.setDocumentStatus(tenantId, failed.id, "failed", "Parsing took longer than 15 s");
      before = await documentsOf(s, key, srcId);
      expect(before.find((d) => d.id === failed.id)?.status).toBe("failed");
      site.configText = "Configuration v2: the quokka setting is new.";
      const r = await crawl({ url: `${docs.base}/`, data_source_id: srcId, max_depth: 10, page_limit: 100 });
      expect(r.status).toBe(202);
      expect(r.body.data_source_id).toBe(srcId);
      const job = await waitCrawl(s, key, r.body.id);
      expect(job).toMatchObject({ status: "completed", pages_crawled: DOCS_FULL.length });
      const after = await waitIndexed(s, key, srcId);

      // same documents (no duplicates); only the changed page was stored and indexed again
      expect(after.map((d) => d.id).sort()).toEqual(before.map((d) => d.id).sort());
      const prev = new Map(before.map((d) => [d.id, d.updated_at]));
      const changed = after.filter((d) => d.updated_at !== prev.get(d.id)).map((d) => new URL(d.source).pathname);
      // every failed page gets its try again (the fixture's PDF has no text and fails each time)
      const failedBefore = before.filter((d) => d.status === "failed").map((d) => new URL(d.source).pathname);
      expect(failedBefore).toContain("/docs/guide/install");
      expect(changed.sort()).toEqual(["/docs/guide/config", ...failedBefore].sort());
      expect(after.find((d) => d.id === failed.id)?.status).toBe("indexed");

      const hit = await s.call("POST", "/search", { key, json: { collection_id: col, query: "quokka setting" } });
      expect(hit.body.results[0].source).toBe(`${docs.base}/docs/guide/config`);
      site.configText = "Configuration v1: the default settings.";
    });

    it("GET /crawl lists the tenant's jobs, newest first; other tenants see none of them", async () => {
      const r = await s.call("GET", "/crawl", { key });
      expect(r.status).toBe(200);
      expect(r.body.length).toBe(2);
      expect(r.body.at(-1).id).toBe(crawlId);
      const other = await s.tenant();
      expect((await s.call("GET", "/crawl", { key: other.adminKey })).body).toEqual([]);
      const foreign = await s.call("GET", `/crawl/${crawlId}`, { key: other.adminKey });
      expect(foreign.status).toBe(404);
      expect(foreign.body.detail).toContain(crawlId);
      expect((await s.call("POST", `/crawl/${crawlId}/cancel`, { key: other.adminKey })).status).toBe(404);
      expect((await s.call("POST", `/crawl/${crawlId}/retry`, { key: other.adminKey })).status).toBe(404);
      expect((await crawl({ url: `${docs.base}/`, data_source_id: srcId }, other.adminKey)).status).toBe(404);
      expect((await s.call("GET", "/crawl/crawl_missing", { key })).status).toBe(404);
    });

    it("cancel or retry of a completed job answers 409 with a detail", async () => {
      const c = await s.call("POST", `/crawl/${crawlId}/cancel`, { key });
      expect(c.status).toBe(409);
      expect(c.body.detail).toMatch(/is completed; only queued or running crawls can be cancelled/);
      const r = await s.call("POST", `/crawl/${crawlId}/retry`, { key });
      expect(r.status).toBe(409);
      expect(r.body.detail).toMatch(/is completed; only failed or cancelled crawls can be retried/);
    });
  });

  describe("crawl options", () => {
    it("max_depth 0 crawls the start page only; max_depth 1 adds its links, sitemap and llms.txt entries", async () => {
      const zero = await crawl({ url: `${docs.base}/`, max_depth: 0 });
      const one = await crawl({ url: `${docs.base}/`, max_depth: 1, page_limit: 100 });
      expect([zero.status, one.status]).toEqual([202, 202]);
      expect(await waitCrawl(s, key, zero.body.id)).toMatchObject({ status: "completed", pages_crawled: 1 });
      expect(docPaths(await documentsOf(s, key, zero.body.data_source_id))).toEqual(["/"]);
      const job = await waitCrawl(s, key, one.body.id);
      expect(job).toMatchObject({ status: "completed", pages_crawled: 12 });
      expect(docPaths(await documentsOf(s, key, one.body.data_source_id))).toEqual(
        ["/", "/about", "/page", "/docs/", "/blog/", "/files/manual.pdf", "/files/notes.txt", "/docs/guide/install", "/docs/llms-only",
          "/docs/guide/", "/docs/only-in-sitemap", "/blog/post-1"].sort(),
      );
    });

    it("page_limit caps the pages, include_paths keeps the crawl under its prefixes", async () => {
      const limited = await crawl({ url: `${docs.base}/`, max_depth: 10, page_limit: 3 });
      const blog = await crawl({ url: `${docs.base}/`, max_depth: 10, page_limit: 100, include_paths: ["/blog/"] });
      expect(await waitCrawl(s, key, limited.body.id)).toMatchObject({ status: "completed", pages_crawled: 3, page_limit: 3 });
      expect(await documentsOf(s, key, limited.body.data_source_id)).toHaveLength(3);
      expect(blog.body.include_paths).toEqual(["/blog/"]);
      expect(await waitCrawl(s, key, blog.body.id)).toMatchObject({ status: "completed", pages_crawled: 2 });
      expect(docPaths(await documentsOf(s, key, blog.body.data_source_id))).toEqual(["/blog/", "/blog/post-1"]);
      const src = await s.call("GET", `/data-sources/${blog.body.data_source_id}`, { key });
      expect(src.body.configuration).toEqual({ url: `${docs.base}/`, max_depth: 10, page_limit: 100, render_js: false, include_paths: ["/blog/"] });
    });

    it("a crawl that finds nothing fails with a reason, and the source shows the error", async () => {
      const r = await crawl({ url: `${docs.base}/private/secret`, max_depth: 0 });
      expect(r.status).toBe(202);
      const job = await waitCrawl(s, key, r.body.id);
      expect(job.status).toBe("failed");
      expect(job.error).toContain("robots.txt disallows");
      const src = await s.call("GET", `/data-sources/${r.body.data_source_id}`, { key });
      expect(src.body).toMatchObject({ status: "error", error: job.error, document_count: 0 });
      expect(docs.count("/private/secret")).toBe(0);
    });

    it("refuses sources it cannot crawl into, unknown ids and the sources quota", async () => {
      const upload = await createSource(s, key, "Files", "upload");
      const wrong = await crawl({ url: `${docs.base}/`, data_source_id: upload });
      expect(wrong.status).toBe(400);
      expect(wrong.body.detail).toContain("type 'website'");
      expect((await crawl({ url: `${docs.base}/`, data_source_id: "src_missing" })).status).toBe(404);
      const noCol = await crawl({ url: `${docs.base}/`, collection_id: "col_missing" });
      expect(noCol.status).toBe(404);
      expect(noCol.body.detail).toContain("col_missing");

      const small = await s.tenant();
      await s.rt.store.tenants.setPlan(small.id, "free");
      for (let i = 0; i < 5; i++) await createSource(s, small.adminKey, `Source ${i}`);
      const over = await crawl({ url: `${docs.base}/` }, small.adminKey);
      expect(over.status).toBe(429);
      expect(over.body.detail).toContain("Data source limit reached on the free plan: 5 of 5 used");
      expect((await s.call("GET", "/crawl", { key: small.adminKey })).body).toEqual([]);
    });
  });

  describe("cancel and retry", () => {
    it("cancel stops a running crawl promptly and keeps its pages; retry resumes to completion without duplicates", async () => {
      const r = await crawl({ url: `${slow.base}/`, max_depth: 1, page_limit: 50 });
      expect(r.status).toBe(202);
      const id = r.body.id;
      const src = r.body.data_source_id;

      // one crawl at a time per source
      const second = await crawl({ url: `${slow.base}/`, data_source_id: src });
      expect(second.status).toBe(409);
      expect(second.body.detail).toContain(id);

      await waitCrawlUntil(s, key, id, (j) => j.status === "running" && j.pages_crawled >= 3);
      expect((await s.call("GET", `/data-sources/${src}`, { key })).body.status).toBe("syncing");
      const c = await s.call("POST", `/crawl/${id}/cancel`, { key });
      expect(c.status).toBe(200);
      expect(c.body.status).toBe("cancelled");
      expect(c.body.finished_at).not.toBeNull();

      // stops promptly: no new requests a moment after the cancel
      await sleep(700);
      const hits = slow.hits.length;
      await sleep(700);
      expect(slow.hits.length).toBe(hits);
      const cancelled = await waitCrawl(s, key, id);
      expect(cancelled.status).toBe("cancelled");
      const kept = await waitIndexed(s, key, src);
      expect(kept.length).toBeGreaterThanOrEqual(3);
      expect(kept.length).toBeLessThan(SLOW_PAGES + 1);
      expect(kept.every((d) => d.status === "indexed")).toBe(true);
      expect(cancelled.pages_crawled).toBe(kept.length);

      const retry = await s.call("POST", `/crawl/${id}/retry`, { key });
      expect(retry.status).toBe(202);
      expect(retry.body).toMatchObject({ id, status: "queued", error: null });
      const done = await waitCrawl(s, key, id);
      expect(done).toMatchObject({ status: "completed", pages_crawled: SLOW_PAGES + 1 });
      const all = await waitIndexed(s, key, src);
      expect(docPaths(all)).toEqual(["/", ...Array.from({ length: SLOW_PAGES }, (_, i) => `/p${i + 1}`)].sort());
      // the documents kept from the first attempt are the same rows, and their pages were not fetched again
      const ids = new Set(all.map((d) => d.id));
      for (const d of kept) {
        expect(ids.has(d.id)).toBe(true);
        expect(slow.count(new URL(d.source).pathname)).toBe(1);
      }
      expect((await s.call("GET", `/data-sources/${src}`, { key })).body.status).toBe("ready");
    });

    it("a queued crawl can be cancelled before it starts", async () => {
      // fill both crawl workers with slow crawls, then queue a third one and cancel it
      const a = await crawl({ url: `${slow.base}/`, max_depth: 1 });
      const b = await crawl({ url: `${slow.base}/`, max_depth: 1 });
      const c = await crawl({ url: `${docs.base}/`, max_depth: 0 });
      const cancel = await s.call("POST", `/crawl/${c.body.id}/cancel`, { key });
      expect(cancel.status).toBe(200);
      expect(cancel.body.status).toBe("cancelled");
      for (const j of [a, b]) expect((await s.call("POST", `/crawl/${j.body.id}/cancel`, { key })).status).toBe(200);
      for (const j of [a, b, c]) expect((await waitCrawl(s, key, j.body.id)).status).toBe("cancelled");
      expect(await documentsOf(s, key, c.body.data_source_id)).toEqual([]);
      expect((await s.call("GET", `/crawl/${c.body.id}`, { key })).body.started_at).toBeNull();
    });
  });

  // once, on the SQLite pass: what Chromium renders is stored as any fetched page is, so the
  // PostgreSQL and BullMQ passes (pg-suites.ts) would only start Chromium twice more
  describe.skipIf(!chromiumAvailable() || process.env.TEST_STORE === "postgres")("render_js", () => {
    it("renders a JavaScript-only page in Chromium; its text becomes searchable", async () => {
      const col = await createCollection(s, key, [], "App");
      const plain = await crawl({ url: `${js.base}/`, max_depth: 0 });
      const rendered = await crawl({ url: `${js.base}/`, max_depth: 0, render_js: true, collection_id: col });
      expect(rendered.status).toBe(202);
      expect(rendered.body.render_js).toBe(true);
      expect(await waitCrawl(s, key, rendered.body.id)).toMatchObject({ status: "completed", pages_crawled: 1 });
      const [doc] = await waitIndexed(s, key, rendered.body.data_source_id);
      expect(doc).toMatchObject({ status: "indexed", title: "Rendered manual", source: `${js.base}/` });
      const hit = await s.call("POST", "/search", { key, json: { collection_id: col, query: "marmalade calibration" } });
      expect(hit.body.results[0]?.source).toBe(`${js.base}/`);

      // without rendering the app shell has no text to index
      expect(await waitCrawl(s, key, plain.body.id)).toMatchObject({ status: "completed", pages_crawled: 1 });
      const [shell] = await waitIndexed(s, key, plain.body.data_source_id);
      expect(shell.status).toBe("failed");
    });
  });

  describe("queue unavailable", () => {
    it("answers 503 and starts nothing when the crawl queue is not running", async () => {
      const sources = (await s.call("GET", "/data-sources", { key })).body.length;
      const crawls = (await s.call("GET", "/crawl", { key })).body;
      const failed = crawls.find((j: any) => j.status === "failed");
      await s.rt.crawlQueue.stop();
      const health = await s.call("GET", "/health");
      expect(health.body.checks.queue.status).toBe("down");

      const r = await crawl({ url: `${docs.base}/` });
      expect(r.status).toBe(503);
      expect(r.body.detail).toMatch(/crawl queue is not running/);
      const retry = await s.call("POST", `/crawl/${failed.id}/retry`, { key });
      expect(retry.status).toBe(503);
      expect((await s.call("GET", "/data-sources", { key })).body.length).toBe(sources);
      expect((await s.call("GET", "/crawl", { key })).body.length).toBe(crawls.length);
      expect((await s.call("GET", `/crawl/${failed.id}`, { key })).body.status).toBe("failed");
    });
  });
});
