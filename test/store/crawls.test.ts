// Conformance of crawl jobs, crawled pages and failures on both stores: one active crawl per
// source (also when two connections start one together), state transitions, resumable pages,
// indexing progress and the page listing's order, filter and paging.
import { expect, it } from "vitest";
import { describeEachStore } from "./stores.js";
import type { Store } from "../../src/store/types.js";
import type { CrawlJobRow, CrawlPageRow } from "../../src/store/crawl-types.js";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

async function setup(store: Store) {
  for (const id of ["t1", "t2"]) {
    await store.tenants.createWithKey(
      { id, name: id, slug: id, plan: "free", verified: true, created_at: at(0) },
      { id: `k-${id}`, tenant_id: id, name: "k", prefix: "p", hash: `h-${id}`, scopes: ["admin"], created_at: at(0), expires_at: null, revoked_at: null, last_used_at: null },
    );
  }
  for (const [id, t] of [["src1", "t1"], ["src2", "t1"], ["src3", "t2"]] as const) {
    await store.content.createSource({ id, tenant_id: t, name: id, source_type: "website", configuration: {}, error: null, last_synced_at: null, created_at: at(0) }, [], null);
  }
}

const crawl = (id: string, sourceId: string, s: number, tenantId = "t1"): CrawlJobRow => ({
  id,
  tenant_id: tenantId,
  data_source_id: sourceId,
  url: "https://example.org/",
  status: "queued",
  pages_crawled: 0,
  pages_failed: 0,
  page_limit: 50,
  max_depth: 2,
  render_js: true,
  include_paths: ["/docs"],
  error: null,
  created_at: at(s),
  started_at: null,
  finished_at: null,
  git_commit: null,
});

const page = (url: string, jobId: string, documentId: string | null, s = 5): CrawlPageRow => ({
  tenant_id: "t1",
  data_source_id: "src1",
  url,
  job_id: jobId,
  format: "html",
  links: [`${url}/next`],
  etag: `"e-${url}"`,
  last_modified: null,
  content_hash: `h-${url}`,
  document_id: documentId,
  crawled_at: at(s),
});

describeEachStore("store: crawls", (open) => {
  it("keeps one active crawl per source, moves through states, requeues and lists by keyset", async () => {
    const { store } = await open();
    await setup(store);
    expect(await store.crawls.create(crawl("c1", "src1", 1))).toBe(true);
    expect(await store.crawls.create(crawl("c2", "src1", 2))).toBe(false);
    expect(await store.crawls.create(crawl("c3", "src2", 3))).toBe(true);
    expect(await store.crawls.get("t1", "c1")).toEqual(crawl("c1", "src1", 1));
    expect(await store.crawls.get("t2", "c1")).toBeNull();
    expect((await store.crawls.activeForSource("src1"))?.id).toBe("c1");

    expect(await store.crawls.transition("c1", ["running"], "completed")).toBeNull(); // not running yet
    const running = await store.crawls.transition("c1", ["queued"], "running", { started_at: at(4) });
    expect(running).toMatchObject({ status: "running", started_at: at(4), finished_at: null });
    await store.crawls.setProgress("c1", 7, 1);
    await store.crawls.setProgress("c3", 9, 9); // queued: no-op
    expect(await store.crawls.byId("c1")).toMatchObject({ pages_crawled: 7, pages_failed: 1 });
    expect(await store.crawls.byId("c3")).toMatchObject({ pages_crawled: 0 });
    const failed = await store.crawls.transition("c1", ["queued", "running"], "failed", { error: "boom", finished_at: at(6) });
    expect(failed).toMatchObject({ status: "failed", error: "boom", finished_at: at(6), pages_crawled: 7 });
    expect(await store.crawls.activeForSource("src1")).toBeNull();

    expect(await store.crawls.create(crawl("c4", "src1", 7))).toBe(true);
    expect(await store.crawls.requeue("t1", "c1")).toBeNull(); // c4 is active on the source
    await store.crawls.transition("c4", ["queued"], "cancelled", { finished_at: at(8) });
    expect(await store.crawls.requeue("t2", "c1")).toBeNull(); // another tenant
    expect(await store.crawls.requeue("t1", "c1")).toMatchObject({ status: "queued", error: null, finished_at: null, started_at: at(4) });
    expect(await store.crawls.requeue("t1", "c1")).toBeNull(); // queued, not failed
    expect((await store.crawls.unfinished()).map((r) => r.id).sort()).toEqual(["c1", "c3"]);

    await store.crawls.create(crawl("c5", "src3", 7, "t2"));
    await store.crawls.create(crawl("c0", "src2", 7)); // c3 is queued on src2: refused
    expect((await store.crawls.list("t1", 2)).map((c) => c.id)).toEqual(["c4", "c3"]);
    expect((await store.crawls.list("t1", 5, { created_at: at(3), id: "c3" })).map((c) => c.id)).toEqual(["c1"]);
  });

  it("starts one crawl when two connections start crawls of one source together", async () => {
    const h = await open();
    const other = await h.reopen();
    await setup(h.store);
    for (let round = 0; round < 4; round++) {
      const made = await Promise.all([0, 1, 2, 3].map((i) => (i % 2 ? other : h.store).crawls.create(crawl(`r${round}-${i}`, "src1", round))));
      expect(made.filter(Boolean)).toHaveLength(1);
      const active = await h.store.crawls.activeForSource("src1");
      await h.store.crawls.transition(active!.id, ["queued"], "cancelled");
    }
  });

  it("remembers pages and failures, reports indexing progress and lists page statuses in order", async () => {
    const { store } = await open();
    await setup(store);
    await store.crawls.create(crawl("c1", "src1", 1));
    const docs = await store.content.upsertDocuments(
      "t1",
      "src1",
      ["https://x.org/b", "https://x.org/a", "https://x.org/c"].map((source, i) => ({
        id: `d${i}`,
        source,
        title: source,
        source_type: "website" as const,
        kind: "html",
        content_type: "text/html",
        size_bytes: 10,
        content_hash: `h${i}`,
        metadata: {},
      })),
      null,
    );
    const [b, a, c] = docs.map((d) => d.id);
    await store.crawls.recordPage(page("https://x.org/b", "c1", b!));
    await store.crawls.recordPage(page("https://x.org/a", "c1", a!));
    await store.crawls.recordPage(page("https://x.org/c", "c1", c!));
    await store.crawls.recordPage(page("https://x.org/c", "c1", c!, 9)); // replaces
    await store.crawls.recordFailure({ job_id: "c1", tenant_id: "t1", data_source_id: "src1", url: "https://x.org/z", reason: "404", failed_at: at(6) });
    await store.crawls.recordFailure({ job_id: "c1", tenant_id: "t1", data_source_id: "src1", url: "https://x.org/y", reason: "timeout", failed_at: at(6) });
    await store.crawls.recordFailure({ job_id: "c1", tenant_id: "t1", data_source_id: "src1", url: "https://x.org/y", reason: "500", failed_at: at(7) });
    await store.content.setDocumentStatus("t1", a!, "indexed");
    await store.content.setDocumentStatus("t1", c!, "failed", "empty page");

    expect(await store.crawls.page("src1", "https://x.org/c")).toEqual(page("https://x.org/c", "c1", c!, 9));
    expect((await store.crawls.pagesOfJob("c1")).map((p) => p.url).sort()).toEqual(["https://x.org/a", "https://x.org/b", "https://x.org/c"]);
    expect(await store.crawls.indexProgress("c1")).toEqual({ pending: 1, indexed: 1, failed: 1 });

    const all = await store.crawls.pageStatuses("t1", "c1", { status: null, limit: 10, after: null });
    expect(all.map((p) => [p.url, p.status, p.reason])).toEqual([
      ["https://x.org/y", "failed", "500"],
      ["https://x.org/z", "failed", "404"],
      ["https://x.org/a", "indexed", null],
      ["https://x.org/b", "pending", null],
      ["https://x.org/c", "failed", "empty page"],
    ]);
    expect(all[3]).toEqual({ url: "https://x.org/b", status: "pending", document_id: b, reason: null, at: at(5) });
    const failed = await store.crawls.pageStatuses("t1", "c1", { status: "failed", limit: 2, after: null });
    expect(failed.map((p) => p.url)).toEqual(["https://x.org/y", "https://x.org/z"]);
    // `after` is the key of the last entry: "0<url>" for failures, "1<url>" for pages
    const rest = await store.crawls.pageStatuses("t1", "c1", { status: "failed", limit: 2, after: "0https://x.org/z" });
    expect(rest.map((p) => p.url)).toEqual(["https://x.org/c"]);
    expect(await store.crawls.pageStatuses("t2", "c1", { status: null, limit: 10, after: null })).toEqual([]);

    // a deleted document leaves the page's validators but not the page
    await store.content.deleteDocument("t1", b!);
    expect(await store.crawls.page("src1", "https://x.org/b")).toBeNull();
    expect(await store.crawls.indexProgress("c1")).toEqual({ pending: 0, indexed: 1, failed: 1 });
    await store.crawls.clearFailures("c1");
    expect((await store.crawls.pageStatuses("t1", "c1", { status: "failed", limit: 10, after: null })).map((p) => p.url)).toEqual(["https://x.org/c"]);
  });
});
