import type { DB } from "./db.js";
import type { AnalyticsStore, BucketCounts, EventFilter, QueryCounts } from "../analytics-types.js";
import { atOf, code, EVENT_COLUMNS, eventValues, FEEDBACK_TYPES, millionths, ORIGINS, POSITIVE_FEEDBACK, scopeKey } from "../analytics-codec.js";

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

/** the log's writes, feedback, the switch and retention */
function writes(db: DB): Omit<AnalyticsStore, ReportMethod> {
  const ensureScope = db.prepare(
    "INSERT OR IGNORE INTO analytics_scopes (tenant_id, collection_id) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM tenants WHERE id = ?)",
  );
  const scopeId = db.prepare("SELECT id FROM analytics_scopes WHERE tenant_id = ? AND collection_id = ?").pluck();
  const insertEvent = db.prepare(`INSERT OR IGNORE INTO search_events (${EVENT_COLUMNS}) VALUES (${EVENT_COLUMNS.split(",").map(() => "?").join(", ")})`);
  const findSearch = db.prepare(
    `SELECT s.id, s.scope, s.at, s.query, sc.collection_id FROM search_events s JOIN analytics_scopes sc ON sc.id = s.scope
     WHERE sc.tenant_id = ? AND s.at = ? AND s.id = ?`,
  );
  // one transaction per batch; the scope of a tenant deleted meanwhile is not made, so its rows are dropped
  const record = db.transaction((rows: Parameters<AnalyticsStore["recordSearches"]>[0]) => {
    const scopes = new Map<string, number | undefined>();
    for (const r of rows) {
      const key = scopeKey(r.tenant_id, r.collection_id);
      if (!scopes.has(key)) {
        ensureScope.run(r.tenant_id, r.collection_id, r.tenant_id);
        scopes.set(key, scopeId.get(r.tenant_id, r.collection_id) as number | undefined);
      }
      const scope = scopes.get(key);
      if (scope !== undefined) insertEvent.run(scope, ...eventValues(r));
    }
  });
  const lookup = (tenantId: string, id: string) => findSearch.get(tenantId, atOf(id), id) as { id: string; scope: number; at: number; query: string; collection_id: string } | undefined;
  return {
    async recordSearches(rows) {
      if (rows.length > 0) record(rows);
    },
    async recordFeedback(row) {
      const s = lookup(row.tenant_id, row.search_id);
      if (!s) return false;
      db.prepare("INSERT INTO search_feedback (scope, search_at, search_id, at, type, document_id, position) VALUES (?, ?, ?, ?, ?, ?, ?)").run(
        s.scope, s.at, s.id, row.at, code(FEEDBACK_TYPES, row.type), row.document_id, row.position,
      );
      return true;
    },
    async findSearch(tenantId, id) {
      const s = lookup(tenantId, id);
      return s ? { id: s.id, collection_id: s.collection_id, query: s.query } : null;
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
        db.prepare("DELETE FROM search_feedback WHERE search_at < ?").run(before);
        return db.prepare("DELETE FROM search_events WHERE at < ?").run(before).changes;
      })();
    },
  };
}

type ReportMethod = "buckets" | "queries" | "clickedDocuments" | "appendImplicitCases";

/** the reports' reads and the report-to-suite write */
function reports(db: DB): Pick<AnalyticsStore, ReportMethod> {
  return {
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
          `SELECT s.query, count(*) AS count, sum(s.hits = 0) AS zero_results, sum(s.hits > 0 AND s.top_score < ?) AS low_score,
                  coalesce(sum(c.clicks), 0) AS clicks, count(c.clicks) AS clicked_searches, coalesce(sum(c.positions), 0) AS position_sum
           FROM search_events s
           LEFT JOIN (SELECT fb.scope, fb.search_at, fb.search_id, count(*) AS clicks, sum(fb.position) AS positions
                      FROM search_feedback fb WHERE fb.type = 0 AND fb.scope IN (${sc.sql}) AND fb.search_at >= ? AND fb.search_at < ?
                      GROUP BY fb.scope, fb.search_at, fb.search_id) c
             ON c.scope = s.scope AND c.search_at = s.at AND c.search_id = s.id
           WHERE ${w.sql} GROUP BY s.query`,
        )
        .all(millionths(lowScore), ...sc.params, f.from, f.to, ...w.params) as QueryCounts[];
    },
    async clickedDocuments(f, queries) {
      const out = new Map<string, string[]>();
      if (queries.length === 0) return out;
      const w = windowOf(f);
      const rows = db
        .prepare(
          `SELECT s.query, fb.document_id, count(*) AS n FROM search_feedback fb
           JOIN search_events s ON s.scope = fb.scope AND s.at = fb.search_at AND s.id = fb.search_id
           WHERE fb.type IN (${POSITIVE_FEEDBACK.join(", ")}) AND s.query IN (${queries.map(() => "?").join(", ")}) AND ${w.sql}
           GROUP BY s.query, fb.document_id ORDER BY s.query, n DESC, fb.document_id`,
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
