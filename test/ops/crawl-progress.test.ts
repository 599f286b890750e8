// Issue 14, progress you can follow: a crawl reads completed only once the pages it handed over
// are indexed (pages_indexed, pages_pending), GET /crawl/{id}/pages?status=failed names each page
// that could not be fetched with the reason, the data source's failed_count includes them, and the
// list pages with limit + cursor through the Link header.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../kit/index.js";
import { serve, send, html, links, type FixtureServer } from "../crawl/fixtures.js";
import { documentsOf, sleep } from "../crawl-api/helpers.js";
import { PAGE_SIZE_LIMIT_BYTES } from "../../src/crawl/limits.js";

const PAGES = 6;

describe("crawl progress", () => {
  let s: TestServer;
  let site: FixtureServer;
  let key: string;

  beforeAll(async () => {
    s = await startServer({ CRAWL_ALLOW_PRIVATE_NETWORKS: "true", DEFAULT_PLAN: "enterprise", INGEST_WORKERS: "1" }, { listen: false });
    key = (await s.tenant()).adminKey;
    const big = html("Big", `<p>${"word ".repeat(Math.ceil(PAGE_SIZE_LIMIT_BYTES / 5) + 1000)}</p>`);
    site = await serve((req, res, { url }) => {
      const pages = Array.from({ length: PAGES }, (_, i) => `/p${i + 1}`);
      if (url.pathname === "/") return send(req, res, { body: html("Home", `<p>The progress home page.</p>${links(...pages, "/dead", "/big")}`) });
      const m = /^\/p(\d+)$/.exec(url.pathname);
      if (m) return send(req, res, { body: html(`Page ${m[1]}`, `<p>Progress page number ${m[1]} about turbine gearbox ${m[1]}.</p>`) });
      if (url.pathname === "/big") return send(req, res, { body: big });
      send(req, res, { status: 404, body: "not found", type: "text/plain" });
    });
  });
  afterAll(async () => {
    await s?.close();
    await site?.close();
  });

  it("is completed only when pages_indexed reached the indexed documents, and lists the failed pages with reasons", async () => {
    const created = await s.call("POST", "/crawl", { key, json: { url: `${site.base}/`, max_depth: 1, page_limit: 50 } });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ pages_indexed: 0, pages_pending: 0 });
    const id = created.body.id;
    const seen: any[] = [];
    let job: any;
    for (const deadline = Date.now() + 60_000; ; ) {
      job = (await s.call("GET", `/crawl/${id}`, { key })).body;
      seen.push(job);
      if (["completed", "failed", "cancelled"].includes(job.status)) break;
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(20);
    }
    expect(job.status).toBe("completed");
    const docs = await documentsOf(s, key, job.data_source_id);
    const indexed = docs.filter((d) => d.status === "indexed");
    expect(indexed.length).toBe(PAGES + 1);
    expect(job.pages_indexed).toBe(indexed.length);
    expect(job.pages_pending).toBe(0);
    // pages_indexed only grows, and no reading said completed while pages were pending
    for (let i = 1; i < seen.length; i++) expect(seen[i].pages_indexed).toBeGreaterThanOrEqual(seen[i - 1].pages_indexed);
    for (const j of seen) if (j.status === "completed") expect(j.pages_pending).toBe(0);

    const failed = await s.call("GET", `/crawl/${id}/pages?status=failed`, { key });
    expect(failed.status).toBe(200);
    const byPath = Object.fromEntries(failed.body.map((p: any) => [new URL(p.url).pathname, p]));
    expect(Object.keys(byPath).sort()).toEqual(["/big", "/dead"]);
    expect(byPath["/dead"].reason).toMatch(/404/);
    expect(byPath["/big"].reason).toMatch(/large|size|limit|bytes/i);
    expect(byPath["/dead"]).toMatchObject({ status: "failed", document_id: null });
    expect(job.pages_failed).toBe(2);

    const source = await s.call("GET", `/data-sources/${job.data_source_id}`, { key });
    expect(source.body.failed_count).toBe(2);

    // every page, two at a time, through the Link header
    const all: any[] = [];
    let next: string | null = `/crawl/${id}/pages?limit=2`;
    while (next) {
      const r = await s.call("GET", next, { key });
      expect(r.status).toBe(200);
      expect(r.body.length).toBeLessThanOrEqual(2);
      all.push(...r.body);
      const link = r.headers.get("link");
      next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : null;
    }
    expect(all.length).toBe(PAGES + 1 + 2);
    expect(new Set(all.map((p) => p.url)).size).toBe(all.length);
    expect(all.filter((p) => p.status === "indexed").length).toBe(PAGES + 1);

    const bad = await s.call("GET", `/crawl/${id}/pages?cursor=zzz`, { key });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/cursor/);
  });
});
