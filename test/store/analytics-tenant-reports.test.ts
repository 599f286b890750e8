// Tenant-wide analytics reports over several collections equal a brute-force tally of the logged
// searches, on both stores (and on Citus through `npm run test:citus -- FILE`): before the tenant
// has a second collection, when one appears in a batch (PostgreSQL then makes the tenant's own
// rollups from its collections'), and after, with clicks on old and new searches, at window
// edges that are not whole hours or days (raw events) and whole ones (rollups) in one report.
import pino from "pino";
import { expect, it } from "vitest";
import { describeEachStore, type StoreHandle } from "./stores.js";
import type { SearchEventRow, SearchOrigin } from "../../src/store/analytics-types.js";
import { newSearchKey } from "../../src/store/analytics-codec.js";
import { createSearchLog } from "../../src/services/analytics/analytics-log.js";
import { createAnalyticsService } from "../../src/services/analytics/analytics.js";
import { bucketStart, INTERVALS, type Interval } from "../../src/services/analytics/analytics-reports.js";
import { keylessPrincipal } from "../../src/services/auth/auth-types.js";

const LOW = 0.3;
const DAY = 86_400_000;
const NOW = Date.parse("2026-11-20T10:17:23.456Z");
const TEXTS = ["gearbox oil", "rotor blades", "tower bolts", "yaw motor", "zebra", "cable sensor", "alarm", "grease interval"];
const COLLECTIONS = ["col_a", "col_b", "col_c"];

type Click = { search: SearchEventRow; position: number };

/** a deterministic generator of searches: skewed texts, some empty answers and weak scores, three origins */
function generator(seed: number) {
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  return (tenantId: string, collections: string[], n: number): SearchEventRow[] =>
    Array.from({ length: n }, () => {
      const at = NOW - 1 - Math.floor(rand() * 5 * DAY);
      const zero = rand() < 0.15;
      const score = Math.round(rand() * 1e6) / 1e6;
      const origin: SearchOrigin = (["api", "api", "api", "mcp", "console"] as const)[Math.floor(rand() * 5)]!;
      return {
        id: newSearchKey(at), tenant_id: tenantId, collection_id: collections[Math.floor(rand() * collections.length)]!, at, kind: "search", origin,
        query: TEXTS[Math.floor(TEXTS.length * rand() ** 2)]!, mode: "lexical", filter: null, hits: zero ? 0 : 1 + Math.floor(rand() * 9),
        top_score: zero ? null : score, top: [], took_ms: 1 + Math.floor(rand() * 60), actor: null,
      };
    });
}

const nearestRank = (sorted: number[], p: number) => (sorted.length ? sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1]! : null);

/** the series report computed straight from the searches */
function expectedSeries(events: SearchEventRow[], from: number, to: number, interval: Interval) {
  const out = [];
  for (let start = bucketStart(from, interval); start < to; start += INTERVALS[interval]) {
    const es = events.filter((e) => e.at >= from && e.at < to && e.origin !== "console" && bucketStart(e.at, interval) === start);
    const took = es.map((e) => e.took_ms).sort((a, b) => a - b);
    const n = es.length;
    out.push({
      start: new Date(start).toISOString(), searches: n,
      zero_result_rate: n ? es.filter((e) => e.hits === 0).length / n : 0,
      low_score_rate: n ? es.filter((e) => e.hits > 0 && e.top_score! < LOW).length / n : 0,
      p50_ms: nearestRank(took, 0.5), p95_ms: nearestRank(took, 0.95),
    });
  }
  return out;
}

/** the per-query report computed straight from the searches and their clicks, by text */
function expectedQueries(events: SearchEventRow[], clicks: Click[], from: number, to: number) {
  const inWindow = events.filter((e) => e.at >= from && e.at < to && e.origin !== "console");
  return TEXTS.flatMap((query) => {
    const es = inWindow.filter((e) => e.query === query);
    if (es.length === 0) return [];
    const cs = clicks.filter((c) => es.includes(c.search));
    const clickedSearches = new Set(cs.map((c) => c.search)).size;
    return [{
      query, count: es.length, zero_results: es.filter((e) => e.hits === 0).length, low_score: es.filter((e) => e.hits > 0 && e.top_score! < LOW).length,
      clicks: cs.length, ctr: clickedSearches / es.length, mean_click_position: cs.length ? cs.reduce((a, c) => a + c.position, 0) / cs.length : null,
    }];
  });
}

const byText = <T extends { query: string }>(xs: T[]) => [...xs].sort((a, b) => (a.query < b.query ? -1 : 1));

async function setUp(h: StoreHandle) {
  const { store } = h;
  const created_at = new Date(NOW - 30 * DAY).toISOString();
  const tenant = { id: "ten_reports", name: "R", slug: "reports", plan: "enterprise", verified: true, created_at };
  await store.tenants.createWithKey(tenant, { id: "key_reports", tenant_id: tenant.id, name: "k", prefix: "qk_r", hash: "0".repeat(64), scopes: ["admin"], created_at, expires_at: null, revoked_at: null, last_used_at: null });
  for (const id of COLLECTIONS) await store.content.createCollection({ id, tenant_id: tenant.id, name: id, description: "", settings: {}, created_at }, []);
  const log = createSearchLog({ store, log: pino({ level: "silent" }), flushMs: 60_000, lowScore: LOW });
  const service = createAnalyticsService({ store, log, synonyms: { add: async () => ({ groups: [], mappings: {} }) }, retentionDays: 90, lowScore: LOW, flushMs: 20, now: () => NOW });
  const principal = keylessPrincipal((await store.tenants.get(tenant.id))!, ["admin"] as never);
  return { store, tenant, service, principal, close: () => log.close() };
}

describeEachStore("tenant-wide analytics reports over several collections", (open, kind) => {
  it("equal a straightforward tally before, while and after the tenant's log spans several collections", async () => {
    const h = await open();
    const { store, tenant, service, principal, close } = await setUp(h);
    const gen = generator(7);
    const events: SearchEventRow[] = [];
    const clicks: Click[] = [];
    const click = async (search: SearchEventRow, position: number) => {
      expect(await store.analytics.recordFeedback({ tenant_id: tenant.id, search_id: search.id, at: NOW, type: "click", document_id: "doc_x", position })).toBe(true);
      clicks.push({ search, position });
    };
    const tenantScopes = () => h.rows<{ collection_id: string }>("SELECT collection_id FROM analytics_scopes WHERE tenant_id = ? AND collection_id = ''", [tenant.id]);
    const check = async () => {
      // unaligned edges (raw events) around whole hours and days (rollups); and whole days only
      for (const [from, to] of [[NOW - 4.6 * DAY + 1_234, NOW - 0.3 * DAY], [bucketStart(NOW - 4 * DAY, "day"), bucketStart(NOW, "day")], [NOW - 5 * DAY, NOW + 1]] as const) {
        const w = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
        for (const interval of ["hour", "day"] as const) expect((await service.searches(principal, { ...w, interval })).data, `${interval} ${w.from}`).toEqual(expectedSeries(events, from, to, interval));
        expect(byText((await service.queries(principal, { ...w, limit: 1_000 })).data), w.from).toEqual(byText(expectedQueries(events, clicks, from, to)));
        // and one collection's, unchanged
        const mine = events.filter((e) => e.collection_id === "col_a");
        expect(byText((await service.queries(principal, { ...w, collection_id: "col_a", limit: 1_000 })).data)).toEqual(byText(expectedQueries(mine, clicks, from, to)));
        expect((await service.searches(principal, { ...w, collection_id: "col_a", interval: "day" })).data).toEqual(expectedSeries(mine, from, to, "day"));
      }
    };

    // one collection: the tenant's reports are its collection's, with no rollup of their own
    events.push(...gen(tenant.id, ["col_a"], 400));
    await store.analytics.recordSearches(events, LOW);
    for (const e of events.filter((e) => e.origin !== "console").slice(0, 40)) await click(e, 1 + (e.took_ms % 4));
    await check();
    expect(await tenantScopes()).toEqual([]);

    // a batch that brings two more collections: on PostgreSQL the tenant's rollups are made here
    const more = gen(tenant.id, COLLECTIONS, 600);
    await store.analytics.recordSearches(more, LOW);
    events.push(...more);
    if (kind === "postgres") expect(await tenantScopes()).toHaveLength(1);
    // a second first click on a search clicked before, and first clicks on new ones
    await click(clicks[0]!.search, 2);
    for (const e of more.filter((e) => e.origin !== "console").slice(0, 60)) await click(e, 1 + (e.took_ms % 5));
    // later batches add to both rollups; a repeated batch adds nothing
    const later = gen(tenant.id, COLLECTIONS, 500);
    await store.analytics.recordSearches(later, LOW);
    await store.analytics.recordSearches(later.slice(0, 100), LOW);
    events.push(...later);
    await check();
    await close();
  });
});
