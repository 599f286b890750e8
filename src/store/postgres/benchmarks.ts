// Benchmark suites, cases and runs on PostgreSQL (see sqlite/benchmarks.ts); tunings are in
// benchmark-tunings.ts. `seq` breaks ties of equal timestamps in insertion order, as SQLite's rowid does.
import { transaction, type Pool } from "./db.js";
import type { BenchmarkCaseRow, BenchmarkRunRow, BenchmarkStore, BenchmarkSuiteRow } from "../benchmark-types.js";
import { parseJson } from "./rows.js";
import { pgTunings } from "./benchmark-tunings.js";

type RawSuite = Omit<BenchmarkSuiteRow, "origin"> & { origin: string };
type RawCase = Omit<BenchmarkCaseRow, "relevant_document_ids"> & { relevant_document_ids: string };
type RawRun = Omit<BenchmarkRunRow, "metrics" | "results"> & { metrics: string; results?: string };

const SUITE_COLS = "id, tenant_id, collection_id, name, description, top_k, origin, created_at";
const RUN_SUMMARY_COLS = "id, tenant_id, suite_id, status, query_count, top_k, metrics, error, created_at, completed_at";

const toSuite = (r: RawSuite): BenchmarkSuiteRow => ({ ...r, origin: parseJson(r.origin, {}) });
const toCase = (r: RawCase): BenchmarkCaseRow => ({
  id: r.id,
  suite_id: r.suite_id,
  query: r.query,
  relevant_document_ids: parseJson<string[]>(r.relevant_document_ids, []),
  created_at: r.created_at,
});
const toRun = (r: RawRun): BenchmarkRunRow => ({ ...r, metrics: parseJson(r.metrics, {}), results: r.results === undefined ? [] : parseJson(r.results, []) });

function group<T extends { suite_id: string }>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) out.set(r.suite_id, [...(out.get(r.suite_id) ?? []), r]);
  return out;
}

function suiteMethods(pool: Pool): Pick<BenchmarkStore, "createSuite" | "listSuites" | "getSuite" | "listCases" | "deleteSuite"> {
  return {
    async createSuite(s, cases) {
      await transaction(pool, async (c) => {
        await c.query(`INSERT INTO benchmark_suites (${SUITE_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
          s.id,
          s.tenant_id,
          s.collection_id,
          s.name,
          s.description,
          s.top_k,
          JSON.stringify(s.origin),
          s.created_at,
        ]);
        if (cases.length === 0) return;
        // one statement for all cases: suites imported from BEIR hold hundreds
        await c.query(
          `INSERT INTO benchmark_cases (id, tenant_id, suite_id, position, query, relevant_document_ids, created_at)
           SELECT id, $1, $2, ord - 1, query, rel, created FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS x(id, query, rel, created, ord)`,
          [s.tenant_id, s.id, cases.map((x) => x.id), cases.map((x) => x.query), cases.map((x) => JSON.stringify(x.relevant_document_ids)), cases.map((x) => x.created_at)],
        );
      });
    },
    async listSuites(tenantId) {
      return (await pool.query<RawSuite>(`SELECT ${SUITE_COLS} FROM benchmark_suites WHERE tenant_id = $1 ORDER BY created_at, seq`, [tenantId])).rows.map(toSuite);
    },
    async getSuite(tenantId, id) {
      const r = await pool.query<RawSuite>(`SELECT ${SUITE_COLS} FROM benchmark_suites WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
      return r.rows[0] ? toSuite(r.rows[0]) : null;
    },
    async listCases(tenantId, suiteIds) {
      if (suiteIds.length === 0) return new Map();
      const r = await pool.query<RawCase>(
        `SELECT id, suite_id, query, relevant_document_ids, created_at FROM benchmark_cases
         WHERE tenant_id = $1 AND suite_id = ANY($2::text[]) ORDER BY suite_id, position`,
        [tenantId, suiteIds],
      );
      return group(r.rows.map(toCase));
    },
    async deleteSuite(tenantId, id) {
      // cases, runs and tunings go with it (ON DELETE CASCADE)
      return ((await pool.query("DELETE FROM benchmark_suites WHERE tenant_id = $1 AND id = $2", [tenantId, id])).rowCount ?? 0) > 0;
    },
  };
}

function runMethods(pool: Pool): Pick<BenchmarkStore, "createRun" | "finishRun" | "listRuns" | "pageRuns" | "failStaleRuns"> {
  return {
    async createRun(run) {
      await pool.query(
        `INSERT INTO benchmark_runs (id, tenant_id, suite_id, status, query_count, top_k, metrics, results, error, created_at, completed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [run.id, run.tenant_id, run.suite_id, run.status, run.query_count, run.top_k, JSON.stringify(run.metrics), JSON.stringify(run.results), run.error, run.created_at, run.completed_at],
      );
    },
    async finishRun(tenantId, id, end) {
      await pool.query(
        "UPDATE benchmark_runs SET status = $1, metrics = $2, results = $3, error = $4, completed_at = $5 WHERE tenant_id = $6 AND id = $7",
        [end.status, JSON.stringify(end.metrics), JSON.stringify(end.results), end.error, end.completed_at, tenantId, id],
      );
    },
    async listRuns(tenantId, suiteIds, opts) {
      if (suiteIds.length === 0) return new Map();
      const cols = opts.withResults ? `${RUN_SUMMARY_COLS}, results` : RUN_SUMMARY_COLS;
      const sql = opts.latestOnly
        ? `SELECT DISTINCT ON (suite_id) ${cols} FROM benchmark_runs WHERE tenant_id = $1 AND suite_id = ANY($2::text[])
           ORDER BY suite_id, created_at DESC, seq DESC`
        : `SELECT ${cols} FROM benchmark_runs WHERE tenant_id = $1 AND suite_id = ANY($2::text[]) ORDER BY created_at DESC, seq DESC`;
      return group((await pool.query<RawRun>(sql, [tenantId, suiteIds])).rows.map(toRun));
    },
    async pageRuns(tenantId, suiteId, limit, before) {
      const r = await pool.query<RawRun>(
        `SELECT ${RUN_SUMMARY_COLS}, results FROM benchmark_runs WHERE tenant_id = $1 AND suite_id = $2
           AND ($3::text IS NULL OR (created_at, id) < ($3::text, $4::text))
         ORDER BY created_at DESC, id DESC LIMIT $5`,
        [tenantId, suiteId, before?.created_at ?? null, before?.id ?? null, limit],
      );
      return r.rows.map(toRun);
    },
    async failStaleRuns(tenantId, before, error, at) {
      const r = await pool.query(
        "UPDATE benchmark_runs SET status = 'failed', error = $1, completed_at = $2 WHERE tenant_id = $3 AND status = 'running' AND created_at < $4",
        [error, at, tenantId, before],
      );
      return r.rowCount ?? 0;
    },
  };
}

export function pgBenchmarks(pool: Pool): BenchmarkStore {
  return { ...suiteMethods(pool), ...runMethods(pool), ...pgTunings(pool) };
}
