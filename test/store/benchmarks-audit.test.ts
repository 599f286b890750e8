// Conformance of benchmark suites/cases/runs and of the audit trail on both stores: ordering
// (ties of equal timestamps in insertion order), keyset paging, JSON round trips, tenant scoping.
import { expect, it } from "vitest";
import { describeEachStore } from "./stores.js";
import type { Store } from "../../src/store/types.js";
import type { BenchmarkRunRow, BenchmarkTuningRow } from "../../src/store/benchmark-types.js";
import type { AuditRow } from "../../src/store/audit-types.js";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

async function tenants(store: Store, ...ids: string[]) {
  for (const id of ids) {
    await store.tenants.createWithKey(
      { id, name: id, slug: id, plan: "free", verified: true, created_at: at(0) },
      { id: `k-${id}`, tenant_id: id, name: "k", prefix: "p", hash: `h-${id}`, scopes: ["admin"], created_at: at(0), expires_at: null, revoked_at: null, last_used_at: null },
    );
  }
}

const suite = (id: string, tenantId: string, createdAt = at(1)) => ({
  id,
  tenant_id: tenantId,
  collection_id: "col",
  name: `Suite ${id}`,
  description: "d",
  top_k: 10,
  origin: { dataset: "scifact", split: "test" },
  created_at: createdAt,
});
const run = (id: string, suiteId: string, createdAt: string, tenantId = "t1"): BenchmarkRunRow => ({
  id,
  tenant_id: tenantId,
  suite_id: suiteId,
  status: "running",
  query_count: 2,
  top_k: 10,
  metrics: {},
  results: [],
  error: null,
  created_at: createdAt,
  completed_at: null,
});
const tuning = (id: string, suiteId: string, createdAt: string, tenantId = "t1"): BenchmarkTuningRow => ({
  id,
  tenant_id: tenantId,
  suite_id: suiteId,
  collection_id: "col",
  status: "queued",
  apply: true,
  phase: "queued",
  cases_done: 0,
  cases_total: 7,
  result: null,
  error: null,
  created_at: createdAt,
  started_at: null,
  finished_at: null,
});

describeEachStore("store: benchmarks", (open) => {
  it("stores suites with their cases in order and keeps them to their tenant", async () => {
    const { store } = await open();
    await tenants(store, "t1", "t2");
    const cases = ["q2", "q1", "q3"].map((q, i) => ({ id: `c-${q}`, suite_id: "s1", query: q, relevant_document_ids: [`d${i}`, "x"], created_at: at(1) }));
    await store.benchmarks.createSuite(suite("s1", "t1"), cases);
    await store.benchmarks.createSuite(suite("s0", "t1"), []); // same timestamp: insertion order
    await store.benchmarks.createSuite(suite("s2", "t2"), []);
    expect((await store.benchmarks.listSuites("t1")).map((s) => s.id)).toEqual(["s1", "s0"]);
    expect(await store.benchmarks.getSuite("t1", "s1")).toEqual(suite("s1", "t1"));
    expect(await store.benchmarks.getSuite("t2", "s1")).toBeNull();
    const byId = await store.benchmarks.listCases("t1", ["s1", "s0", "s2"]);
    expect(byId.get("s1")).toEqual(cases);
    expect(byId.has("s0")).toBe(false);
    expect(byId.has("s2")).toBe(false); // another tenant's suite id gives nothing
    expect(await store.benchmarks.listCases("t1", [])).toEqual(new Map());
    expect(await store.benchmarks.deleteSuite("t2", "s1")).toBe(false);
    expect(await store.benchmarks.deleteSuite("t1", "s1")).toBe(true);
    expect(await store.benchmarks.listCases("t1", ["s1"])).toEqual(new Map());
  });

  it("lists runs newest first, the latest per suite, with or without results; pages and fails stale ones", async () => {
    const { store } = await open();
    await tenants(store, "t1", "t2");
    await store.benchmarks.createSuite(suite("s1", "t1"), []);
    await store.benchmarks.createSuite(suite("s2", "t1"), []);
    await store.benchmarks.createRun(run("r1", "s1", at(10)));
    await store.benchmarks.createRun(run("r3", "s1", at(20)));
    await store.benchmarks.createRun(run("r2", "s1", at(20))); // same time as r3, inserted later
    await store.benchmarks.createRun(run("r4", "s2", at(15)));
    const results = [{ query: "q", ndcg: 0.5 }];
    await store.benchmarks.finishRun("t1", "r1", { status: "completed", metrics: { ndcg_at_10: 0.61 }, results, error: null, completed_at: at(11) });
    await store.benchmarks.finishRun("t2", "r4", { status: "failed", metrics: {}, results: [], error: "x", completed_at: at(16) }); // wrong tenant: no-op

    const all = await store.benchmarks.listRuns("t1", ["s1", "s2"], { withResults: true });
    expect(all.get("s1")!.map((r) => r.id)).toEqual(["r2", "r3", "r1"]);
    expect(all.get("s1")![2]).toMatchObject({ status: "completed", metrics: { ndcg_at_10: 0.61 }, results, completed_at: at(11) });
    expect(all.get("s2")!.map((r) => [r.id, r.status])).toEqual([["r4", "running"]]);
    const summaries = await store.benchmarks.listRuns("t1", ["s1"], { withResults: false });
    expect(summaries.get("s1")![2]!.results).toEqual([]);
    const latest = await store.benchmarks.listRuns("t1", ["s1", "s2"], { withResults: false, latestOnly: true });
    expect([...latest.entries()].map(([k, v]) => [k, v.map((r) => r.id)]).sort()).toEqual([
      ["s1", ["r2"]],
      ["s2", ["r4"]],
    ]);
    expect(await store.benchmarks.listRuns("t2", ["s1"], { withResults: false })).toEqual(new Map());

    // keyset pages by (created_at, id): r3 before r2 at the same time (id order)
    const p1 = await store.benchmarks.pageRuns("t1", "s1", 2);
    expect(p1.map((r) => r.id)).toEqual(["r3", "r2"]);
    const p2 = await store.benchmarks.pageRuns("t1", "s1", 2, { created_at: p1[1]!.created_at, id: p1[1]!.id });
    expect(p2.map((r) => r.id)).toEqual(["r1"]);
    expect(p2[0]!.results).toEqual(results);

    expect(await store.benchmarks.failStaleRuns("t1", at(20), "worker died", at(30))).toBe(1); // r4 (r2, r3 not before)
    expect((await store.benchmarks.listRuns("t1", ["s2"], { withResults: false })).get("s2")![0]).toMatchObject({ status: "failed", error: "worker died", completed_at: at(30) });
    expect(await store.benchmarks.deleteSuite("t1", "s1")).toBe(true);
    expect(await store.benchmarks.listRuns("t1", ["s1"], { withResults: false })).toEqual(new Map());
  });

  it("keeps tuning jobs: transitions only from the given states, progress only while running, newest first, per tenant", async () => {
    const { store } = await open();
    await tenants(store, "t1", "t2");
    await store.benchmarks.createSuite(suite("s1", "t1"), []);
    await store.benchmarks.createSuite(suite("s2", "t1"), []);
    await store.benchmarks.createTuning(tuning("u1", "s1", at(10)));
    await store.benchmarks.createTuning(tuning("u3", "s1", at(20)));
    await store.benchmarks.createTuning(tuning("u2", "s1", at(20))); // same time as u3, inserted later
    await store.benchmarks.createTuning(tuning("u4", "s2", at(15)));
    expect(await store.benchmarks.getTuning("t1", "u1")).toEqual(tuning("u1", "s1", at(10)));
    expect(await store.benchmarks.getTuning("t2", "u1")).toBeNull();
    expect((await store.benchmarks.listTunings("t1", "s1", 10)).map((t) => t.id)).toEqual(["u2", "u3", "u1"]);
    expect((await store.benchmarks.listTunings("t1", "s1", 2)).map((t) => t.id)).toEqual(["u2", "u3"]);
    expect(await store.benchmarks.listTunings("t2", "s1", 10)).toEqual([]);
    expect((await store.benchmarks.unfinishedTunings()).map((t) => t.id).sort()).toEqual(["u1", "u2", "u3", "u4"]);

    // progress is written only while running
    expect(await store.benchmarks.setTuningProgress("t1", "u1", { phase: "candidates", cases_done: 3 })).toBe(false);
    expect(await store.benchmarks.transitionTuning("t2", "u1", ["queued"], "running")).toBeNull(); // another tenant's
    const running = await store.benchmarks.transitionTuning("t1", "u1", ["queued", "running"], "running", { started_at: at(11), phase: "candidates" });
    expect(running).toMatchObject({ status: "running", started_at: at(11), phase: "candidates", cases_done: 0 });
    expect(await store.benchmarks.setTuningProgress("t1", "u1", { phase: "candidates", cases_done: 3 })).toBe(true);
    expect(await store.benchmarks.setTuningProgress("t2", "u1", { phase: "search", cases_done: 7 })).toBe(false);
    expect(await store.benchmarks.getTuning("t1", "u1")).toMatchObject({ phase: "candidates", cases_done: 3 });
    expect(await store.benchmarks.transitionTuning("t1", "u1", ["queued"], "cancelled")).toBeNull(); // not queued any more

    const result = { best: { settings: { fusion: "rrf" } }, split: { tuning_case_ids: ["a", "b"] }, changed: true };
    const done = await store.benchmarks.transitionTuning("t1", "u1", ["running"], "completed", { phase: "done", result, error: null, finished_at: at(12) });
    expect(done).toMatchObject({ status: "completed", apply: true, phase: "done", cases_done: 3, cases_total: 7, result, error: null, finished_at: at(12) });
    expect((await store.benchmarks.getTuning("t1", "u1"))!.result).toEqual(result);
    const failed = await store.benchmarks.transitionTuning("t1", "u4", ["queued"], "failed", { error: "gone", finished_at: at(16) });
    expect(failed).toMatchObject({ status: "failed", error: "gone", result: null });
    expect((await store.benchmarks.unfinishedTunings()).map((t) => t.id).sort()).toEqual(["u2", "u3"]);

    // deleting the suite deletes its tunings
    expect(await store.benchmarks.deleteSuite("t1", "s1")).toBe(true);
    expect(await store.benchmarks.getTuning("t1", "u2")).toBeNull();
    expect(await store.benchmarks.listTunings("t1", "s1", 10)).toEqual([]);
    expect((await store.benchmarks.unfinishedTunings()).map((t) => t.id)).toEqual([]);
    expect(await store.benchmarks.getTuning("t1", "u4")).not.toBeNull();
  });
});

describeEachStore("store: audit", (open) => {
  const row = (id: string, tenantId: string, s: number, detail: Record<string, unknown> = {}): AuditRow => ({
    id,
    tenant_id: tenantId,
    at: at(s),
    actor_type: "api_key",
    actor_id: "k1",
    action: "key.create",
    target_type: "api_key",
    target_id: "k2",
    detail,
    address: "127.0.0.1",
  });

  it("lists newest first with keyset paging, per tenant, and prunes by age", async () => {
    const { store } = await open();
    // no tenant rows on purpose: the trail does not depend on the tenant existing
    await store.audit.record(row("a1", "t1", 1, { scopes: ["search"], n: 2, nested: { ok: true } }));
    await store.audit.record(row("a3", "t1", 2));
    await store.audit.record(row("a2", "t1", 2));
    await store.audit.record(row("a4", "t2", 3));
    const p1 = await store.audit.list("t1", { limit: 2 });
    expect(p1.map((r) => r.id)).toEqual(["a3", "a2"]);
    const p2 = await store.audit.list("t1", { limit: 2, before: { at: p1[1]!.at, id: p1[1]!.id } });
    expect(p2).toEqual([row("a1", "t1", 1, { scopes: ["search"], n: 2, nested: { ok: true } })]);
    expect(await store.audit.prune(at(2))).toBe(1);
    expect((await store.audit.list("t1", { limit: 10 })).map((r) => r.id)).toEqual(["a3", "a2"]);
    expect((await store.audit.list("t2", { limit: 10 })).map((r) => r.id)).toEqual(["a4"]);
  });
});
