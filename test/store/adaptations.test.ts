// Conformance of collections' adaptation jobs on both stores (POST /collections/{id}/adapt in the
// background): transitions only from the given states, progress only while running, newest first
// with ties in insertion order, the answer's JSON round trip, tenant scoping, and the rows going
// with their collection.
import { expect, it } from "vitest";
import { describeEachStore } from "./stores.js";
import type { Store } from "../../src/store/types.js";
import type { CollectionAdaptationRow } from "../../src/store/adaptation-types.js";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

async function collections(store: Store, tenantId: string, ...ids: string[]) {
  await store.tenants.createWithKey(
    { id: tenantId, name: tenantId, slug: tenantId, plan: "free", verified: true, created_at: at(0) },
    { id: `k-${tenantId}`, tenant_id: tenantId, name: "k", prefix: "p", hash: `h-${tenantId}`, scopes: ["admin"], created_at: at(0), expires_at: null, revoked_at: null, last_used_at: null },
  );
  for (const id of ids) await store.content.createCollection({ id, tenant_id: tenantId, name: id, description: "", settings: {}, created_at: at(0) }, []);
}

const adaptation = (id: string, collectionId: string, createdAt: string, tenantId = "t1"): CollectionAdaptationRow => ({
  id,
  tenant_id: tenantId,
  collection_id: collectionId,
  kind: "model",
  trigger: "request",
  apply: true,
  status: "queued",
  phase: "queued",
  folds_done: 0,
  result: null,
  error: null,
  created_at: createdAt,
  started_at: null,
  finished_at: null,
});

describeEachStore("store: collection adaptations", (open) => {
  it("keeps adaptation jobs: transitions only from the given states, progress only while running, newest first, per tenant", async () => {
    const { store } = await open();
    await collections(store, "t1", "c1", "c2");
    await collections(store, "t2", "c3");
    const a = store.adaptations;
    await a.createAdaptation(adaptation("a1", "c1", at(10)));
    await a.createAdaptation(adaptation("a3", "c1", at(20)));
    await a.createAdaptation(adaptation("a2", "c1", at(20))); // same time as a3, inserted later
    await a.createAdaptation(adaptation("a4", "c2", at(15)));
    expect(await a.getAdaptation("t1", "a1")).toEqual(adaptation("a1", "c1", at(10)));
    expect(await a.getAdaptation("t2", "a1")).toBeNull();
    expect((await a.listAdaptations("t1", "c1", 10)).map((x) => x.id)).toEqual(["a2", "a3", "a1"]);
    expect((await a.listAdaptations("t1", "c1", 2)).map((x) => x.id)).toEqual(["a2", "a3"]);
    expect(await a.listAdaptations("t2", "c1", 10)).toEqual([]);
    expect((await a.unfinishedAdaptations()).map((x) => x.id).sort()).toEqual(["a1", "a2", "a3", "a4"]);
    await a.createAdaptation({ ...adaptation("a5", "c2", at(16)), trigger: "automatic", status: "running" });
    expect((await a.unfinishedAdaptations()).find((x) => x.id === "a5")).toEqual({ id: "a5", tenant_id: "t1", trigger: "automatic" });
    expect(await a.transitionAdaptation("t1", "a5", ["running"], "failed", { error: "interrupted" })).toMatchObject({ trigger: "automatic", status: "failed" });

    expect(await a.setAdaptationProgress("t1", "a1", { phase: "training", folds_done: 0 })).toBe(false);
    expect(await a.transitionAdaptation("t2", "a1", ["queued"], "running")).toBeNull(); // another tenant's
    const running = await a.transitionAdaptation("t1", "a1", ["queued", "running"], "running", { started_at: at(11), phase: "training" });
    expect(running).toMatchObject({ status: "running", started_at: at(11), phase: "training", folds_done: 0, apply: true });
    expect(await a.setAdaptationProgress("t1", "a1", { phase: "cross-validation", folds_done: 3 })).toBe(true);
    expect(await a.setAdaptationProgress("t2", "a1", { phase: "applying", folds_done: 5 })).toBe(false);
    expect(await a.getAdaptation("t1", "a1")).toMatchObject({ phase: "cross-validation", folds_done: 3 });
    expect(await a.transitionAdaptation("t1", "a1", ["queued"], "failed")).toBeNull(); // not queued any more

    const result = { kind: "model", apply: { applied: true, detail: "Applied" }, losses: [1.5] };
    const done = await a.transitionAdaptation("t1", "a1", ["running"], "completed", { phase: "done", folds_done: 5, result, finished_at: at(12) });
    expect(done).toMatchObject({ status: "completed", phase: "done", folds_done: 5, result, error: null, finished_at: at(12) });
    expect((await a.getAdaptation("t1", "a1"))!.result).toEqual(result);
    const failed = await a.transitionAdaptation("t1", "a4", ["queued"], "failed", { error: "too few pairs", finished_at: at(16) });
    expect(failed).toMatchObject({ status: "failed", error: "too few pairs", result: null });
    expect((await a.unfinishedAdaptations()).map((x) => x.id).sort()).toEqual(["a2", "a3"]);

    // deleting the collection deletes its adaptations
    expect(await store.content.deleteCollection("t1", "c1")).toBeTruthy();
    expect(await a.getAdaptation("t1", "a2")).toBeNull();
    expect(await a.listAdaptations("t1", "c1", 10)).toEqual([]);
    expect((await a.unfinishedAdaptations()).map((x) => x.id)).toEqual([]);
    expect(await a.getAdaptation("t1", "a4")).not.toBeNull();
  });
});
