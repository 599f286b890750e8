// Re-crawls that do only the work that changed, over HTTP against a loopback fixture site whose
// pages change between crawls: conditional requests honoured (a 304 page is not re-parsed), the
// sitemap's lastmod skipping a request, a page whose markup changed but not its text keeping its
// chunks, exact counts per category, removals after two misses, stale pages kept.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollection, startServer, waitIndexed, type TestServer } from "../kit/index.js";
import { html, links, send, serve, type FixtureServer } from "../crawl/fixtures.js";
import { documentsOf, waitCrawl } from "./helpers.js";
import { settleMissedPages } from "../../src/services/crawl/crawl-freshness.js";

const OLD = "2020-01-01T00:00:00Z";

describe("re-crawl freshness", () => {
  let s: TestServer;
  let key: string;
  let site: FixtureServer;
  let sourceId: string;
  let collectionId: string;
  // what the site serves now; the tests change it between crawls
  const now = {
    homeLinks: ["/a", "/b", "/c", "/gone", "/flaky", "/markup"],
    bText: "Page b tells of the original walrus inventory.",
    markupComment: "",
    gone: false,
    flaky: false,
  };

  beforeAll(async () => {
    s = await startServer({ CRAWL_ALLOW_PRIVATE_NETWORKS: "true", DEFAULT_PLAN: "enterprise" });
    key = (await s.tenant()).adminKey;
    collectionId = await createCollection(s, key, [], "Fresh");
    site = await serve((req, res, { url, base }) => {
      const p = url.pathname;
      const page = (title: string, body: string) => send(req, res, { body: html(title, body), etag: true });
      if (p === "/") return page("Home", links(...now.homeLinks));
      if (p === "/sitemap.xml") {
        const entry = (loc: string, lastmod?: string) => `<url><loc>${base}${loc}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ""}</url>`;
        return send(req, res, { type: "application/xml", body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entry("/a")}${entry("/lm", OLD)}</urlset>` });
      }
      if (p === "/a") return page("Page a", "<p>Page a describes the lighthouse keeper's logbook.</p>");
      if (p === "/b") return page("Page b", `<p>${now.bText}</p>`);
      if (p === "/c") return page("Page c", "<p>Page c covers the orchard irrigation plan.</p>");
      if (p === "/lm") return page("Page lm", "<p>Page lm is listed only in the sitemap, with an old lastmod.</p>");
      if (p === "/gone" && !now.gone) return page("Page gone", "<p>Page gone mentions the quicksilver ferry timetable.</p>");
      if (p === "/flaky" && now.flaky) return send(req, res, { status: 503, type: "text/plain", body: "maintenance" });
      if (p === "/flaky") return page("Page flaky", "<p>Page flaky explains the tangerine warehouse rota.</p>");
      if (p === "/markup") return page("Page markup", `<p>Page markup keeps the same words about the granite quarry.</p>${now.markupComment}`);
      send(req, res, { status: 404, type: "text/plain", body: "not found" });
    });
  });

  afterAll(async () => {
    await s?.close();
    await site?.close();
  });

  async function crawl(): Promise<any> {
    const body = sourceId ? { url: `${site.base}/`, data_source_id: sourceId } : { url: `${site.base}/`, collection_id: collectionId, max_depth: 3, page_limit: 50 };
    const r = await s.call("POST", "/crawl", { key, json: body });
    expect(r.status).toBe(202);
    sourceId = r.body.data_source_id;
    const job = await waitCrawl(s, key, r.body.id);
    await waitIndexed(s, key, sourceId);
    return job;
  }

  const byPath = async () => new Map((await documentsOf(s, key, sourceId)).map((d) => [new URL(d.source).pathname, d]));
  const chunkIds = async (docId: string) => (await s.call("GET", `/documents/${docId}/chunks`, { key })).body.chunks.map((c: any) => c.id);
  const hitsSince = (from: number, path: string) => site.hits.slice(from).filter((h) => h.path === path);
  const search = async (query: string) => (await s.call("POST", "/search", { key, json: { query, collection_id: collectionId } })).body.results.map((r: any) => new URL(r.source).pathname);

  it("a first crawl counts every page as new", async () => {
    const job = await crawl();
    expect(job).toMatchObject({ status: "completed", pages_crawled: 8, pages_new: 8, pages_changed: 0, pages_unchanged: 0, pages_removed: 0, pages_failed: 0 });
    expect([...(await byPath()).keys()].sort()).toEqual(["/", "/a", "/b", "/c", "/flaky", "/gone", "/lm", "/markup"]);
  });

  let markupChunks: string[];
  let bChunks: string[];
  it("a re-crawl sends conditional requests, skips by lastmod, and re-indexes only what changed", async () => {
    const docs = await byPath();
    markupChunks = await chunkIds(docs.get("/markup")!.id);
    bChunks = await chunkIds(docs.get("/b")!.id);
    now.bText = "Page b now tells of the revised walrus inventory with narwhals.";
    now.markupComment = "<!-- rebuilt by the site generator -->";
    now.homeLinks = ["/a", "/b", "/gone", "/flaky", "/markup"]; // /c is no longer linked
    now.gone = true;
    now.flaky = true;
    const from = site.hits.length;
    const job = await crawl();
    // changed: / (its links), /b (text) and /markup (bytes); unchanged: /a (304) and /lm (lastmod); failed: /gone, /flaky
    expect(job).toMatchObject({ status: "completed", pages_new: 0, pages_changed: 3, pages_unchanged: 2, pages_removed: 0, pages_failed: 2, pages_stale: 1, pages_crawled: 5 });
    // conditional requests were sent and a 304 page was not stored again
    const a = hitsSince(from, "/a");
    expect(a).toHaveLength(1);
    expect(a[0].headers["if-none-match"]).toMatch(/^"/);
    expect(hitsSince(from, "/lm")).toHaveLength(0); // its sitemap lastmod predates the first crawl
    const after = await byPath();
    expect(after.get("/a")!.updated_at).toBe(docs.get("/a")!.updated_at);
    expect(after.get("/lm")!.updated_at).toBe(docs.get("/lm")!.updated_at);
    // the changed page was indexed again; the page whose text stayed the same kept its chunks
    expect(await chunkIds(after.get("/b")!.id)).not.toEqual(bChunks);
    expect(await chunkIds(after.get("/markup")!.id)).toEqual(markupChunks);
    expect(after.get("/markup")!.status).toBe("indexed");
    // missed once, not yet removed; the failing page keeps its last good version
    expect(after.has("/gone")).toBe(true);
    expect(after.has("/c")).toBe(true);
    expect(after.get("/flaky")!.status).toBe("indexed");
    expect(await search("tangerine warehouse rota")).toContain("/flaky");
    expect(await search("narwhals")).toContain("/b");
    // a second attempt of the same job settling its misses again (BullMQ may run one beside the
    // first) counts no second miss: nothing is removed after one crawl
    const row = (await s.rt.store.crawls.byId(job.id))!;
    const deps = { store: s.rt.store, files: s.rt.files, log: s.rt.log, config: { allowPrivateNetworks: true, renderJs: false } };
    expect(await settleMissedPages(deps, row, true)).toEqual([]);
    expect((await byPath()).has("/gone")).toBe(true);
  });

  it("a second miss removes the page with its chunks; a page failing with 503 stays", async () => {
    const job = await crawl();
    expect(job).toMatchObject({ status: "completed", pages_new: 0, pages_changed: 0, pages_unchanged: 5, pages_removed: 2, pages_failed: 1, pages_stale: 1 });
    const after = await byPath();
    expect(after.has("/gone")).toBe(false);
    expect(after.has("/c")).toBe(false);
    expect(after.get("/flaky")!.status).toBe("indexed");
    expect(await search("quicksilver ferry timetable")).not.toContain("/gone");
    expect(await search("orchard irrigation")).not.toContain("/c");
    expect(await search("tangerine warehouse rota")).toContain("/flaky");
  });

  it("a page that comes back is new again; the stale page recovers", async () => {
    now.gone = false;
    now.flaky = false;
    now.homeLinks = ["/a", "/b", "/gone", "/flaky", "/markup"];
    const job = await crawl();
    expect(job).toMatchObject({ status: "completed", pages_new: 1, pages_removed: 0, pages_failed: 0, pages_stale: 0 });
    expect((await byPath()).has("/gone")).toBe(true);
  });
});
