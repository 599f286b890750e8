import { transaction, type Client, type Pool } from "./db.js";
import type { AnalyticsStore, BucketCounts, EventFilter, PopularQuery, QueryCounts, SearchEventRow } from "../analytics-types.js";
import { atOf, code, DAY, encodeTop, eventIdOf, FEEDBACK_TYPES, firstKeptDay, HOUR, KINDS, millionths, MODES, ORIGINS, packId, POSITIVE_FEEDBACK, rollupDeltas, scopeKey } from "../analytics-codec.js";
import { clickOnTenant, TENANT_SCOPE, tenantScopes, tenantScopesFor, tenantsDue } from "./analytics-tenant.js";

/** Numbered placeholders from $start on. */
const marks = (n: number, start: number) => Array.from({ length: n }, (_, i) => `$${start + i}`).join(", ");

/** an event's time from its key (migration 123: the key is epoch ms * 2^21 and 21 random bits) */
const AT = (alias: string) => `(${alias}.id >> 21)`;

/**
 * The scope ids a report reads: the named collection's, or each of the tenant's collections'. Read
 * first and passed as values: joined as a subquery, the planner cannot estimate how many rows one
 * scope holds (and sorts a large report on disk instead of hashing it), and Citus cannot tell
 * which shard holds them (the log is distributed by scope: docs/decisions.md, "The search log's
 * shape and write path").
 */
async function scopesOf(pool: Pool, f: Pick<EventFilter, "tenant_id" | "collection_id">): Promise<number[]> {
  const found = await pool.query<{ id: number }>(
    `SELECT id FROM analytics_scopes WHERE tenant_id = $1 AND collection_id ${f.collection_id !== undefined ? "= $2" : "<> $2"} ORDER BY id`,
    [f.tenant_id, f.collection_id ?? TENANT_SCOPE],
  );
  return found.rows.map((r) => r.id);
}

/**
 * The scopes whose rollups answer a report: a tenant-wide one reads the tenant's own scope where
 * it has one (analytics-tenant.ts), one statement instead of one per collection.
 */
async function rolledScopesOf(pool: Pool, f: Pick<EventFilter, "tenant_id" | "collection_id">): Promise<number[]> {
  const own = f.collection_id === undefined ? (await tenantScopes(pool, [f.tenant_id])).get(f.tenant_id) : undefined;
  return own !== undefined ? [own] : scopesOf(pool, f);
}

/**
 * Runs a report's statement once per scope (each one shard's work on Citus, where
 * `scope = ANY(...)` of a tenant's several collections would ask several shards) and returns
 * the rows of all; the service merges them by bucket or query text as it merges raw and rolled parts.
 */
async function perScope<T>(pool: Pool, f: EventFilter, read: (scope: number) => Promise<T[]>, scopesFor = scopesOf): Promise<T[]> {
  const scopes = await scopesFor(pool, f);
  return (await Promise.all(scopes.map(read))).flat();
}

/**
 * The window's condition on one scope's search_events `s` (or, with `time`, on that time column
 * of a rollup `s`), its parameters numbered from `start`; given several scopes, on all of them.
 */
function windowOf(f: EventFilter, scope: number | number[], start: number, time?: "hour" | "day"): { sql: string; params: unknown[] } {
  const origins = f.origins.map((o) => code(ORIGINS, o));
  // a rollup's hour or day number n stands for epoch ms n * unit: n * unit >= from when n >= ceil(from / unit)
  const unit = time === "hour" ? HOUR : DAY;
  const range = time
    ? `s.${time} >= ($${start + 1}::bigint + ${unit - 1}) / ${unit} AND s.${time} < ($${start + 2}::bigint + ${unit - 1}) / ${unit}`
    : `s.id >= $${start + 1}::bigint << 21 AND s.id < $${start + 2}::bigint << 21`;
  return {
    sql: `${Array.isArray(scope) ? `s.scope = ANY($${start}::int[])` : `s.scope = $${start}::int`} AND ${range} AND s.origin = ANY($${start + 3}::smallint[])`,
    params: [scope, f.from, f.to, origins],
  };
}

/** Scope ids of the batch's (tenant, collection) pairs; pairs of deleted tenants get none. */
async function scopesFor(pool: Pool, rows: SearchEventRow[]): Promise<Map<string, number>> {
  const pairs = [...new Map(rows.map((r) => [scopeKey(r.tenant_id, r.collection_id), r])).values()];
  const tenants = pairs.map((r) => r.tenant_id);
  const collections = pairs.map((r) => r.collection_id);
  await pool.query(
    `INSERT INTO analytics_scopes (tenant_id, collection_id)
     SELECT p.t, p.c FROM unnest($1::text[], $2::text[]) AS p(t, c) JOIN tenants ON tenants.id = p.t
     ON CONFLICT DO NOTHING`,
    [tenants, collections],
  );
  const found = await pool.query<{ id: number; tenant_id: string; collection_id: string }>(
    `SELECT sc.id, sc.tenant_id, sc.collection_id FROM analytics_scopes sc JOIN unnest($1::text[], $2::text[]) AS p(t, c) ON sc.tenant_id = p.t AND sc.collection_id = p.c`,
    [tenants, collections],
  );
  return new Map(found.rows.map((r) => [scopeKey(r.tenant_id, r.collection_id), r.id]));
}

const FOREIGN_KEY_VIOLATION = "23503";
/** rows per INSERT: 12 parameters each, well under PostgreSQL's 65,535 */
const INSERT_ROWS = 2_000;
const EVENT_COLUMNS = "id, scope, query_id, actor, hits, top_score, took_ms, kind, origin, mode, filter, top";

type Scoped = { scope: number; row: SearchEventRow };

/** what a scope's texts (queries) and actors are interned in: table, value column and its type */
const INTERNED = { query: ["analytics_queries", "text", "text"], actor: ["analytics_actors", "actor", "bytea"] } as const;
const valueKey = (v: string | Buffer) => (typeof v === "string" ? v : v.toString("hex"));

/**
 * The interned ids of (scope, value) pairs, made where new, by scopeKey(scope, value). The INSERT
 * comes first and holds its table lock to the batch's commit, so prune (which locks the table
 * against it) cannot remove a value this batch is about to refer to.
 */
async function internedIds(c: Client, what: keyof typeof INTERNED, pairs: { scope: number; value: string | Buffer }[]): Promise<Map<string, number>> {
  const [table, column, type] = INTERNED[what];
  const unique = [...new Map(pairs.map((p) => [scopeKey(String(p.scope), valueKey(p.value)), p])).values()];
  const scopes = unique.map((p) => p.scope);
  const values = unique.map((p) => p.value);
  if (unique.length === 0) return new Map();
  await c.query(`INSERT INTO ${table} (scope, ${column}) SELECT * FROM unnest($1::int[], $2::${type}[]) ON CONFLICT DO NOTHING`, [scopes, values]);
  const found = await c.query<{ id: number; scope: number; value: string | Buffer }>(
    // the scopes named as well: on Citus only their shards are asked
    `SELECT t.id, t.scope, t.${column} AS value FROM ${table} t JOIN unnest($1::int[], $2::${type}[]) AS p(s, v) ON t.scope = p.s AND t.${column} = p.v
     WHERE t.scope = ANY($1::int[])`,
    [scopes, values],
  );
  return new Map(found.rows.map((r) => [scopeKey(String(r.scope), valueKey(r.value)), r.id]));
}

/** one event's values in EVENT_COLUMNS order (the key as eventIdOf, no actor as 0, no filter as "", 2-byte hit scores) */
function eventValues(x: Scoped, queryId: number, actorId: number): unknown[] {
  const r = x.row;
  const score = r.top_score === null ? null : millionths(r.top_score);
  return [eventIdOf(r.id), x.scope, queryId, actorId, r.hits, score, r.took_ms, code(KINDS, r.kind), code(ORIGINS, r.origin), code(MODES, r.mode), r.filter ?? "", encodeTop(r.top, 2)];
}

const internQueries = (c: Client, pairs: { scope: number; value: string }[]) => internedIds(c, "query", pairs);

/**
 * Inserts the rows (duplicates skipped) and adds the ones written to the rollups, in the caller's
 * transaction: their collections' and, where the tenant has one, the tenant's own (by tenant id).
 */
async function insertBatch(c: Client, rows: Scoped[], lowScore: number, tenants: Map<string, number>): Promise<void> {
  const own = (x: Scoped) => tenants.get(x.row.tenant_id);
  const texts = rows.flatMap((x) => [{ scope: x.scope, value: x.row.query }, ...(own(x) !== undefined ? [{ scope: own(x)!, value: x.row.query }] : [])]);
  const ids = await internedIds(c, "query", texts);
  const actors = rows.flatMap((x) => (x.row.actor === null ? [] : [{ scope: x.scope, value: packId(x.row.actor) }]));
  const actorIds = await internedIds(c, "actor", actors);
  const actorOf = (x: Scoped) => (x.row.actor === null ? 0 : actorIds.get(scopeKey(String(x.scope), packId(x.row.actor).toString("hex")))!);
  const withIds = rows.map((x) => ({ ...x, queryId: ids.get(scopeKey(String(x.scope), x.row.query))! }));
  const width = EVENT_COLUMNS.split(",").length;
  const written: typeof withIds = [];
  for (let i = 0; i < withIds.length; i += INSERT_ROWS) {
    const part = withIds.slice(i, i + INSERT_ROWS);
    const values = part.flatMap((x) => eventValues(x, x.queryId, actorOf(x)));
    const tuples = part.map((_, k) => `(${marks(width, k * width + 1)})`);
    const r = await c.query<{ scope: number; id: string }>(`INSERT INTO search_events (${EVENT_COLUMNS}) VALUES ${tuples.join(", ")} ON CONFLICT DO NOTHING RETURNING scope, id::text AS id`, values);
    // the key as text: the pool reads int8 as a JS number, which cannot hold it exactly
    const keys = new Set(r.rows.map((x) => `${x.scope}|${x.id}`));
    written.push(...part.filter((x) => keys.has(`${x.scope}|${eventIdOf(x.row.id)}`)));
  }
  const ofTenants = written.flatMap((x) => (own(x) === undefined ? [] : [{ ...x, scope: own(x)!, queryId: ids.get(scopeKey(String(own(x)), x.row.query))! }]));
  const { hourly, daily } = rollupDeltas([...written, ...ofTenants], lowScore);
  const col = <T, K extends keyof T>(xs: T[], k: K) => xs.map((x) => x[k]);
  await c.query(
    `INSERT INTO search_hourly (scope, hour, origin, took_ms, searches, zero_results, low_score)
     SELECT * FROM unnest($1::int[], $2::int[], $3::smallint[], $4::int[], $5::int[], $6::int[], $7::int[])
     ON CONFLICT (scope, hour, origin, took_ms) DO UPDATE SET searches = search_hourly.searches + excluded.searches,
       zero_results = search_hourly.zero_results + excluded.zero_results, low_score = search_hourly.low_score + excluded.low_score`,
    [col(hourly, "scope"), hourly.map((h) => h.hour / HOUR), col(hourly, "origin"), col(hourly, "took_ms"), col(hourly, "searches"), col(hourly, "zero_results"), col(hourly, "low_score")],
  );
  await c.query(
    `INSERT INTO query_daily (scope, day, origin, query_id, searches, zero_results, low_score)
     SELECT * FROM unnest($1::int[], $2::int[], $3::smallint[], $4::int[], $5::int[], $6::int[], $7::int[])
     ON CONFLICT (scope, day, origin, query_id) DO UPDATE SET searches = query_daily.searches + excluded.searches,
       zero_results = query_daily.zero_results + excluded.zero_results, low_score = query_daily.low_score + excluded.low_score`,
    [col(daily, "scope"), daily.map((d) => d.day / DAY), col(daily, "origin"), col(daily, "query_id"), col(daily, "searches"), col(daily, "zero_results"), col(daily, "low_score")],
  );
}

/** A batch: its scopes made where new, then one transaction (the tenants' own rollups with it). */
async function recordBatch(pool: Pool, rows: SearchEventRow[], lowScore: number): Promise<void> {
  if (rows.length === 0) return;
  const scopes = await scopesFor(pool, rows);
  const scoped = rows.flatMap((row) => {
    const scope = scopes.get(scopeKey(row.tenant_id, row.collection_id));
    return scope === undefined ? [] : [{ scope, row }];
  });
  if (scoped.length === 0) return;
  const tenants = [...new Set(scoped.map((x) => x.row.tenant_id))];
  const due = await tenantsDue(pool, tenants);
  try {
    await transaction(pool, async (c) => insertBatch(c, scoped, lowScore, await tenantScopesFor(c, tenants, due, internQueries)));
  } catch (err) {
    // a tenant deleted between the scope lookup and the insert: its searches go with it
    if ((err as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw err;
  }
}

export function pgAnalytics(pool: Pool): AnalyticsStore {
  return { ...writes(pool), ...reports(pool) };
}

/** the log's writes, feedback, the switch and retention */
function writes(pool: Pool): Omit<AnalyticsStore, ReportMethod> {
  const lookup = async (tenantId: string, id: string) => {
    const at = atOf(id);
    if (Number.isNaN(at)) return undefined;
    // a search id does not name its collection: the tenant's scopes are read first, so that Citus
    // asks only their shards (one, for a tenant with one collection)
    const scopes = await scopesOf(pool, { tenant_id: tenantId });
    if (scopes.length === 0) return undefined;
    const r = await pool.query<{ scope: number; key: string; origin: number; query_id: number; query: string; collection_id: string }>(
      `SELECT s.scope, s.id::text AS key, s.origin, s.query_id, q.text AS query, sc.collection_id FROM search_events s
       JOIN analytics_scopes sc ON sc.id = s.scope JOIN analytics_queries q ON q.scope = s.scope AND q.id = s.query_id
       WHERE sc.tenant_id = $1 AND s.scope = ANY($3::int[]) AND s.id = $2`,
      [tenantId, eventIdOf(id), scopes],
    );
    return r.rows[0] ? { ...r.rows[0], at, id } : undefined;
  };
  return {
    recordSearches: (rows, lowScore) => recordBatch(pool, rows, lowScore),
    async recordFeedback(row) {
      const s = await lookup(row.tenant_id, row.search_id);
      if (!s) return false;
      const type = code(FEEDBACK_TYPES, row.type);
      await transaction(pool, async (c) => {
        const own = (await tenantScopesFor(c, [row.tenant_id], new Set(), internQueries)).get(row.tenant_id);
        // the search's daily row is locked first, so two first clicks on one search count once
        if (type === 0) await c.query("SELECT 1 FROM query_daily WHERE scope = $1 AND day = $2 AND origin = $3 AND query_id = $4 FOR UPDATE", [s.scope, Math.floor(s.at / DAY), s.origin, s.query_id]);
        const prior = type === 0 ? (await c.query("SELECT 1 FROM search_feedback WHERE scope = $1 AND search = $2 AND type = 0 LIMIT 1", [s.scope, s.key])).rowCount : 0;
        await c.query("INSERT INTO search_feedback (scope, search, at, type, document_id, position) VALUES ($1, $2, $3, $4, $5, $6)", [
          s.scope, s.key, row.at, type, row.document_id, row.position,
        ]);
        if (type !== 0) return;
        await c.query(
          `UPDATE query_daily SET clicks = clicks + 1, position_sum = position_sum + $1, clicked_searches = clicked_searches + $2
           WHERE scope = $3 AND day = $4 AND origin = $5 AND query_id = $6`,
          [row.position, prior ? 0 : 1, s.scope, Math.floor(s.at / DAY), s.origin, s.query_id],
        );
        if (own !== undefined) await clickOnTenant(c, own, s, row.position, !prior);
      });
      return true;
    },
    async findSearch(tenantId, id) {
      const s = await lookup(tenantId, id);
      return s ? { id: s.id, collection_id: s.collection_id, query: s.query } : null;
    },
    async loggingEnabled(tenantId) {
      const r = await pool.query<{ logging: boolean }>("SELECT logging FROM analytics_settings WHERE tenant_id = $1", [tenantId]);
      return r.rows[0]?.logging ?? true;
    },
    async setLogging(tenantId, enabled) {
      await pool.query("INSERT INTO analytics_settings (tenant_id, logging) VALUES ($1, $2) ON CONFLICT (tenant_id) DO UPDATE SET logging = excluded.logging", [tenantId, enabled]);
    },
    async prune(before) {
      return transaction(pool, async (c) => {
        // batches intern queries under a conflicting lock: none refers to a text removed here
        await c.query("LOCK TABLE analytics_queries, analytics_actors IN SHARE ROW EXCLUSIVE MODE");
        await c.query("DELETE FROM search_hourly WHERE hour < $1", [Math.ceil(before / HOUR)]);
        await c.query("DELETE FROM query_daily WHERE day < $1", [firstKeptDay(before) / DAY]);
        await c.query("DELETE FROM search_feedback WHERE search < $1::bigint << 21", [before]);
        const n = (await c.query("DELETE FROM search_events WHERE id < $1::bigint << 21", [before])).rowCount ?? 0;
        await c.query("DELETE FROM analytics_queries q WHERE NOT EXISTS (SELECT 1 FROM query_daily d WHERE d.scope = q.scope AND d.query_id = q.id)");
        await c.query("DELETE FROM analytics_actors a WHERE NOT EXISTS (SELECT 1 FROM search_events s WHERE s.scope = a.scope AND s.actor = a.id)");
        return n;
      });
    },
  };
}

type RollupMethod = "rolledBuckets" | "rolledQueries" | "popularQueries";
type ReportMethod = "buckets" | "queries" | "clickedDocuments" | "appendImplicitCases" | RollupMethod;

/** the reports' reads and the report-to-suite write */
function reports(pool: Pool): Pick<AnalyticsStore, ReportMethod> {
  return {
    ...rollups(pool),
    buckets: (f, interval, offset, lowScore) =>
      perScope(pool, f, async (scope) => {
        const w = windowOf(f, scope, 4);
        const r = await pool.query<BucketCounts>(
          `SELECT ((${AT("s")} - $1::bigint) / $2::bigint) * $2::bigint + $1::bigint AS start, s.took_ms, count(*)::int AS searches,
                  count(*) FILTER (WHERE s.hits = 0)::int AS zero_results, count(*) FILTER (WHERE s.hits > 0 AND s.top_score < $3)::int AS low_score
           FROM search_events s WHERE ${w.sql} GROUP BY 1, 2`,
          [offset, interval, millionths(lowScore), ...w.params],
        );
        return r.rows.map((b) => ({ ...b, start: Number(b.start) }));
      }),
    queries: (f, lowScore) =>
      perScope(pool, f, async (scope) => {
        const w = windowOf(f, scope, 2);
        const r = await pool.query<QueryCounts>(
          // each text by its key (a few hundred in a day's edge), not a hash of all the scope's texts
          `SELECT (SELECT q.text FROM analytics_queries q WHERE q.scope = $2::int AND q.id = a.query_id) AS query, a.* FROM (
             SELECT s.query_id, count(*)::int AS count, count(*) FILTER (WHERE s.hits = 0)::int AS zero_results,
                    count(*) FILTER (WHERE s.hits > 0 AND s.top_score < $1)::int AS low_score,
                    coalesce(sum(c.clicks), 0)::int AS clicks, count(c.clicks)::int AS clicked_searches, coalesce(sum(c.positions), 0)::bigint AS position_sum
             FROM search_events s
             LEFT JOIN (SELECT fb.scope, fb.search, count(*) AS clicks, sum(fb.position) AS positions
                        FROM search_feedback fb WHERE fb.type = 0 AND fb.scope = $2::int AND fb.search >= $3::bigint << 21 AND fb.search < $4::bigint << 21
                        GROUP BY fb.scope, fb.search) c
               ON c.scope = s.scope AND c.search = s.id
             WHERE ${w.sql} GROUP BY s.query_id) a`,
          [millionths(lowScore), ...w.params],
        );
        return r.rows;
      }),
    clickedDocuments: (f, queries) => clickedDocuments(pool, f, queries),
    async appendImplicitCases(tenantId, suiteId, cases) {
      await transaction(pool, async (c) => {
        // the suite row is locked so two appends never take the same positions
        await c.query("SELECT 1 FROM benchmark_suites WHERE tenant_id = $1 AND id = $2 FOR UPDATE", [tenantId, suiteId]);
        await c.query(
          `INSERT INTO benchmark_cases (id, tenant_id, suite_id, position, query, relevant_document_ids, created_at, judgment)
           SELECT x.id, $1, $2, (SELECT coalesce(max(position), -1) FROM benchmark_cases WHERE tenant_id = $1 AND suite_id = $2) + x.n, x.query, x.rel, x.created_at, 'implicit'
           FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS x(id, query, rel, created_at, n)`,
          [tenantId, suiteId, cases.map((x) => x.id), cases.map((x) => x.query), cases.map((x) => JSON.stringify(x.relevant_document_ids)), cases.map((x) => x.created_at)],
        );
      });
    },
  };
}

/** documents given positive feedback on the queries' searches, per query most often first: counted per scope, summed over them */
async function clickedDocuments(pool: Pool, f: EventFilter, queries: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (queries.length === 0) return out;
  const rows = await perScope(pool, f, async (scope) => {
    const w = windowOf(f, scope, 2);
    const r = await pool.query<{ query: string; document_id: string; n: number }>(
      `SELECT q.text AS query, fb.document_id, count(*)::int AS n FROM search_feedback fb
       JOIN search_events s ON s.scope = fb.scope AND s.id = fb.search
       JOIN analytics_queries q ON q.scope = s.scope AND q.id = s.query_id
       WHERE fb.type IN (${POSITIVE_FEEDBACK.join(", ")}) AND fb.scope = $2::int AND q.text = ANY($1::text[]) AND ${w.sql}
       GROUP BY q.text, fb.document_id`,
      [queries, ...w.params],
    );
    return r.rows;
  });
  const counts = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const docs = counts.get(r.query) ?? new Map<string, number>();
    counts.set(r.query, docs.set(r.document_id, (docs.get(r.document_id) ?? 0) + r.n));
  }
  // most often first, ties by id (code points: ids are ASCII)
  const byCount = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  for (const [query, docs] of counts) out.set(query, [...docs].sort(byCount).map(([d]) => d));
  return out;
}

/** reads of the daily and hourly rollups: long-range reports and suggest's popular queries */
function rollups(pool: Pool): Pick<AnalyticsStore, RollupMethod> {
  return {
    rolledBuckets: (f, interval, offset) =>
      perScope(pool, f, async (scope) => {
        const w = windowOf(f, scope, 3, "hour");
        const r = await pool.query<BucketCounts>(
          `SELECT ((s.hour::bigint * ${HOUR} - $1::bigint) / $2::bigint) * $2::bigint + $1::bigint AS start, took_ms,
                  sum(searches)::int AS searches, sum(zero_results)::int AS zero_results, sum(low_score)::int AS low_score FROM search_hourly s
           WHERE ${w.sql} GROUP BY 1, 2`,
          [offset, interval, ...w.params],
        );
        return r.rows.map((b) => ({ ...b, start: Number(b.start) }));
      }, rolledScopesOf),
    rolledQueries: (f) =>
      perScope(pool, f, async (scope) => {
        const w = windowOf(f, scope, 1, "day");
        const r = await pool.query<QueryCounts>(
          `SELECT q.text AS query, a.* FROM (
             SELECT query_id, sum(searches)::int AS count, sum(zero_results)::int AS zero_results, sum(low_score)::int AS low_score, sum(clicks)::int AS clicks,
                    sum(clicked_searches)::int AS clicked_searches, sum(position_sum)::bigint AS position_sum FROM query_daily s
             WHERE ${w.sql} GROUP BY query_id) a JOIN analytics_queries q ON q.scope = $1::int AND q.id = a.query_id`,
          w.params,
        );
        return r.rows;
      }, rolledScopesOf),
    async popularQueries(f, rule) {
      // one statement over the scopes (a day counts once whichever collection it was searched in):
      // suggest names one collection, so on Citus it is one shard's work
      const scopes = await scopesOf(pool, f);
      // a collection nobody searched yet: nothing to ask (Citus would ask every shard for no scope)
      if (scopes.length === 0) return [];
      const w = windowOf(f, scopes, 1, "day");
      // starts_with, not a range on the text: the database's collation need not order by code point
      const r = await pool.query<PopularQuery>(
        `SELECT q.text AS query, sum(s.searches - s.zero_results)::int AS found FROM query_daily s JOIN analytics_queries q ON q.scope = s.scope AND q.id = s.query_id
         WHERE ${w.sql} AND s.searches > s.zero_results AND starts_with(q.text, $5)
         GROUP BY q.text HAVING sum(s.searches - s.zero_results) >= $6 AND count(DISTINCT s.day) >= $7
         ORDER BY found DESC, q.text COLLATE "C" LIMIT $8`,
        [...w.params, rule.prefix, rule.minFound, rule.minDays, rule.limit],
      );
      return r.rows;
    },
  };
}
