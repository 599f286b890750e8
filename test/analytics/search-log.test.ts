// Search analytics over HTTP (issue 29): every /search and /retrieve is logged with a search_id,
// feedback attaches to it, and the reports equal a brute-force tally of the answers this file
// got; plus tenant isolation, the logging switch, retention, tenant deletion, the report-to-suite
// action scored by a benchmark run, the report-to-synonym action, the /metrics counters, a
// graceful shutdown losing nothing and a store that refuses the log's writes.
// Lexical search (no model), so answers are certain; the log is written every 20 ms.
import pino from "pino";
import { Counter } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollection, createSource, expect422, makeKey, noModelEnv, startServer, upload, waitIndexed, type TestServer } from "../kit/index.js";
import { newSearchKey } from "../../src/store/analytics-codec.js";
import { createSearchLog } from "../../src/services/analytics/analytics-log.js";
import { storeSql, type StoreSql } from "../helpers/store-sql.js";
import type { PostgresStore } from "../../src/store/postgres/index.js";

// lexical scores of these tiny documents are small: the low-score line sits among them
const LOW = 0.01;
const ENV = { ...noModelEnv(), ANALYTICS_FLUSH_MS: "20", ANALYTICS_LOW_SCORE: String(LOW), DEFAULT_PLAN: "enterprise" };
const DOCS = {
  gearbox: "# Gearbox\n\nThe gearbox lubrication interval is 2000 hours.\n",
  blades: "# Blades\n\nRotor blades are inspected for erosion every spring.\n",
  tower: "# Tower\n\nThe tower bolts are torqued after the first 500 hours.\n",
};
// matching, partly matching and unmatched queries, in different spellings of the same query
const QUERIES = ["gearbox lubrication", "  Gearbox   LUBRICATION ", "rotor blades", "hours", "tower bolts hours", "zebra unicorn", "ZEBRA unicorn", "nothing here at all"];

let s: TestServer;
let key: string;
let tenantId: string;
let collection: string;
const doc: Record<string, string> = {};

beforeAll(async () => {
  s = await startServer(ENV, { listen: false });
  const t = await s.tenant("Analytics");
  key = t.adminKey;
  tenantId = t.id;
  const src = await createSource(s, key);
  collection = await createCollection(s, key, [src]);
  await upload(s, key, src, Object.entries(DOCS).map(([name, content]) => ({ name: `${name}.md`, content, type: "text/markdown" })));
  for (const d of await waitIndexed(s, key, src)) doc[d.source.replace(/\.md$/, "")] = d.id;
});
afterAll(async () => {
  await s?.close();
});

const call = (method: string, path: string, json?: unknown, k = key) => s.call(method, path, { key: k, ...(json === undefined ? {} : { json }) });
const norm = (q: string) => q.toLowerCase().replace(/\s+/g, " ").trim();

/** nearest rank, as the report defines it */
function pct(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1]!;
}

interface Logged {
  query: string;
  took: number;
  hits: number;
  top: number | null;
  clicks: number[];
}

describe("the search log and its reports", () => {
  const logged: Logged[] = [];
  let from: string;

  beforeAll(async () => {
    from = new Date(Date.now() - 1000).toISOString();
    let seed = 7;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 16) % n);
    for (let i = 0; i < 48; i++) {
      const query = QUERIES[rand(QUERIES.length)]!;
      const retrieve = i % 4 === 3;
      const r = await call("POST", retrieve ? "/retrieve" : "/search", { collection_id: collection, query });
      expect(r.status).toBe(200);
      expect(r.body.search_id).toMatch(/^srch_[A-Za-z0-9_-]{16}$/);
      const scores: number[] = retrieve ? r.body.contexts.filter((c: any) => !c.expanded).map((c: any) => c.score) : r.body.results.map((h: any) => h.score);
      const ids: string[] = retrieve ? r.body.contexts.map((c: any) => c.document_id) : r.body.results.map((h: any) => h.document_id);
      const entry: Logged = { query: norm(query), took: r.body.took_ms, hits: retrieve ? scores.length : r.body.total, top: scores.length ? Math.max(...scores) : null, clicks: [] };
      logged.push(entry);
      // some answers get a click on one of their hits (at its position), one gets two
      for (let c = 0; c < (ids.length ? rand(3) : 0); c++) {
        const position = 1 + rand(ids.length);
        expect((await call("POST", `/searches/${r.body.search_id}/events`, { type: "click", document_id: ids[position - 1], position })).status).toBe(202);
        entry.clicks.push(position);
      }
      // a rating is feedback, not a click
      if (ids.length && rand(4) === 0) expect((await call("POST", `/searches/${r.body.search_id}/events`, { type: "thumbs_up", document_id: ids[0], position: 1 })).status).toBe(202);
    }
    await s.rt.analytics.flush();
  });

  it("counts every query exactly (against a brute-force tally of the answers)", async () => {
    const tally = new Map<string, { query: string; count: number; zero_results: number; low_score: number; clicks: number; clicked: number; pos: number }>();
    for (const e of logged) {
      const t = tally.get(e.query) ?? { query: e.query, count: 0, zero_results: 0, low_score: 0, clicks: 0, clicked: 0, pos: 0 };
      t.count++;
      if (e.hits === 0) t.zero_results++;
      else if (e.top! < LOW) t.low_score++;
      t.clicks += e.clicks.length;
      if (e.clicks.length) t.clicked++;
      t.pos += e.clicks.reduce((a, b) => a + b, 0);
      tally.set(e.query, t);
    }
    const expected = [...tally.values()]
      .map((t) => ({ query: t.query, count: t.count, zero_results: t.zero_results, low_score: t.low_score, clicks: t.clicks, ctr: t.clicked / t.count, mean_click_position: t.clicks ? t.pos / t.clicks : null }))
      .sort((a, b) => b.count - a.count || (a.query < b.query ? -1 : 1));
    const r = await call("GET", `/analytics/queries?collection_id=${collection}&from=${from}&sort=count&limit=200`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: expected, next_cursor: null });
    // the same from the daily rollup (whole days inside a wide window) and from raw events at its edges
    const wide = `from=${new Date(Date.now() - 2 * 86_400_000).toISOString()}&to=${new Date(Date.now() + 2 * 86_400_000).toISOString()}`;
    expect((await call("GET", `/analytics/queries?collection_id=${collection}&${wide}&limit=200`)).body).toEqual({ data: expected, next_cursor: null });
    // spellings of one query are one query
    expect(r.body.data.map((d: any) => d.query)).not.toContain("  Gearbox   LUBRICATION ");

    // paging walks the same list
    const pages: unknown[] = [];
    let cursor: string | null = null;
    do {
      const p: any = await call("GET", `/analytics/queries?collection_id=${collection}&from=${from}&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      pages.push(...p.body.data);
      cursor = p.body.next_cursor;
    } while (cursor);
    expect(pages).toEqual(expected);

    const zero = (await call("GET", `/analytics/queries?sort=zero_results&from=${from}`)).body.data;
    expect(zero.map((d: any) => d.query)).toEqual(expected.filter((e) => e.zero_results > 0).sort((a, b) => b.zero_results - a.zero_results || b.count - a.count || (a.query < b.query ? -1 : 1)).map((e) => e.query));
    expect(zero.map((d: any) => d.query)).toContain("zebra unicorn");
    const ctr = (await call("GET", `/analytics/queries?sort=ctr&from=${from}`)).body.data;
    expect(ctr.map((d: any) => d.ctr)).toEqual([...ctr.map((d: any) => d.ctr)].sort((a, b) => a - b));
  });

  it.each([
    ["raw events", () => `from=${from}`],
    ["the hourly rollup", () => `from=${new Date(Date.now() - 3 * 3_600_000).toISOString()}&to=${new Date(Date.now() + 3 * 3_600_000).toISOString()}`],
  ])("reports volume, rates and exact percentiles per interval (%s)", async (_name, window) => {
    const r = await call("GET", `/analytics/searches?collection_id=${collection}&interval=hour&${window()}`);
    expect(r.status).toBe(200);
    const points = r.body.data.filter((p: any) => p.searches > 0);
    // the searches of this file fall in one or two hours
    const total = points.reduce((a: number, p: any) => a + p.searches, 0);
    expect(total).toBe(logged.length);
    if (points.length === 1) {
      const took = logged.map((e) => e.took);
      expect(points[0]).toEqual({
        start: expect.any(String),
        searches: logged.length,
        zero_result_rate: logged.filter((e) => e.hits === 0).length / logged.length,
        low_score_rate: logged.filter((e) => e.hits > 0 && e.top! < LOW).length / logged.length,
        p50_ms: pct(took, 0.5),
        p95_ms: pct(took, 0.95),
      });
    }
    const day = await call("GET", `/analytics/searches?interval=day&from=${from}`);
    expect(day.body.data.reduce((a: number, p: any) => a + p.searches, 0)).toBe(logged.length);
    expect(day.body.data[0].start).toMatch(/T00:00:00\.000Z$/);
  });

  it("validates feedback and report parameters with the contract's 422", async () => {
    const r = await call("POST", "/search", { collection_id: collection, query: "gearbox" });
    expect422(await call("POST", `/searches/${r.body.search_id}/events`, { type: "like", document_id: doc.gearbox, position: 1 }), "body", "type");
    expect422(await call("POST", `/searches/${r.body.search_id}/events`, { type: "click", document_id: doc.gearbox, position: 0 }), "body", "position");
    expect422(await call("GET", "/analytics/queries?sort=popular"), "query", "sort");
    expect422(await call("GET", "/analytics/searches?interval=hour&from=2000-01-01T00:00:00Z"), "query", "interval");
    expect422(await call("GET", "/analytics/queries?cursor=bm9wZQ"), "query", "cursor");
    expect((await call("POST", "/searches/srch_nope/events", { type: "click", document_id: doc.gearbox, position: 1 })).status).toBe(404);
  });
});

describe("isolation, the switch, retention and deletion", () => {
  it("keeps tenants apart: another tenant's search id is 404 and its reports are its own", async () => {
    const other = await s.tenant("Other");
    const r = await call("POST", "/search", { collection_id: collection, query: "gearbox secret" });
    const click = { type: "click", document_id: doc.gearbox, position: 1 };
    expect((await call("POST", `/searches/${r.body.search_id}/events`, click, other.adminKey)).status).toBe(404);
    expect((await call("GET", `/analytics/queries?collection_id=${collection}`, undefined, other.adminKey)).status).toBe(404);
    expect((await call("GET", `/analytics/searches?collection_id=${collection}`, undefined, other.adminKey)).status).toBe(404);
    expect((await call("GET", "/analytics/queries", undefined, other.adminKey)).body.data).toEqual([]);
    // a search key may send feedback (a browser front end), but not read reports
    const reader = await makeKey(s, key, ["search"]);
    expect((await call("POST", `/searches/${r.body.search_id}/events`, click, reader.key)).status).toBe(202);
    expect((await call("GET", "/analytics/queries", undefined, reader.key)).status).toBe(403);
  });

  it("logs nothing while the workspace's switch is off", async () => {
    const t = await s.tenant("Private");
    const src = await createSource(s, t.adminKey);
    const col = await createCollection(s, t.adminKey, [src]);
    expect((await call("GET", "/analytics/settings", undefined, t.adminKey)).body).toEqual({ logging: true, retention_days: 90 });
    expect((await call("PATCH", "/analytics/settings", { logging: false }, t.adminKey)).body).toEqual({ logging: false, retention_days: 90 });
    const r = await call("POST", "/search", { collection_id: col, query: "private matter" }, t.adminKey);
    expect(r.status).toBe(200);
    expect(r.body.search_id).toBeNull();
    await s.rt.analytics.flush();
    expect((await call("GET", "/analytics/queries", undefined, t.adminKey)).body.data).toEqual([]);
    await call("PATCH", "/analytics/settings", { logging: true }, t.adminKey);
    expect((await call("POST", "/search", { collection_id: col, query: "public matter" }, t.adminKey)).body.search_id).toMatch(/^srch_/);
    await s.rt.analytics.flush();
    expect((await call("GET", "/analytics/queries", undefined, t.adminKey)).body.data.map((d: any) => d.query)).toEqual(["public matter"]);
  });

  it("removes events past the retention, and all of a deleted tenant's events", async () => {
    const t = await s.tenant("Retained");
    const src = await createSource(s, t.adminKey);
    const col = await createCollection(s, t.adminKey, [src]);
    const old = Date.now() - 91 * 86_400_000;
    const row = (at: number, query: string) => ({
      id: newSearchKey(at), tenant_id: t.id, collection_id: col, at, kind: "search" as const, origin: "api" as const, query, mode: "lexical",
      filter: null, hits: 0, top_score: null, top: [], took_ms: 3, actor: null,
    });
    const [stale, fresh] = [row(old, "stale"), row(Date.now() - 1000, "fresh")];
    await s.rt.store.analytics.recordSearches([stale, fresh], LOW);
    await s.rt.analytics.prune();
    expect(await s.rt.store.analytics.findSearch(t.id, stale.id)).toBeNull();
    expect(await s.rt.store.analytics.findSearch(t.id, fresh.id)).toMatchObject({ query: "fresh", collection_id: col });

    expect(await s.rt.store.accounts.deleteTenant(t.id)).toBe(true);
    expect(await s.rt.store.analytics.findSearch(t.id, fresh.id)).toBeNull();
    // a buffered event of the deleted tenant is dropped, not an error
    await s.rt.store.analytics.recordSearches([row(Date.now(), "late")], LOW);
    if (s.rt.store.kind === "sqlite") {
      const db = (s.rt.store as unknown as { db: { prepare(q: string): { get(...a: unknown[]): unknown } } }).db;
      expect(db.prepare("SELECT count(*) AS n FROM analytics_scopes WHERE tenant_id = ?").get(t.id)).toEqual({ n: 0 });
    }
  });
});

describe("closing the loop", () => {
  it("turns clicked queries into implicit cases that a benchmark run scores", async () => {
    const suite = await call("POST", "/benchmarks", { name: "from traffic", collection_id: collection, top_k: 3, cases: [{ query: "rotor blades", relevant_document_ids: [doc.blades] }] });
    expect(suite.status).toBe(201);
    const r = await call("POST", "/search", { collection_id: collection, query: "Tower Bolts" });
    const hit = r.body.results.findIndex((h: any) => h.document_id === doc.tower);
    expect(hit).toBeGreaterThanOrEqual(0);
    await call("POST", `/searches/${r.body.search_id}/events`, { type: "click", document_id: doc.tower, position: hit + 1 });
    const made = await call("POST", "/analytics/benchmark-cases", { suite_id: suite.body.id, queries: ["tower bolts", "never searched"] });
    expect(made.status).toBe(201);
    expect(made.body.created).toEqual([{ id: expect.stringMatching(/^bmc_/), query: "tower bolts", relevant_document_ids: [doc.tower], judgment: "implicit" }]);
    expect(made.body.skipped).toEqual([{ query: "never searched", reason: "no clicked document in the window" }]);
    const run = await call("POST", `/benchmarks/${suite.body.id}/run`);
    expect(run.status).toBe(200);
    expect(run.body.query_count).toBe(2);
    const scored = run.body.results.find((c: any) => c.query === "tower bolts");
    expect(scored.returned[0]).toMatchObject({ document_id: doc.tower, relevant: true });
    // benchmark runs are not traffic: they add nothing to the log
    await s.rt.analytics.flush();
    const q = (await call("GET", "/analytics/queries?limit=200")).body.data.find((d: any) => d.query === "tower bolts");
    expect(q.count).toBe(1);
    expect((await call("POST", "/analytics/benchmark-cases", { suite_id: "bms_missing", queries: ["x"] })).status).toBe(404);
  });

  it("turns zero-result queries into synonyms that the next search uses", async () => {
    const ids = (r: any) => r.body.results.map((h: any) => h.document_id);
    expect(ids(await call("POST", "/search", { collection_id: collection, query: "Zebra  Unicorn" }))).toEqual([]);
    await call("PUT", `/collections/${collection}/synonyms`, { groups: [["nacelle", "housing"]], mappings: { cog: ["gearbox"] } });
    const mapped = await call("POST", "/analytics/synonyms", { collection_id: collection, queries: ["Zebra  Unicorn", "cog"], synonym_of: "Rotor Blades" });
    expect(mapped.status).toBe(201);
    expect(mapped.body.added).toEqual({ groups: [], mappings: { "zebra unicorn": ["rotor blades"], cog: ["rotor blades"] } });
    // merged: the existing group stays, the existing mapping gains the new term
    expect(mapped.body.synonyms).toEqual({ groups: [["nacelle", "housing"]], mappings: { cog: ["gearbox", "rotor blades"], "zebra unicorn": ["rotor blades"] } });
    expect((await call("GET", `/collections/${collection}/synonyms`)).body).toEqual(mapped.body.synonyms);
    expect(ids(await call("POST", "/search", { collection_id: collection, query: "zebra unicorn" }))).toContain(doc.blades);
    // without synonym_of the queries become one group; the same group twice is kept once
    const group = { collection_id: collection, queries: ["tower bolts", "Mast Screws"] };
    expect((await call("POST", "/analytics/synonyms", group)).body.added).toEqual({ groups: [["tower bolts", "mast screws"]], mappings: {} });
    const again = await call("POST", "/analytics/synonyms", { ...group, queries: ["mast screws", "tower bolts"] });
    expect(again.body.synonyms.groups).toEqual([["nacelle", "housing"], ["tower bolts", "mast screws"]]);
    expect(ids(await call("POST", "/search", { collection_id: collection, query: "mast screws" }))).toContain(doc.tower);
    expect422(await call("POST", "/analytics/synonyms", { collection_id: collection, queries: ["only one"] }), "body", "queries");
    expect422(await call("POST", "/analytics/synonyms", { collection_id: collection, queries: ["?!"], synonym_of: "gearbox" }), "body", "queries", 0);
    expect422(await call("POST", "/analytics/synonyms", { collection_id: collection, queries: ["Gearbox"], synonym_of: "gearbox" }), "body", "synonym_of");
    expect((await call("POST", "/analytics/synonyms", { collection_id: "col_missing", queries: ["a", "b"] })).status).toBe(404);
    await call("PUT", `/collections/${collection}/synonyms`, {});
  });

  it("counts zero-result and low-score searches per mode in /metrics", async () => {
    const text = String((await s.call("GET", "/metrics")).body);
    const zero = logged0(text, "quarry_search_zero_results_total");
    expect(zero).toBeGreaterThan(0);
    await call("POST", "/search", { collection_id: collection, query: "no such words anywhere" });
    expect(logged0(String((await s.call("GET", "/metrics")).body), "quarry_search_zero_results_total")).toBe(zero + 1);
    expect(text).toMatch(/quarry_search_low_score_total/);
  });
});

function logged0(metrics: string, name: string): number {
  const m = new RegExp(`^${name}\\{mode="lexical"\\} (\\d+)`, "m").exec(metrics);
  return m ? Number(m[1]) : 0;
}

it("writes every buffered event when the log closes (a graceful shutdown loses none)", async () => {
  const t = await s.tenant("Shutdown");
  // a log that would not write for a minute by itself
  const log = createSearchLog({ store: s.rt.store, log: pino({ level: "silent" }), flushMs: 60_000, lowScore: LOW });
  const now = Date.now();
  const keys = Array.from({ length: 25 }, (_, i) => newSearchKey(now - i));
  for (const [i, id] of keys.entries()) {
    log.record({ id, tenant_id: t.id, collection_id: collection, at: now - i, kind: "search", origin: "api", query: `q${i % 5}`, mode: "lexical", filter: null, hits: 1, top_score: 0.5, top: [{ document_id: doc.gearbox!, score: 0.5 }], took_ms: 2, actor: null });
  }
  expect(await s.rt.store.analytics.findSearch(t.id, keys[0]!)).toBeNull();
  await log.close();
  for (const id of keys) expect(await s.rt.store.analytics.findSearch(t.id, id)).not.toBeNull();
});

/** Makes the store itself refuse every insert into the search log, as a full disk or a read-only database would. */
async function refuseLogWrites(sql: StoreSql, refuse: boolean): Promise<void> {
  if (sql.kind === "sqlite") {
    await sql.run(refuse ? "CREATE TRIGGER refuse_log BEFORE INSERT ON search_events BEGIN SELECT RAISE(ABORT, 'refused by the test'); END" : "DROP TRIGGER refuse_log");
    return;
  }
  // one connection: on Citus, where search_events is distributed, a trigger on it needs the
  // session's consent (a placeholder setting on one PostgreSQL)
  const c = await (s.rt.store as PostgresStore).pool.connect();
  try {
    await c.query("SET citus.enable_unsafe_triggers = on");
    if (!refuse) return void (await c.query("DROP TRIGGER refuse_log ON search_events"));
    await c.query("CREATE OR REPLACE FUNCTION refuse_log() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$");
    await c.query("CREATE TRIGGER refuse_log BEFORE INSERT ON search_events FOR EACH ROW EXECUTE FUNCTION refuse_log()");
  } finally {
    await c.query("RESET citus.enable_unsafe_triggers");
    c.release();
  }
}

const metric = async (name: string) => Number(new RegExp(`^${name} (\\d+)`, "m").exec(String((await s.call("GET", "/metrics")).body))?.[1] ?? 0);

it("answers searches while the store refuses the log, and writes their events once it accepts them again", async () => {
  const sql = storeSql(s.rt.store);
  const failures = await metric("quarry_search_log_write_failures_total");
  await refuseLogWrites(sql, true);
  const ids: string[] = [];
  try {
    for (const query of ["gearbox", "tower bolts", "nothing at all"]) {
      const r = await call("POST", "/search", { collection_id: collection, query });
      expect(r.status).toBe(200);
      ids.push(r.body.search_id.slice("srch_".length));
    }
    await s.rt.analytics.flush();
    expect(await metric("quarry_search_log_write_failures_total")).toBeGreaterThan(failures);
    for (const id of ids) expect(await s.rt.store.analytics.findSearch(tenantId, id)).toBeNull();

    // the rule for a store that stays down: past the bound new events are dropped, and what is
    // still unwritten at close is dropped too; both counted
    const counters = { failures: new Counter({ name: "f", help: "f", registers: [] }), dropped: new Counter({ name: "d", help: "d", registers: [] }) };
    const bounded = createSearchLog({ store: s.rt.store, log: pino({ level: "silent" }), flushMs: 60_000, lowScore: LOW, maxBuffer: 10, counters });
    const now = Date.now();
    for (let i = 0; i < 15; i++) {
      bounded.record({ id: newSearchKey(now), tenant_id: tenantId, collection_id: collection, at: now, kind: "search", origin: "api", query: "q", mode: "lexical", filter: null, hits: 0, top_score: null, top: [], took_ms: 1, actor: null });
    }
    expect(bounded.dropped()).toBe(5);
    await bounded.flush();
    expect((await counters.failures.get()).values[0]!.value).toBe(1);
    await bounded.close();
    expect(bounded.dropped()).toBe(15);
    expect((await counters.dropped.get()).values[0]!.value).toBe(15);
  } finally {
    await refuseLogWrites(sql, false);
  }
  // the refused events were kept and go in with the next write
  await s.rt.analytics.flush();
  for (const id of ids) expect(await s.rt.store.analytics.findSearch(tenantId, id), id).not.toBeNull();
  expect(await metric("quarry_search_log_dropped_total")).toBe(0);
});
