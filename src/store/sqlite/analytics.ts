import type { DB } from "./db.js";
import type { AnalyticsStore, BucketCounts, EventFilter, PopularQuery, QueryCounts } from "../analytics-types.js";
import { atOf, code, DAY, EVENT_COLUMNS, eventValues, FEEDBACK_TYPES, firstKeptDay, millionths, ORIGINS, POSITIVE_FEEDBACK, rndOf, rollupDeltas, scopeKey } from "../analytics-codec.js";
import type { SearchEventRow } from "../analytics-types.js";

/** The scopes (tenant, and collection when named) of a window. */
function scopesOf(f: EventFilter): { sql: string; params: unknown[] } {
  return f.collection_id === undefined
    ? { sql: "SELECT id FROM analytics_scopes WHERE tenant_id = ?", params: [f.tenant_id] }
    : { sql: "SELECT id FROM analytics_scopes WHERE tenant_id = ? AND collection_id = ?", params: [f.tenant_id, f.collection_id] };
}

/** The window's condition on search_events `s` and its parameters. */
function windowOf(f: EventFilter): { sql: string; params: unknown[] } {
  const scopes = scopesOf(f);
  const origins = f.origins.map((o) => code(ORIGINS, o));
  return {
    sql: `s.scope IN (${scopes.sql}) AND s.at >= ? AND s.at < ? AND s.origin IN (${origins.map(() => "?").join(", ")})`,
    params: [...scopes.params, f.from, f.to, ...origins],
  };
}

export function sqliteAnalytics(db: DB): AnalyticsStore {
  return { ...writes(db), ...reports(db) };
}

/** The batch write: one transaction; the scope of a tenant deleted meanwhile is not made, so its rows are dropped. */
function recorder(db: DB) {
  const ensureScope = db.prepare(
    "INSERT OR IGNORE INTO analytics_scopes (tenant_id, collection_id) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM tenants WHERE id = ?)",
  );
  const scopeId = db.prepare("SELECT id FROM analytics_scopes WHERE tenant_id = ? AND collection_id = ?").pluck();
  const insertEvent = db.prepare(`INSERT OR IGNORE INTO search_events (${EVENT_COLUMNS}) VALUES (${EVENT_COLUMNS.split(",").map(() => "?").join(", ")})`);
  const ensureQuery = db.prepare("INSERT OR IGNORE INTO analytics_queries (scope, text) VALUES (?, ?)");
  const queryId = db.prepare("SELECT id FROM analytics_queries WHERE scope = ? AND text = ?").pluck();
  const addHourly = db.prepare(
    `INSERT INTO search_hourly (scope, hour, origin, took_ms, searches, zero_results, low_score) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET searches = searches + excluded.searches, zero_results = zero_results + excluded.zero_results, low_score = low_score + excluded.low_score`,
  );
  const addDaily = db.prepare(
    `INSERT INTO query_daily (scope, day, origin, query_id, searches, zero_results, low_score) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET searches = searches + excluded.searches, zero_results = zero_results + excluded.zero_results, low_score = low_score + excluded.low_score`,
  );
  return db.transaction((rows: SearchEventRow[], lowScore: number) => {
    const scopes = new Map<string, number | undefined>();
    const queries = new Map<string, number>();
    const idOf = (scope: number, text: string) => {
      const key = scopeKey(String(scope), text);
      let id = queries.get(key);
      if (id === undefined) {
        ensureQuery.run(scope, text);
        queries.set(key, (id = queryId.get(scope, text) as number));
      }
      return id;
    };
    const written: { scope: number; queryId: number; row: SearchEventRow }[] = [];
    for (const r of rows) {
      const key = scopeKey(r.tenant_id, r.collection_id);
      if (!scopes.has(key)) {
        ensureScope.run(r.tenant_id, r.collection_id, r.tenant_id);
        scopes.set(key, scopeId.get(r.tenant_id, r.collection_id) as number | undefined);
      }
      const scope = scopes.get(key);
      if (scope === undefined) continue;
      const qid = idOf(scope, r.query);
      if (insertEvent.run(scope, ...eventValues(r, qid)).changes > 0) written.push({ scope, queryId: qid, row: r });
    }
    const { hourly, daily } = rollupDeltas(written, lowScore);
    for (const h of hourly) addHourly.run(h.scope, h.hour, h.origin, h.took_ms, h.searches, h.zero_results, h.low_score);
    for (const d of daily) addDaily.run(d.scope, d.day, d.origin, d.query_id, d.searches, d.zero_results, d.low_score);
  });
}

/** the log's writes, feedback, the switch and retention */
function writes(db: DB): Omit<AnalyticsStore, ReportMethod> {
  const findSearch = db.prepare(
    `SELECT s.scope, s.at, s.rnd, s.origin, s.query_id, q.text AS query, sc.collection_id FROM search_events s
     JOIN analytics_scopes sc ON sc.id = s.scope JOIN analytics_queries q ON q.id = s.query_id
     WHERE sc.tenant_id = ? AND s.at = ? AND s.rnd = ?`,
  );
  const record = recorder(db);
  type Found = { scope: number; at: number; rnd: number; origin: number; query_id: number; query: string; collection_id: string };
  const lookup = (tenantId: string, id: string) => {
    const at = atOf(id);
    return Number.isNaN(at) ? undefined : (findSearch.get(tenantId, at, rndOf(id)) as Found | undefined);
  };
  const feedback = db.transaction((s: Found, row: Parameters<AnalyticsStore["recordFeedback"]>[0]) => {
    const type = code(FEEDBACK_TYPES, row.type);
    const first = type === 0 && !db.prepare("SELECT 1 FROM search_feedback WHERE scope = ? AND search_at = ? AND search_rnd = ? AND type = 0").get(s.scope, s.at, s.rnd);
    db.prepare("INSERT INTO search_feedback (scope, search_at, search_rnd, at, type, document_id, position) VALUES (?, ?, ?, ?, ?, ?, ?)").run(
      s.scope, s.at, s.rnd, row.at, type, row.document_id, row.position,
    );
    if (type !== 0) return;
    db.prepare(
      `UPDATE query_daily SET clicks = clicks + 1, position_sum = position_sum + ?, clicked_searches = clicked_searches + ?
       WHERE scope = ? AND day = ? AND origin = ? AND query_id = ?`,
    ).run(row.position, first ? 1 : 0, s.scope, Math.floor(s.at / DAY) * DAY, s.origin, s.query_id);
  });
  return {
    async recordSearches(rows, lowScore) {
      if (rows.length > 0) record(rows, lowScore);
    },
    async recordFeedback(row) {
      const s = lookup(row.tenant_id, row.search_id);
      if (!s) return false;
      feedback(s, row);
      return true;
    },
    async findSearch(tenantId, id) {
      const s = lookup(tenantId, id);
      return s ? { id, collection_id: s.collection_id, query: s.query } : null;
    },
    async loggingEnabled(tenantId) {
      const v = db.prepare("SELECT logging FROM analytics_settings WHERE tenant_id = ?").pluck().get(tenantId) as number | undefined;
      return v === undefined || v === 1;
    },
    async setLogging(tenantId, enabled) {
      db.prepare("INSERT INTO analytics_settings (tenant_id, logging) VALUES (?, ?) ON CONFLICT (tenant_id) DO UPDATE SET logging = excluded.logging").run(tenantId, enabled ? 1 : 0);
    },
    async prune(before) {
      return db.transaction(() => {
        db.prepare("DELETE FROM search_hourly WHERE hour < ?").run(before);
        db.prepare("DELETE FROM query_daily WHERE day < ?").run(firstKeptDay(before));
        db.prepare("DELETE FROM search_feedback WHERE search_at < ?").run(before);
        const n = db.prepare("DELETE FROM search_events WHERE at < ?").run(before).changes;
        // every event kept has its day's row, so a text no row names is no longer used
        db.prepare("DELETE FROM analytics_queries WHERE id NOT IN (SELECT query_id FROM query_daily)").run();
        return n;
      })();
    },
  };
}

type RollupMethod = "rolledBuckets" | "rolledQueries" | "popularQueries";
type ReportMethod = "buckets" | "queries" | "clickedDocuments" | "appendImplicitCases" | RollupMethod;

/** the reports' reads and the report-to-suite write */
function reports(db: DB): Pick<AnalyticsStore, ReportMethod> {
  return {
    ...rollups(db),
    async buckets(f, interval, offset, lowScore) {
      const w = windowOf(f);
      return db
        .prepare(
          `SELECT ((s.at - CAST(? AS INTEGER)) / CAST(? AS INTEGER)) * CAST(? AS INTEGER) + CAST(? AS INTEGER) AS start, s.took_ms, count(*) AS searches,
                  sum(s.hits = 0) AS zero_results, sum(s.hits > 0 AND s.top_score < ?) AS low_score
           FROM search_events s WHERE ${w.sql} GROUP BY 1, 2`,
        )
        .all(offset, interval, interval, offset, millionths(lowScore), ...w.params) as BucketCounts[];
    },
    async queries(f, lowScore) {
      const w = windowOf(f);
      const sc = scopesOf(f);
      return db
        .prepare(
          `SELECT q.text AS query, a.* FROM (
             SELECT s.query_id, count(*) AS count, sum(s.hits = 0) AS zero_results, sum(s.hits > 0 AND s.top_score < ?) AS low_score,
                    coalesce(sum(c.clicks), 0) AS clicks, count(c.clicks) AS clicked_searches, coalesce(sum(c.positions), 0) AS position_sum
             FROM search_events s
             LEFT JOIN (SELECT fb.scope, fb.search_at, fb.search_rnd, count(*) AS clicks, sum(fb.position) AS positions
                        FROM search_feedback fb WHERE fb.type = 0 AND fb.scope IN (${sc.sql}) AND fb.search_at >= ? AND fb.search_at < ?
                        GROUP BY fb.scope, fb.search_at, fb.search_rnd) c
               ON c.scope = s.scope AND c.search_at = s.at AND c.search_rnd = s.rnd
             WHERE ${w.sql} GROUP BY s.query_id) a JOIN analytics_queries q ON q.id = a.query_id`,
        )
        .all(millionths(lowScore), ...sc.params, f.from, f.to, ...w.params) as QueryCounts[];
    },
    async clickedDocuments(f, queries) {
      const out = new Map<string, string[]>();
      if (queries.length === 0) return out;
      const w = windowOf(f);
      const rows = db
        .prepare(
          `SELECT q.text AS query, fb.document_id, count(*) AS n FROM search_feedback fb
           JOIN search_events s ON s.scope = fb.scope AND s.at = fb.search_at AND s.rnd = fb.search_rnd
           JOIN analytics_queries q ON q.id = s.query_id
           WHERE fb.type IN (${POSITIVE_FEEDBACK.join(", ")}) AND q.text IN (${queries.map(() => "?").join(", ")}) AND ${w.sql}
           GROUP BY q.text, fb.document_id ORDER BY q.text, n DESC, fb.document_id`,
        )
        .all(...queries, ...w.params) as { query: string; document_id: string }[];
      for (const r of rows) out.set(r.query, [...(out.get(r.query) ?? []), r.document_id]);
      return out;
    },
    async appendImplicitCases(tenantId, suiteId, cases) {
      db.transaction(() => {
        let pos = (db.prepare("SELECT coalesce(max(position), -1) FROM benchmark_cases WHERE tenant_id = ? AND suite_id = ?").pluck().get(tenantId, suiteId) as number) + 1;
        const insert = db.prepare(
          `INSERT INTO benchmark_cases (id, tenant_id, suite_id, position, query, relevant_document_ids, created_at, judgment) VALUES (?, ?, ?, ?, ?, ?, ?, 'implicit')`,
        );
        for (const c of cases) insert.run(c.id, tenantId, suiteId, pos++, c.query, JSON.stringify(c.relevant_document_ids), c.created_at);
      })();
    },
  };
}

/** reads of the daily and hourly rollups: long-range reports and suggest's popular queries */
function rollups(db: DB): Pick<AnalyticsStore, RollupMethod> {
  return {
    async rolledBuckets(f, interval, offset) {
      const sc = scopesOf(f);
      const origins = f.origins.map((o) => code(ORIGINS, o));
      return db
        .prepare(
          `SELECT ((hour - CAST(? AS INTEGER)) / CAST(? AS INTEGER)) * CAST(? AS INTEGER) + CAST(? AS INTEGER) AS start, took_ms,
                  sum(searches) AS searches, sum(zero_results) AS zero_results, sum(low_score) AS low_score FROM search_hourly
           WHERE scope IN (${sc.sql}) AND hour >= ? AND hour < ? AND origin IN (${origins.map(() => "?").join(", ")}) GROUP BY 1, 2`,
        )
        .all(offset, interval, interval, offset, ...sc.params, f.from, f.to, ...origins) as BucketCounts[];
    },
    async rolledQueries(f) {
      const sc = scopesOf(f);
      const origins = f.origins.map((o) => code(ORIGINS, o));
      return db
        .prepare(
          `SELECT q.text AS query, a.* FROM (
             SELECT query_id, sum(searches) AS count, sum(zero_results) AS zero_results, sum(low_score) AS low_score, sum(clicks) AS clicks,
                    sum(clicked_searches) AS clicked_searches, sum(position_sum) AS position_sum FROM query_daily
             WHERE scope IN (${sc.sql}) AND day >= ? AND day < ? AND origin IN (${origins.map(() => "?").join(", ")}) GROUP BY query_id) a
           JOIN analytics_queries q ON q.id = a.query_id`,
        )
        .all(...sc.params, f.from, f.to, ...origins) as QueryCounts[];
    },
    async popularQueries(f, rule) {
      const sc = scopesOf(f);
      const origins = f.origins.map((o) => code(ORIGINS, o));
      // texts compare as UTF-8 bytes here: the prefix's range uses the (scope, text) index, the substr check bounds it exactly
      return db
        .prepare(
          `SELECT q.text AS query, sum(d.searches - d.zero_results) AS found FROM analytics_queries q JOIN query_daily d ON d.scope = q.scope AND d.query_id = q.id
           WHERE q.scope IN (${sc.sql}) AND q.text >= ? AND q.text < ? AND substr(q.text, 1, length(?)) = ?
             AND d.day >= ? AND d.day < ? AND d.origin IN (${origins.map(() => "?").join(", ")}) AND d.searches > d.zero_results
           GROUP BY q.text HAVING sum(d.searches - d.zero_results) >= ? AND count(DISTINCT d.day) >= ?
           ORDER BY found DESC, q.text LIMIT ?`,
        )
        .all(...sc.params, rule.prefix, rule.prefix + "\u{10FFFF}", rule.prefix, rule.prefix, f.from, f.to, ...origins, rule.minFound, rule.minDays, rule.limit) as PopularQuery[];
    },
  };
}
