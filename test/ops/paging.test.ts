// Issue 14: GET /documents filters by status and data_source_id and pages with limit + cursor (the
// body stays the contract's array; the next page is in `Link: <...>; rel="next"`); GET /crawl pages
// the same way.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollection, createSource, upload, useServer, waitIndexed, type TestServer } from "../kit/index.js";
import { serve, send, html, type FixtureServer } from "../crawl/fixtures.js";
import { waitCrawl } from "../crawl-api/helpers.js";

const LIGHT = { EMBEDDING_PROFILE: "bge-small-en-v1.5", ALLOW_MODEL_DOWNLOAD: "false", CRAWL_ALLOW_PRIVATE_NETWORKS: "true", DEFAULT_PLAN: "enterprise" };

/** Follows Link rel="next" from `first`; returns each page's body. */
async function allPages(s: TestServer, key: string, first: string): Promise<any[][]> {
  const pages: any[][] = [];
  let next: string | null = first;
  while (next) {
    const r = await s.call("GET", next, { key });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    pages.push(r.body);
    const link = r.headers.get("link");
    next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : null;
    expect(pages.length).toBeLessThan(50);
  }
  return pages;
}

describe("paged lists", () => {
  // the crawler fetches the fixture site itself: the API needs no socket
  const s = useServer(LIGHT);
  let key: string;
  let site: FixtureServer;
  beforeAll(async () => {
    key = (await s.tenant()).adminKey;
    site = await serve((req, res) => send(req, res, { body: html("Only", "<p>The only page of this site.</p>") }));
  });
  afterAll(async () => {
    await site?.close();
  });

  it("GET /documents: status and data_source_id filters, limit + cursor through the Link header", async () => {
    const a = await createSource(s, key, "A");
    const b = await createSource(s, key, "B");
    for (let i = 0; i < 7; i++) expect((await upload(s, key, a, [{ name: `a${i}.md`, content: `# A ${i}\n\nDocument a number ${i}.` }])).status).toBe(202);
    expect((await upload(s, key, a, [{ name: "empty.md", content: "   \n" }])).status).toBe(202);
    expect((await upload(s, key, b, [{ name: "b.md", content: "# B\n\nThe other source." }])).status).toBe(202);
    await waitIndexed(s, key, a);
    await waitIndexed(s, key, b);

    const pages = await allPages(s, key, `/documents?data_source_id=${a}&limit=3`);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 2]);
    const docs = pages.flat();
    expect(new Set(docs.map((d) => d.id)).size).toBe(8);
    expect(docs.every((d) => d.data_source_id === a)).toBe(true);
    const order = docs.map((d) => `${d.created_at}|${d.id}`);
    expect(order).toEqual([...order].sort().reverse()); // newest first, across pages

    const failed = await s.call("GET", `/documents?status=failed`, { key });
    expect(failed.body.map((d: any) => d.title ?? d.source)).toHaveLength(1);
    expect(failed.body[0].status).toBe("failed");
    expect(failed.headers.get("link")).toBeNull();
    const indexedInB = await s.call("GET", `/documents?status=indexed&data_source_id=${b}`, { key });
    expect(indexedInB.body).toHaveLength(1);
    expect((await s.call("GET", `/documents?status=indexed`, { key })).body).toHaveLength(8);
    // without paging parameters: the contract's first 200, no Link header
    const plain = await s.call("GET", "/documents", { key });
    expect(plain.body).toHaveLength(9);
    expect(plain.headers.get("link")).toBeNull();

    expect((await s.call("GET", "/documents?status=done", { key })).status).toBe(422);
    expect((await s.call("GET", "/documents?limit=0", { key })).status).toBe(422);
    const bad = await s.call("GET", "/documents?cursor=nonsense", { key });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/cursor is not valid/);
  });

  it("GET /benchmarks/{id}/runs pages a suite's runs, newest first, with their results", async () => {
    const src = await createSource(s, key, "Bench");
    const col = await createCollection(s, key, [src], "Bench");
    const up = await upload(s, key, src, [{ name: "g.md", content: "# Gearbox\n\nThe gearbox lubrication interval." }]);
    await waitIndexed(s, key, src);
    const suite = await s.call("POST", "/benchmarks", { key, json: { name: "Paged", collection_id: col, cases: [{ query: "gearbox lubrication", relevant_document_ids: [up.body[0].id] }] } });
    expect(suite.status).toBe(201);
    const runIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await s.call("POST", `/benchmarks/${suite.body.id}/run`, { key });
      expect(r.status).toBe(200);
      runIds.push(r.body.id);
    }
    const pages = await allPages(s, key, `/benchmarks/${suite.body.id}/runs?limit=2`);
    expect(pages.map((p) => p.length)).toEqual([2, 1]);
    const runs = pages.flat();
    expect(new Set(runs.map((r) => r.id))).toEqual(new Set(runIds));
    expect(runs.every((r) => r.status === "completed" && Array.isArray(r.results))).toBe(true);
    expect((await s.call("GET", "/benchmarks/bs_missing/runs", { key })).status).toBe(404);
  });

  it("GET /crawl pages the same way", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await s.call("POST", "/crawl", { key, json: { url: `${site.base}/?n=${i}`, max_depth: 0 } });
      expect(r.status).toBe(202);
      ids.push(r.body.id);
      await waitCrawl(s, key, r.body.id);
    }
    const pages = await allPages(s, key, "/crawl?limit=2");
    expect(pages.map((p) => p.length)).toEqual([2, 1]);
    expect(pages.flat().map((c) => c.id)).toEqual([...ids].reverse());
  });
});
