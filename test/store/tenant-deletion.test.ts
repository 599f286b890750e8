// Conformance of tenant deletion on both stores: one call removes every row the tenant owns in
// every table (index entries and vectors included) and leaves other tenants whole; the audit
// trail outlives the workspace until retention prunes it.
import { expect, it } from "vitest";
import { describeEachStore, type StoreHandle } from "./stores.js";
import type { Store } from "../../src/store/types.js";
import { analyzeQuery } from "../../src/search/lexical/analyze-query.js";
import { DEFAULT_ANALYZER } from "../../src/search/lexical/analyze.js";

const T0 = "2026-01-01T00:00:00.000Z";
const DIM = 4;
const INDEX = "test_index";

/** A tenant with a row in every store: key, owner, session, token, quota, content, vectors, benchmark (run, tuning), crawl, job, audit. */
async function populate(store: Store, id: string, axis: number): Promise<{ chunkIds: string[] }> {
  const u = { id: `u-${id}`, tenant_id: id, email: `${id}@x.org`, email_key: `${id}@x.org`, password_hash: "h", role: "owner" as const, email_verified_at: null, created_at: T0, password_changed_at: null };
  await store.accounts.createSignup({
    tenant: { id, name: id, slug: id, plan: "free", verified: true, created_at: T0 },
    user: u,
    session: { id: `s-${id}`, token_hash: `sh-${id}`, user_id: u.id, tenant_id: id, created_at: T0, expires_at: "2099-01-01T00:00:00.000Z" },
    token: { id: `v-${id}`, token_hash: `vh-${id}`, user_id: u.id, purpose: "verify_email", created_at: T0, expires_at: "2099-01-01T00:00:00.000Z", used_at: null },
  });
  await store.apiKeys.create({ id: `k-${id}`, tenant_id: id, name: "k", prefix: "p", hash: `kh-${id}`, scopes: ["admin"], created_at: T0, expires_at: null, revoked_at: null, last_used_at: null });
  await store.quotas.consumeQueries(id, "2026-01", 2, null);
  const c = store.content;
  await c.createSource({ id: `src-${id}`, tenant_id: id, name: "S", source_type: "website", configuration: {}, error: null, last_synced_at: null, created_at: T0 }, [], null);
  await c.createCollection({ id: `col-${id}`, tenant_id: id, name: "C", description: "", settings: {}, created_at: T0 }, [`src-${id}`]);
  const [d] = await c.upsertDocuments(id, `src-${id}`, [
    { id: `d-${id}`, source: "https://x.org/a", title: "A", source_type: "website", kind: "html", content_type: "text/html", size_bytes: 10, content_hash: "h", metadata: {} },
  ], null);
  const values = [Float32Array.from({ length: DIM }, (_, i) => (i === axis ? 1 : 0.1))];
  await c.replaceDocumentIndex(id, d!.id, { title: "A", metadata: {} }, [{ position: 0, text: "shared words here", heading_path: [], token_count: 3, metadata: {} }], { indexName: INDEX, values });
  const hits = await c.vectorSearch(INDEX, id, [`src-${id}`], values[0]!, 5);
  await store.benchmarks.createSuite({ id: `b-${id}`, tenant_id: id, collection_id: `col-${id}`, name: "B", description: "", top_k: 10, origin: {}, created_at: T0 }, [
    { id: `bc-${id}`, suite_id: `b-${id}`, query: "q", relevant_document_ids: [d!.id], created_at: T0 },
  ]);
  await store.benchmarks.createRun({ id: `br-${id}`, tenant_id: id, suite_id: `b-${id}`, status: "running", query_count: 1, top_k: 10, metrics: {}, results: [], error: null, created_at: T0, completed_at: null });
  await store.benchmarks.createTuning({ id: `bt-${id}`, tenant_id: id, suite_id: `b-${id}`, collection_id: `col-${id}`, status: "queued", apply: false, phase: "queued", cases_done: 0, cases_total: 1, result: null, error: null, created_at: T0, started_at: null, finished_at: null });
  await store.adaptations.createAdaptation({ id: `ad-${id}`, tenant_id: id, collection_id: `col-${id}`, kind: "model", trigger: "automatic", apply: true, status: "queued", phase: "queued", folds_done: 0, result: null, error: null, created_at: T0, started_at: null, finished_at: null });
  const crawl = { id: `cr-${id}`, tenant_id: id, data_source_id: `src-${id}`, url: "https://x.org/", status: "queued" as const, pages_crawled: 0, pages_failed: 0, page_limit: 5, max_depth: 1, render_js: false, include_paths: [], error: null, created_at: T0, started_at: null, finished_at: null };
  await store.crawls.create(crawl);
  await store.crawls.recordPage({ tenant_id: id, data_source_id: `src-${id}`, url: "https://x.org/a", job_id: crawl.id, format: "html", links: [], etag: null, last_modified: null, content_hash: "h", document_id: d!.id, crawled_at: T0 });
  await store.crawls.recordFailure({ job_id: crawl.id, tenant_id: id, data_source_id: `src-${id}`, url: "https://x.org/b", reason: "404", failed_at: T0 });
  await c.enqueueJob({ tenant_id: id, kind: "crawl", subject: crawl.id });
  await store.audit.record({ id: `a-${id}`, tenant_id: id, at: T0, actor_type: "platform", actor_id: null, action: "tenant.create", target_type: "tenant", target_id: id, detail: {}, address: null });
  return { chunkIds: hits.map((h) => h.chunkId) };
}

// SQLite's change journals of its in-process indexes (replayed at start, pruned by sequence):
// they record the removal itself, so rows of a deleted tenant stay there until pruned. The
// document log (the in-memory filter columns' journal) holds ids only, no content.
const JOURNALS = ["lexical_log", "vector_changes", "document_log"];

/** Rows per table carrying this tenant id, over every table with a tenant_id column. */
async function rowsOf(h: StoreHandle, kind: string, tenantId: string): Promise<Record<string, number>> {
  const tables =
    kind === "sqlite"
      ? (await h.rows<{ name: string }>("SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND p.name = 'tenant_id'")).map((r) => r.name)
      : (await h.rows<{ name: string }>("SELECT table_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'tenant_id'")).map((r) => r.name);
  const out: Record<string, number> = {};
  for (const t of tables.sort()) out[t] = Number((await h.rows<{ n: number }>(`SELECT count(*) AS n FROM "${t}" WHERE tenant_id = ?`, [tenantId]))[0]!.n);
  return out;
}

describeEachStore("store: tenant deletion", (open, kind) => {
  it("removes every row of the tenant, vectors and lexical entries included, and nothing of another", async () => {
    const h = await open();
    await h.store.content.ensureVectorIndex(INDEX, DIM);
    const one = await populate(h.store, "t1", 0);
    await populate(h.store, "t2", 1);
    expect(one.chunkIds).toHaveLength(1);
    const before = await rowsOf(h, kind, "t1");
    const tablesWithRows = Object.keys(before).filter((t) => before[t]! > 0);
    // the populated tenant really reaches the tables that matter (else the check below proves nothing)
    expect(tablesWithRows).toEqual(expect.arrayContaining(["api_keys", "users", "sessions", "documents", "chunks", "crawl_jobs", "crawl_pages", "benchmark_runs", "benchmark_tunings", "collection_adaptations", "jobs", "audit_log"]));

    expect(await h.store.accounts.deleteTenant("t1")).toBe(true);
    expect(await h.store.accounts.deleteTenant("t1")).toBe(false);

    const after = await rowsOf(h, kind, "t1");
    expect(Object.entries(after).filter(([t, n]) => n > 0 && t !== "audit_log" && !JOURNALS.includes(t))).toEqual([]);
    expect(after.audit_log).toBe(1);
    const other = await rowsOf(h, kind, "t2");
    for (const t of tablesWithRows) expect(other[t], t).toBe(before[t]);

    // index entries: the deleted tenant's chunk is gone from vectors and text, the other's answers
    expect(await h.store.content.hydrateChunks("t1", one.chunkIds)).toEqual(new Map());
    const v2 = await h.store.content.vectorSearch(INDEX, "t2", ["src-t2"], Float32Array.from([0.1, 1, 0.1, 0.1]), 5);
    expect(v2).toHaveLength(1);
    expect(await h.store.content.vectorSearch(INDEX, "t1", ["src-t1"], Float32Array.from([1, 0.1, 0.1, 0.1]), 5)).toEqual([]);
    const lex = await h.store.content.lexicalSearch("t2", ["src-t2"], analyzeQuery({ terms: ["shared"], phrases: [] }, DEFAULT_ANALYZER), 5, { title: 1, headings: 1, body: 1 });
    expect(lex.map((s) => s.chunkId)).toEqual(v2.map((s) => s.chunkId));
    expect(await h.store.content.countUnembedded(INDEX)).toBe(0);
    expect(await h.store.accounts.findSession("sh-t1", T0)).toBeNull();
    expect(await h.store.apiKeys.findByHash("kh-t1")).toBeNull();
    expect(await h.store.crawls.unfinished()).toEqual([{ id: "cr-t2", tenant_id: "t2" }]);
  });
});
