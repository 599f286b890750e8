// Plans and quotas: exact, race-free query counting, all-or-nothing batches, the 429 wording,
// the operator's plan change, calendar-month periods and the source limit through HTTP.
import { describe, expect, it } from "vitest";
import { PLATFORM_KEY, createCollection, createSource, useServer } from "../kit/index.js";
import { db } from "./helpers/accounts.js";
import { assertWithinLimit, createQuotaService, quotaExceededError } from "../../src/services/tenants/quotas.js";
import { currentPeriod, periodResetsAt } from "../../src/services/tenants/plans.js";
import { ServiceError } from "../../src/services/errors.js";

const s = useServer();

const setQueries = (tenantId: string, n: number, period = currentPeriod()) =>
  db(s).run("INSERT INTO usage_counters (tenant_id, period, queries) VALUES (?, ?, ?) ON CONFLICT (tenant_id, period) DO UPDATE SET queries = excluded.queries", tenantId, period, n);
const tenantRow = async (id: string) => (await s.rt.store.tenants.get(id))!;
const usage = async (key: string) => (await s.call("GET", "/me", { key })).body.usage;
const resets = () => periodResetsAt().slice(0, 10);

async function failure(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    return e as ServiceError;
  }
  throw new Error("expected a service error");
}

describe("monthly query quota", () => {
  it("counts exactly under concurrency: 40 parallel queries with room for 12 let 12 through", async () => {
    const t = await s.tenant();
    await setQueries(t.id, 4988);
    const tenant = await tenantRow(t.id);
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => s.rt.quotas.consumeQueries(tenant, 1)));
    const ok = results.filter((r): r is PromiseFulfilledResult<{ used: number; limit: number | null }> => r.status === "fulfilled");
    expect(ok).toHaveLength(12);
    // every accepted query got its own count: no two saw the same number
    expect(new Set(ok.map((r) => r.value.used)).size).toBe(12);
    expect(Math.max(...ok.map((r) => r.value.used))).toBe(5000);
    expect(await usage(t.adminKey)).toMatchObject({ queries_used: 5000, queries_limit: 5000 });
  });

  it("is all or nothing for a batch and says how much room is left", async () => {
    const t = await s.tenant();
    await setQueries(t.id, 4995);
    const tenant = await tenantRow(t.id);
    const e = await failure(s.rt.quotas.consumeQueries(tenant, 10));
    expect(e.kind).toBe("quota_exceeded");
    expect(e.message).toBe(`Monthly query limit reached on the free plan: 4995 of 5000 used; this request needs 10, 5 left; resets ${resets()}.`);
    expect((await usage(t.adminKey)).queries_used).toBe(4995);
    expect(await s.rt.quotas.consumeQueries(tenant, 5)).toEqual({ used: 5000, limit: 5000 });
    const full = await failure(s.rt.quotas.consumeQueries(tenant, 1));
    expect(full.message).toBe(`Monthly query limit reached on the free plan: 5000 of 5000 used; resets ${resets()}.`);
  });

  it("counts the first queries of a period, and a new calendar month starts from zero", async () => {
    const t = await s.tenant();
    const tenant = await tenantRow(t.id);
    expect(await s.rt.quotas.consumeQueries(tenant, 3)).toEqual({ used: 3, limit: 5000 });
    // a batch larger than the whole limit is refused even when nothing is counted yet
    const nextMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 15));
    const later = createQuotaService({ store: s.rt.store, now: () => nextMonth });
    const e = await failure(later.consumeQueries(tenant, 5001));
    expect(e.message).toBe(`Monthly query limit reached on the free plan: 0 of 5000 used; this request needs 5001, 5000 left; resets ${periodResetsAt(nextMonth).slice(0, 10)}.`);
    expect(await later.consumeQueries(tenant, 1)).toEqual({ used: 1, limit: 5000 });
    expect((await usage(t.adminKey)).queries_used).toBe(3); // this month is untouched
  });
});

describe("plan change by the operator (PUT /tenants/:tenant_id/plan)", () => {
  it("changes limits at once, is platform-only, and validates the plan", async () => {
    const t = await s.tenant();
    await setQueries(t.id, 5000);
    const tenant = await tenantRow(t.id);
    await expect(s.rt.quotas.consumeQueries(tenant, 1)).rejects.toThrow(/free plan/);

    expect((await s.call("PUT", `/tenants/${t.id}/plan`, { key: t.adminKey, json: { plan: "pro" } })).status).toBe(403);
    const bad = await s.call("PUT", `/tenants/${t.id}/plan`, { key: PLATFORM_KEY, json: { plan: "gold" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "plan"]);
    expect((await s.call("PUT", "/tenants/ten_missing/plan", { key: PLATFORM_KEY, json: { plan: "pro" } })).status).toBe(404);

    const pro = await s.call("PUT", `/tenants/${t.id}/plan`, { key: PLATFORM_KEY, json: { plan: "pro" } });
    expect(pro.status).toBe(200);
    expect(pro.body).toMatchObject({ id: t.id, plan: "pro" });
    const me = await s.call("GET", "/me", { key: t.adminKey });
    expect(me.body.plan).toBe("pro");
    expect(me.body.usage).toMatchObject({ plan: "pro", queries_used: 5000, queries_limit: 500_000, sources_limit: 100, documents_limit: 100_000 });
    expect(await s.rt.quotas.consumeQueries(await tenantRow(t.id), 1)).toEqual({ used: 5001, limit: 500_000 });

    await s.call("PUT", `/tenants/${t.id}/plan`, { key: PLATFORM_KEY, json: { plan: "enterprise" } });
    expect(await s.rt.quotas.consumeQueries(await tenantRow(t.id), 1_000_000)).toEqual({ used: 1_005_001, limit: null });
    expect(await usage(t.adminKey)).toMatchObject({ queries_limit: null, sources_limit: null, documents_limit: null, queries_used: 1_005_001 });
  });
});

describe("a search's admission: tenant, collection and quota in one store call", () => {
  /** a tenant with an (empty) collection, its admin key used once so the key cache holds its tenant row */
  async function searching() {
    const t = await s.tenant();
    const col = await createCollection(s, t.adminKey, [await createSource(s, t.adminKey)]);
    const search = (json: Record<string, unknown> = {}) => s.call("POST", "/search", { key: t.adminKey, json: { collection_id: col, query: "gearbox", ...json } });
    expect((await search()).status).toBe(200);
    return { t, col, search };
  }

  it("counts nothing for a collection of another tenant (404) or a bad filter (422)", async () => {
    const { t, search } = await searching();
    const other = await searching();
    expect((await search({ collection_id: other.col })).status).toBe(404);
    expect((await search({ filter: { no_such_field: "x" } })).status).toBe(422);
    expect((await s.call("POST", "/retrieve", { key: t.adminKey, json: { collection_id: "col_missing", query: "x" } })).status).toBe(404);
    expect((await usage(t.adminKey)).queries_used).toBe(1);
  });

  it("applies the plan the tenant is on now, whatever plan the key's cached tenant row says", async () => {
    const { t, col, search } = await searching();
    await setQueries(t.id, 5000);
    expect((await search()).body.detail).toBe(`Monthly query limit reached on the free plan: 5000 of 5000 used; resets ${resets()}.`);
    expect((await s.call("PUT", `/tenants/${t.id}/plan`, { key: PLATFORM_KEY, json: { plan: "pro" } })).status).toBe(200);
    expect((await search()).status).toBe(200);
    // a row read before the change (as the key cache may hold it) is corrected by the admission
    const stale = { ...(await tenantRow(t.id)), plan: "free" };
    expect((await s.rt.quotas.admitSearch(stale, col)).tenant.plan).toBe("pro");
    expect((await usage(t.adminKey)).queries_used).toBe(5002);
    await s.call("PUT", `/tenants/${t.id}/plan`, { key: PLATFORM_KEY, json: { plan: "free" } });
    expect((await search()).status).toBe(429);
    const e = await failure(s.rt.quotas.admitSearch({ ...stale, plan: "pro" }, col));
    expect(e.message).toMatch(/^Monthly query limit reached on the free plan: 5002 of 5000 used/);
    expect((await usage(t.adminKey)).queries_used).toBe(5002);
  });

  it("refuses the cached key of a deleted workspace with 401", async () => {
    const { t, col, search } = await searching();
    const row = await tenantRow(t.id);
    expect((await s.call("DELETE", "/auth/workspace", { key: t.adminKey, json: { confirm: t.slug } })).status).toBe(204);
    const r = await search();
    expect(r.status).toBe(401);
    expect(r.body.detail).toMatch(/no longer exists|not valid/);
    const e = await failure(s.rt.quotas.admitSearch(row, col));
    expect([e.kind, e.message]).toEqual(["unauthorized", "The workspace of this API key no longer exists."]);
  });
});

describe("source and document limits", () => {
  it("words the 429 of sources and documents like the query one", () => {
    expect(quotaExceededError("sources", "free", 5, 5).message).toBe("Data source limit reached on the free plan: 5 of 5 used. Delete a data source you no longer need (a failed crawl's source holds its slot until it is deleted) or move to a larger plan.");
    expect(quotaExceededError("documents", "free", 998, 1000, 5).message).toBe(
      "Document limit reached on the free plan: 998 of 1000 used; this request needs 5, 2 left. Delete documents or move to a larger plan.",
    );
    expect(() => assertWithinLimit("documents", "free", 995, 5)).not.toThrow();
    expect(() => assertWithinLimit("documents", "free", 995, 6)).toThrow(/995 of 1000 used; this request needs 6, 5 left/);
    expect(() => assertWithinLimit("sources", "enterprise", 1e9, 1e9)).not.toThrow();
  });

  it("refuses the sixth data source on the free plan with 429, and /me counts what the workspace holds", async () => {
    const t = await s.tenant();
    for (let i = 0; i < 5; i++) {
      expect((await s.call("POST", "/data-sources", { key: t.adminKey, json: { name: `S${i}`, source_type: "upload" } })).status).toBe(201);
    }
    const sixth = await s.call("POST", "/data-sources", { key: t.adminKey, json: { name: "S5", source_type: "upload" } });
    expect(sixth.status).toBe(429);
    expect(sixth.body.detail).toBe("Data source limit reached on the free plan: 5 of 5 used. Delete a data source you no longer need (a failed crawl's source holds its slot until it is deleted) or move to a larger plan.");
    expect(await usage(t.adminKey)).toMatchObject({ sources_used: 5, sources_limit: 5, documents_used: 0 });
  });
});
