// Search-log rows written before the compact form (issue 29's storage target) are converted by
// the migrations (PostgreSQL 120-121 and 123, SQLite 027-028): the old tables are made again from
// the old migration's own DDL, filled in the old text form, and the store opened again must answer
// every lookup (search ids handed out before still resolve), report and click as before, with the
// first hits and the actor intact.
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { describeEachStore } from "../store/stores.js";
import { DAY, decodeTop, newSearchKey, unpackId } from "../../src/store/analytics-codec.js";
import type { SqliteStore } from "../../src/store/sqlite/index.js";
import type { PostgresStore } from "../../src/store/postgres/index.js";
import type { Store } from "../../src/store/types.js";

const OLD = {
  sqlite: ["023_search_analytics.sql", ["027_analytics_compact_events.sql", "028_analytics_query_ids.sql"], []],
  postgres: ["115_search_analytics.sql", ["120_analytics_compact_events.sql", "121_analytics_query_ids.sql", "123_analytics_event_ids.sql", "124_analytics_rollup_numbers.sql", "125_analytics_rollup_fillfactor.sql", "126_analytics_scope_keys.sql"], ["analytics_actors"]],
} as const;

/** each stored event's time, first hits, actor and filter, as the store keeps them since its latest migration */
const EVENTS = {
  sqlite: "SELECT at, top, actor, filter FROM search_events ORDER BY at",
  postgres: "SELECT (s.id >> 21)::float8 AS at, s.top, a.actor, s.filter FROM search_events s LEFT JOIN analytics_actors a ON a.scope = s.scope AND a.id = s.actor ORDER BY s.id",
};

/** runs SQL with `?` placeholders on either store */
function sqlOf(store: Store, kind: "sqlite" | "postgres") {
  return async <T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> => {
    if (kind === "sqlite") {
      const st = (store as SqliteStore).db.prepare(text);
      return st.reader ? (st.all(...params) as T[]) : (st.run(...params), []);
    }
    let n = 0;
    return (await (store as PostgresStore).pool.query(text.replace(/\?/g, () => `$${++n}`), params)).rows as T[];
  };
}

describeEachStore("search-log rows of the text form", (open, kind) => {
  it("migrate to the compact form: lookups, reports, clicks, first hits and actors unchanged", async () => {
    const h = await open();
    const sql = sqlOf(h.store, kind);
    const at = Date.UTC(2026, 10, 20, 10, 0, 0);
    const created = new Date().toISOString();
    const tenant = { id: "ten_migrate000000000000", name: "M", slug: "m", plan: "enterprise", verified: true, created_at: created };
    await h.store.tenants.createWithKey(tenant, { id: "key_migrate000000000000", tenant_id: tenant.id, name: "k", prefix: "qk_m", hash: "1".repeat(64), scopes: ["admin"], created_at: created, expires_at: null, revoked_at: null, last_used_at: null });

    // back to the text form, with the DDL of the migration that made it
    const [made, compact, later] = OLD[kind];
    const ddl = fs.readFileSync(path.resolve(`src/store/${kind}/migrations/${made}`), "utf8");
    for (const t of ["search_feedback", "search_events", "query_daily", "search_hourly", "analytics_queries", ...later]) await sql(`DROP TABLE ${t}`);
    for (const m of ddl.matchAll(/CREATE TABLE (search_events|search_feedback|query_daily|search_hourly) \([\s\S]*?\n\)( WITHOUT ROWID)?;|CREATE INDEX search_feedback_search[^;]*;/g)) await sql(m[0]);
    for (const name of compact) await sql("DELETE FROM schema_migrations WHERE name = ?", [name]);
    await sql("INSERT INTO analytics_scopes (tenant_id, collection_id) VALUES (?, 'col_a')", [tenant.id]);
    const scope = (await sql<{ id: number }>("SELECT id FROM analytics_scopes WHERE tenant_id = ?", [tenant.id]))[0]!.id;
    const hit = newSearchKey(at);
    const miss = newSearchKey(at + 1);
    const insert = "INSERT INTO search_events (scope, at, id, kind, origin, mode, query, filter, hits, top_score, top, took_ms, actor) VALUES (?, ?, ?, 0, 0, 1, ?, ?, ?, ?, ?, ?, ?)";
    await sql(insert, [scope, at, hit, "gearbox oil", null, 3, 873101, "0123456789abcdef0123:873101 !page:1:500000", 12, "key_0123456789abcdef0123"]);
    await sql(insert, [scope, at + 1, miss, "zebra", '{"lang":"en"}', 0, null, "", 7, null]);
    await sql("INSERT INTO search_feedback (scope, search_at, search_id, at, type, document_id, position) VALUES (?, ?, ?, ?, 0, ?, 1)", [scope, at, hit, at + 5, "doc_0123456789abcdef0123"]);
    const day = Math.floor(at / DAY) * DAY;
    const daily = "INSERT INTO query_daily (scope, day, origin, query, searches, zero_results, low_score, clicks, clicked_searches, position_sum) VALUES (?, ?, 0, ?, 1, ?, 0, ?, ?, ?)";
    await sql(daily, [scope, day, "gearbox oil", 0, 1, 1, 1]);
    await sql(daily, [scope, day, "zebra", 1, 0, 0, 0]);
    await sql("INSERT INTO search_hourly (scope, hour, origin, took_ms, searches, zero_results, low_score) VALUES (?, ?, 0, 12, 1, 0, 0), (?, ?, 0, 7, 1, 1, 0)", [scope, at, scope, at]);

    const s = await h.reopen(); // runs the compact migrations
    const a = s.analytics;
    expect(await a.findSearch(tenant.id, hit)).toEqual({ id: hit, collection_id: "col_a", query: "gearbox oil" });
    expect(await a.findSearch(tenant.id, miss)).toEqual({ id: miss, collection_id: "col_a", query: "zebra" });
    const f = { tenant_id: tenant.id, collection_id: "col_a", from: day, to: day + DAY, origins: ["api" as const] };
    const byQuery = (rows: { query: string }[]) => Object.fromEntries(rows.map(({ query, ...r }) => [query, Object.fromEntries(Object.entries(r).filter(([k]) => k !== "query_id").map(([k, v]) => [k, Number(v)]))]));
    const expected = {
      "gearbox oil": { count: 1, zero_results: 0, low_score: 0, clicks: 1, clicked_searches: 1, position_sum: 1 },
      zebra: { count: 1, zero_results: 1, low_score: 0, clicks: 0, clicked_searches: 0, position_sum: 0 },
    };
    expect(byQuery(await a.rolledQueries(f))).toEqual(expected);
    expect(byQuery(await a.queries(f, 0.3))).toEqual(expected);
    // the hourly latency histogram, by day
    expect((await a.rolledBuckets(f, DAY, 0)).map((b) => ({ ...b, start: Number(b.start) })).sort((x, y) => x.took_ms - y.took_ms)).toEqual([
      { start: day, took_ms: 7, searches: 1, zero_results: 1, low_score: 0 },
      { start: day, took_ms: 12, searches: 1, zero_results: 0, low_score: 0 },
    ]);
    expect(await a.clickedDocuments(f, ["gearbox oil", "zebra"])).toEqual(new Map([["gearbox oil", ["doc_0123456789abcdef0123"]]]));
    const rows = await sqlOf(s, kind)<{ at: number | string; top: Buffer; actor: Buffer | null; filter: string }>(EVENTS[kind]);
    expect(rows.map((r) => Number(r.at))).toEqual([at, at + 1]);
    // PostgreSQL keeps a hit's score in 65,535ths since migration 123 (the best one exactly in top_score)
    const [bytes, q] = kind === "postgres" ? ([2, (x: number) => Math.round(x * 65_535) / 65_535] as const) : ([4, (x: number) => x] as const);
    expect(rows.map((r) => [decodeTop(r.top, bytes), r.actor && unpackId(r.actor, 0)[0], r.filter])).toEqual([
      [[{ document_id: "doc_0123456789abcdef0123", score: q(0.873101) }, { document_id: "page:1", score: q(0.5) }], "key_0123456789abcdef0123", ""],
      [[], null, '{"lang":"en"}'],
    ]);
    // a click on a migrated search counts as any other
    expect(await a.recordFeedback({ tenant_id: tenant.id, search_id: miss, at: at + 9, type: "click", document_id: "doc_x", position: 2 })).toBe(true);
    expect(byQuery(await a.rolledQueries(f)).zebra).toMatchObject({ clicks: 1, clicked_searches: 1, position_sum: 2 });
  });
});
