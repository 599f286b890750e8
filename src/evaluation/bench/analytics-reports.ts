// Search-log reports over many logged searches of one tenant (issue 29 targets: ≤ 300 ms over
// 1,000,000 events, ≤ 200 bytes an event), on SQLite and on PostgreSQL, through the store and the
// report functions the API uses. Queries follow a Zipf-like popularity over 5,000 texts; 8 % find
// nothing; every tenth search gets a click. Events are written in random time order over 30 days
// (the worst case for the indexes), or with BENCH_ORDER=time in time order, as a live log writes them.
// Usage: npx tsx src/evaluation/bench/analytics-reports.ts [sqlite|postgres] [events = 1000000] [postgres admin url]
// With BENCH_CITUS_WORKERS=host:port,... the admin url is a Citus coordinator (as `node
// scripts/citus/cluster.mjs` prints): the database is made on every node and the log distributed.
// BENCH_COLLECTIONS=K spreads the events over K collections of the tenant (K scopes, on Citus
// up to K shards): the reports are timed for the first collection and for the whole tenant.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openSqliteStore } from "../../store/sqlite/index.js";
import { openPostgresStore } from "../../store/postgres/index.js";
import type { Store } from "../../store/types.js";
import type { EventFilter, SearchEventRow } from "../../store/analytics-types.js";
import { newSearchKey } from "../../store/analytics-codec.js";
import { mergeQueryCounts, queryStat, series, sortQueries, splitWindow } from "../../services/analytics/analytics-reports.js";
import { DAY as DAY_MS, HOUR } from "../../store/analytics-codec.js";
import { popularQueries } from "../../services/analytics/popular-queries.js";
import { dropOnWorkers, parseWorkers, prepareCitusNodes } from "./citus.js";

const kind = process.argv[2] ?? "sqlite";
const N = Number(process.argv[3] ?? 1_000_000);
const ADMIN = process.argv[4] ?? "postgres://postgres@127.0.0.1:5432/postgres";
const DAY = 86_400_000;
const dbName = `quarry_anbench_${process.pid}`;
const citusWorkers = process.env.BENCH_CITUS_WORKERS ? parseWorkers(process.env.BENCH_CITUS_WORKERS) : [];

type Sizes = Record<string, number>;
/** bytes of each table with its indexes, and (PostgreSQL) the free space inside some of their heaps */
type Measured = { sizes: Sizes; free: Sizes };
async function open(): Promise<{ store: Store; bytes: () => Promise<Measured>; done: () => Promise<void> }> {
  if (kind === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "anbench-"));
    const store = openSqliteStore(dir);
    const db = store.db;
        // bytes of the analytics tables, rollups and indexes (dbstat), not of the whole file
    const bytes = async () => ({
      free: {},
      sizes: Object.fromEntries(
        (db.prepare("SELECT name, sum(pgsize) AS b FROM dbstat WHERE name IN ('search_events', 'search_feedback', 'search_feedback_search', 'search_hourly', 'query_daily', 'analytics_queries', 'sqlite_autoindex_analytics_queries_1') GROUP BY name").all() as { name: string; b: number }[]).map((r) => [r.name, r.b]),
      ),
    });
    return { store, bytes, done: async () => (await store.close(), fs.rmSync(dir, { recursive: true, force: true })) };
  }
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  if (citusWorkers.length > 0) await prepareCitusNodes(ADMIN, citusWorkers, dbName);
  const url = new URL(ADMIN);
  url.pathname = `/${dbName}`;
  const store = await openPostgresStore(url.toString());
  const bytes = async () => {
    // as autovacuum leaves a table that has grown: visibility map and planner statistics current
    await store.pool.query("VACUUM ANALYZE search_events, search_feedback, search_hourly, query_daily, analytics_queries, analytics_actors");
    // each table with its indexes and TOAST
    // on Citus the shards' sizes, on every node
    const size = citusWorkers.length > 0 ? "citus_total_relation_size" : "pg_total_relation_size";
    const r = await store.pool.query<{ name: string; b: string }>(
      `SELECT t AS name, ${size}(t::regclass) AS b FROM unnest(ARRAY['search_events', 'search_feedback', 'search_hourly', 'query_daily', 'analytics_queries', 'analytics_actors']) AS t`,
    );
    const sizes: Sizes = Object.fromEntries(r.rows.map((x) => [x.name, Number(x.b)]));
    // Free space inside the heaps (pgstattuple, where installed): what VACUUM reclaimed from dead
    // rollup versions stays in the file, counted above, and is reused by later rows; reported
    // apart so the figure with it and the one without can both be read.
    const stat = await (citusWorkers.length > 0 ? Promise.reject(new Error("on the shards")) : store.pool.query("CREATE EXTENSION IF NOT EXISTS pgstattuple")).then(
      () => store.pool.query<{ name: string; free: string }>(`SELECT t AS name, (pgstattuple(t::regclass)).free_space AS free FROM unnest(ARRAY['search_events', 'search_hourly', 'query_daily']) AS t`),
      () => null,
    );
    return { sizes, free: Object.fromEntries((stat?.rows ?? []).map((x) => [x.name, Number(x.free)])) };
  };
  const drop = async () => {
    // FORCE: Citus's maintenance daemon keeps a connection to the database
    await admin.query(`DROP DATABASE ${dbName}${citusWorkers.length > 0 ? " WITH (FORCE)" : ""}`);
    await dropOnWorkers(ADMIN, citusWorkers, dbName);
  };
  return { store, bytes, done: async () => (await store.close(), await drop(), await admin.end()) };
}

const { store, bytes, done } = await open();
const tenant = { id: "ten_0123456789abcdef0123", name: "Bench", slug: "bench", plan: "enterprise", verified: true, created_at: new Date().toISOString() };
await store.tenants.createWithKey(tenant, { id: "key_0123456789abcdef0123", tenant_id: tenant.id, name: "k", prefix: "qk_x", hash: "0".repeat(64), scopes: ["admin"], created_at: tenant.created_at, expires_at: null, revoked_at: null, last_used_at: null });
const collection = "col_3k9x2mqp7r1t8w0z5v4y";
const collections = Array.from({ length: Math.max(1, Number(process.env.BENCH_COLLECTIONS ?? 1)) }, (_, i) => (i === 0 ? collection : `col_${String(i).padStart(20, "0")}`));
const words = ["gearbox", "oil", "interval", "blade", "erosion", "tower", "bolt", "torque", "yaw", "motor", "generator", "bearing", "grease", "cable", "sensor", "alarm"];
const queries = Array.from({ length: 5000 }, (_, i) => `${words[i % 16]} ${words[(i >> 4) % 16]} ${i}`);
let seed = 42;
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const now = Date.now();
const inTimeOrder = process.env.BENCH_ORDER === "time";
const t0 = performance.now();
const clicks: { id: string }[] = [];
for (let done = 0; done < N; ) {
  const batch: SearchEventRow[] = [];
  for (let i = 0; i < 5000 && done < N; i++, done++) {
    const at = inTimeOrder ? now - 30 * DAY + Math.floor((done * 30 * DAY) / N) : now - Math.floor(rand() * 30 * DAY);
    const zero = rand() < 0.08;
    const score = Math.round(rand() * 1e6) / 1e6;
    const id = newSearchKey(at);
    batch.push({
      id, tenant_id: tenant.id, collection_id: collections[done % collections.length]!, at, kind: "search", origin: "api",
      query: queries[Math.floor(5000 * rand() ** 3)]!, mode: "hybrid", filter: null, hits: zero ? 0 : 1 + Math.floor(rand() * 40), top_score: zero ? null : score,
      top: zero ? [] : [0, 1, 2].map((k) => ({ document_id: `doc_${(done * 7 + k).toString(16).padStart(20, "0")}`, score: score / (k + 1) })),
      took_ms: Math.floor(3 + rand() * rand() * 120), actor: "key_0123456789abcdef0123",
    });
    if (!zero && done % 10 === 0) clicks.push({ id });
  }
  await store.analytics.recordSearches(batch, 0.3);
}
const loadS = (performance.now() - t0) / 1000;
const clickCount = Math.min(clicks.length, kind === "sqlite" ? clicks.length : 20_000);
for (const c of clicks.slice(0, clickCount)) {
  await store.analytics.recordFeedback({ tenant_id: tenant.id, search_id: c.id, at: now, type: "click", document_id: "doc_x", position: 1 });
}
const { sizes, free } = await bytes();
const size = Object.values(sizes).reduce((a, b) => a + b, 0);
const freeSize = Object.values(free).reduce((a, b) => a + b, 0);

const collectionFilter: EventFilter = { tenant_id: tenant.id, collection_id: collection, from: now - 30 * DAY, to: now + 1, origins: ["api", "mcp"] };
async function timed(fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm the cache once
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return Math.round(times.sort((a, b) => a - b)[1]!);
}
// as the service answers: whole hours and days from the rollups, the edges from raw events
async function seriesReport(f: EventFilter = collectionFilter) {
  const { raw, rolled } = splitWindow(f.from, f.to, HOUR);
  const parts = await Promise.all([...raw.map(([from, to]) => store.analytics.buckets({ ...f, from, to }, HOUR, 0, 0.3)), ...(rolled ? [store.analytics.rolledBuckets({ ...f, from: rolled[0], to: rolled[1] }, DAY_MS, 0)] : [])]);
  return series(parts.flat(), f.from, f.to, "day");
}
async function queriesReport(f: EventFilter = collectionFilter) {
  const { raw, rolled } = splitWindow(f.from, f.to, DAY_MS);
  const parts = await Promise.all([...raw.map(([from, to]) => store.analytics.queries({ ...f, from, to }, 0.3)), ...(rolled ? [store.analytics.rolledQueries({ ...f, from: rolled[0], to: rolled[1] })] : [])]);
  return sortQueries(mergeQueryCounts(parts.flat()).map(queryStat), "zero_results").slice(0, 20);
}
const seriesMs = await timed(() => seriesReport());
const queriesMs = await timed(() => queriesReport());
const { collection_id: _, ...tenantFilter } = collectionFilter;
const tenantWide = collections.length > 1 ? { tenant_searches_report_ms: await timed(() => seriesReport(tenantFilter)), tenant_queries_report_ms: await timed(() => queriesReport(tenantFilter)) } : {};
const findMs = await timed(async () => store.analytics.findSearch(tenant.id, clicks[0]!.id));
// suggest's popular queries (services/analytics/popular-queries.ts), a short and a longer prefix
const popular = popularQueries(store.analytics, () => now);
const suggestMs = await timed(async () => Promise.all(["g", "gearbox o"].map((p) => popular(tenant.id, collection, p, 5))));
console.log(JSON.stringify({ store: citusWorkers.length > 0 ? "citus" : kind, order: inTimeOrder ? "time" : "random", events: N, collections: collections.length, clicks: clickCount, load_s: +loadS.toFixed(1), bytes_per_event: Math.round(size / N), searches_report_ms: seriesMs, queries_report_ms: queriesMs, ...tenantWide, find_search_ms: findMs, popular_suggest_ms: suggestMs,
  bytes_per_event_by_table: Object.fromEntries(Object.entries(sizes).map(([k, v]) => [k, +(v / N).toFixed(1)])),
  ...(freeSize > 0 ? { bytes_per_event_without_heap_free_space: Math.round((size - freeSize) / N), heap_free_space_per_event: Object.fromEntries(Object.entries(free).map(([k, v]) => [k, +(v / N).toFixed(1)])) } : {}) }));
await done();
