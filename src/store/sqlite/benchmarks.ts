// Benchmark suites, cases and runs in SQLite; tunings are in benchmark-tunings.ts. JSON columns
// (relevant ids, metrics, results, origin) are stored as text and parsed on the way out.
import type { DB } from "./db.js";
import type { BenchmarkCaseRow, BenchmarkRunRow, BenchmarkStore, BenchmarkSuiteRow } from "../benchmark-types.js";
import { parseJson } from "./content/json.js";
import { sqliteTunings } from "./benchmark-tunings.js";

type RawSuite = Omit<BenchmarkSuiteRow, "origin"> & { origin: string };
type RawCase = Omit<BenchmarkCaseRow, "relevant_document_ids"> & { relevant_document_ids: string };
type RawRun = Omit<BenchmarkRunRow, "metrics" | "results"> & { metrics: string; results?: string };

const toSuite = (r: RawSuite): BenchmarkSuiteRow => ({ ...r, origin: parseJson(r.origin, {}) });
const toCase = (r: RawCase & { position?: number }): BenchmarkCaseRow => ({
  id: r.id,
  suite_id: r.suite_id,
  query: r.query,
  relevant_document_ids: parseJson<string[]>(r.relevant_document_ids, []),
  created_at: r.created_at,
});
const toRun = (r: RawRun): BenchmarkRunRow => ({
  ...r,
  metrics: parseJson(r.metrics, {}),
  results: r.results === undefined ? [] : parseJson(r.results, []),
});

function group<T extends { suite_id: string }>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const list = out.get(r.suite_id);
    if (list) list.push(r);
    else out.set(r.suite_id, [r]);
  }
  return out;
}

const RUN_SUMMARY_COLUMNS = "id, tenant_id, suite_id, status, query_count, top_k, metrics, error, created_at, completed_at";

// json_each keeps the id list one bound parameter however many suites there are
const IN_SUITES = "suite_id IN (SELECT value FROM json_each(?))";

type SuiteMethods = Pick<BenchmarkStore, "createSuite" | "listSuites" | "getSuite" | "listCases" | "deleteSuite">;
type RunMethods = Pick<BenchmarkStore, "createRun" | "finishRun" | "listRuns" | "pageRuns" | "failStaleRuns">;

export function sqliteBenchmarks(db: DB): BenchmarkStore {
  return { ...suiteMethods(db), ...runMethods(db), ...sqliteTunings(db) };
}

function suiteMethods(db: DB): SuiteMethods {
  const insertSuite = db.prepare(
    `INSERT INTO benchmark_suites (id, tenant_id, collection_id, name, description, top_k, origin, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertCase = db.prepare(
    `INSERT INTO benchmark_cases (id, tenant_id, suite_id, position, query, relevant_document_ids, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const create = db.transaction((s: BenchmarkSuiteRow, cases: BenchmarkCaseRow[]) => {
    insertSuite.run(s.id, s.tenant_id, s.collection_id, s.name, s.description, s.top_k, JSON.stringify(s.origin), s.created_at);
    cases.forEach((c, i) => insertCase.run(c.id, s.tenant_id, s.id, i, c.query, JSON.stringify(c.relevant_document_ids), c.created_at));
  });

  return {
    async createSuite(suite, cases) {
      create(suite, cases);
    },
    async listSuites(tenantId) {
      const rows = db.prepare("SELECT * FROM benchmark_suites WHERE tenant_id = ? ORDER BY created_at, rowid").all(tenantId) as RawSuite[];
      return rows.map(toSuite);
    },
    async getSuite(tenantId, id) {
      const r = db.prepare("SELECT * FROM benchmark_suites WHERE tenant_id = ? AND id = ?").get(tenantId, id) as RawSuite | undefined;
      return r ? toSuite(r) : null;
    },
    async listCases(tenantId, suiteIds) {
      if (suiteIds.length === 0) return new Map();
      const rows = db
        .prepare(`SELECT * FROM benchmark_cases WHERE tenant_id = ? AND ${IN_SUITES} ORDER BY suite_id, position`)
        .all(tenantId, JSON.stringify(suiteIds)) as RawCase[];
      return group(rows.map(toCase));
    },
    async deleteSuite(tenantId, id) {
      // cases, runs and tunings go with it (ON DELETE CASCADE)
      return db.prepare("DELETE FROM benchmark_suites WHERE tenant_id = ? AND id = ?").run(tenantId, id).changes > 0;
    },
  };
}

function runMethods(db: DB): RunMethods {
  return {
    async createRun(run) {
      db.prepare(
        `INSERT INTO benchmark_runs (id, tenant_id, suite_id, status, query_count, top_k, metrics, results, error, created_at, completed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        run.id,
        run.tenant_id,
        run.suite_id,
        run.status,
        run.query_count,
        run.top_k,
        JSON.stringify(run.metrics),
        JSON.stringify(run.results),
        run.error,
        run.created_at,
        run.completed_at,
      );
    },
    async finishRun(tenantId, id, end) {
      db.prepare(
        `UPDATE benchmark_runs SET status = ?, metrics = ?, results = ?, error = ?, completed_at = ?
         WHERE tenant_id = ? AND id = ?`,
      ).run(end.status, JSON.stringify(end.metrics), JSON.stringify(end.results), end.error, end.completed_at, tenantId, id);
    },
    async listRuns(tenantId, suiteIds, opts) {
      if (suiteIds.length === 0) return new Map();
      const rows = db.prepare(listRunsSql(opts)).all(tenantId, JSON.stringify(suiteIds)) as RawRun[];
      return group(rows.map(toRun));
    },
    async pageRuns(tenantId, suiteId, limit, before) {
      const rows = db
        .prepare(
          `SELECT ${RUN_SUMMARY_COLUMNS}, results FROM benchmark_runs WHERE tenant_id = ? AND suite_id = ?
             AND (? IS NULL OR created_at < ? OR (created_at = ? AND id < ?))
           ORDER BY created_at DESC, id DESC LIMIT ?`,
        )
        .all(tenantId, suiteId, before?.created_at ?? null, before?.created_at ?? null, before?.created_at ?? null, before?.id ?? null, limit) as RawRun[];
      return rows.map(toRun);
    },
    async failStaleRuns(tenantId, before, error, at) {
      return db
        .prepare("UPDATE benchmark_runs SET status = 'failed', error = ?, completed_at = ? WHERE tenant_id = ? AND status = 'running' AND created_at < ?")
        .run(error, at, tenantId, before).changes;
    },
  };
}

function listRunsSql(opts: { withResults: boolean; latestOnly?: boolean }): string {
  const columns = opts.withResults ? `${RUN_SUMMARY_COLUMNS}, results` : RUN_SUMMARY_COLUMNS;
  // rowid breaks ties between runs created in the same millisecond (insertion order)
  return opts.latestOnly
    ? `SELECT ${columns} FROM (SELECT *, row_number() OVER (PARTITION BY suite_id ORDER BY created_at DESC, rowid DESC) AS n
         FROM benchmark_runs WHERE tenant_id = ? AND ${IN_SUITES}) WHERE n = 1`
    : `SELECT ${columns} FROM benchmark_runs WHERE tenant_id = ? AND ${IN_SUITES} ORDER BY created_at DESC, rowid DESC`;
}
