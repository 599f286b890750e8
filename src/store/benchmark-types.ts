// Storage contract of benchmark suites, their cases and runs. See types.ts for the conventions:
// every method takes the tenant id and filters by it in the query itself.
import type { Json } from "./content-types.js";
import type { JobTable } from "./job-rows.js";

export type BenchmarkRunStatus = "running" | "completed" | "failed";

export interface BenchmarkSuiteRow {
  id: string;
  tenant_id: string;
  collection_id: string;
  name: string;
  description: string;
  top_k: number;
  /** where the cases came from ({"dataset":"scifact","split":"test"}); {} for hand-made suites */
  origin: Json;
  created_at: string;
}

export interface BenchmarkCaseRow {
  id: string;
  suite_id: string;
  query: string;
  relevant_document_ids: string[];
  created_at: string;
}

export interface BenchmarkRunRow {
  id: string;
  tenant_id: string;
  suite_id: string;
  status: BenchmarkRunStatus;
  query_count: number;
  top_k: number;
  metrics: Json;
  results: Json[];
  error: string | null;
  created_at: string;
  completed_at: string | null;
}

export type BenchmarkTuningStatus = "queued" | "running" | "completed" | "failed" | "cancelled";

/** A tuning run as a job (POST /benchmarks/{id}/tune in the background), with its progress and answer. */
export interface BenchmarkTuningRow {
  id: string;
  tenant_id: string;
  suite_id: string;
  collection_id: string;
  /** queued -> running -> completed | failed | cancelled; a retried job goes running -> running */
  status: BenchmarkTuningStatus;
  /** the request asked for the best setting to be applied */
  apply: boolean;
  /** where a running tuning is: queued, candidates (fetching each case's lists), search, done */
  phase: string;
  cases_done: number;
  cases_total: number;
  /** the answer the synchronous call gives (BenchmarkTuneOut) once completed */
  result: Json | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface BenchmarkTuningPatch {
  phase?: string;
  cases_done?: number;
  result?: Json | null;
  error?: string | null;
  started_at?: string | null;
  finished_at?: string | null;
}

export interface BenchmarkStore {
  /** the suite and its cases, in one transaction */
  createSuite(suite: BenchmarkSuiteRow, cases: BenchmarkCaseRow[]): Promise<void>;
  /** suites of the tenant, oldest first */
  listSuites(tenantId: string): Promise<BenchmarkSuiteRow[]>;
  getSuite(tenantId: string, id: string): Promise<BenchmarkSuiteRow | null>;
  /** cases of these suites in creation order, grouped by suite id */
  listCases(tenantId: string, suiteIds: string[]): Promise<Map<string, BenchmarkCaseRow[]>>;
  /** removes the suite with its cases and runs */
  deleteSuite(tenantId: string, id: string): Promise<boolean>;

  createRun(run: BenchmarkRunRow): Promise<void>;
  /** running -> completed | failed, with what the run produced */
  finishRun(
    tenantId: string,
    id: string,
    end: { status: "completed" | "failed"; metrics: Json; results: Json[]; error: string | null; completed_at: string },
  ): Promise<void>;
  /**
   * Runs of these suites, newest first, grouped by suite id. `withResults: false` leaves the
   * (large) per-case results out (results = []), `latestOnly` keeps the newest run per suite.
   */
  listRuns(tenantId: string, suiteIds: string[], opts: { withResults: boolean; latestOnly?: boolean }): Promise<Map<string, BenchmarkRunRow[]>>;
  /** runs still `running` that were created before `before` become failed with `error`; returns how many */
  failStaleRuns(tenantId: string, before: string, error: string, at: string): Promise<number>;
  /** one suite's runs with their results, newest first by (created_at, id); `before` pages on */
  pageRuns(tenantId: string, suiteId: string, limit: number, before?: { created_at: string; id: string }): Promise<BenchmarkRunRow[]>;

  /** a tuning job's row (the caller queues its job); deleting the suite or the tenant deletes it */
  createTuning(row: BenchmarkTuningRow): Promise<void>;
  getTuning(tenantId: string, id: string): Promise<BenchmarkTuningRow | null>;
  /** one suite's tunings, newest first (ties in insertion order, newest first) */
  listTunings(tenantId: string, suiteId: string, limit: number): Promise<BenchmarkTuningRow[]>;
  /**
   * Moves the tuning to `to` when its status is one of `from`, applying `patch`, atomically.
   * The updated row, or null when it is missing (in this tenant) or in another state.
   */
  transitionTuning(tenantId: string, id: string, from: readonly BenchmarkTuningStatus[], to: BenchmarkTuningStatus, patch?: BenchmarkTuningPatch): Promise<BenchmarkTuningRow | null>;
  /** progress of a running tuning; false (and nothing written) when it is no longer running or gone */
  setTuningProgress(tenantId: string, id: string, progress: { phase: string; cases_done: number }): Promise<boolean>;
  /** queued or running tunings of every tenant (queue recovery) */
  unfinishedTunings(): Promise<{ id: string; tenant_id: string }[]>;
}

/** benchmark_tunings as a job table (job-rows.ts) */
export const TUNINGS_TABLE: JobTable = {
  table: "benchmark_tunings",
  columns: ["id", "tenant_id", "suite_id", "collection_id", "status", "apply", "phase", "cases_done", "cases_total", "result", "error", "created_at", "started_at", "finished_at"],
  patchable: ["phase", "cases_done", "result", "error", "started_at", "finished_at"],
};
