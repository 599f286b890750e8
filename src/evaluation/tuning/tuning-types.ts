// What the tuning modules share: the dependencies of tuning in the background, the queue job of a
// tuning, when a tuning runs in the request or as a job, and the API shape of a tuning job.
import type { BenchmarkTuningRow, BenchmarkTuningStatus } from "../../store/benchmark-types.js";
import type { Json } from "../../store/content-types.js";
import type { BenchmarkServiceDeps } from "../benchmarks/benchmark-types.js";
import type { TunerDeps } from "./tuning-run.js";

export const TUNE_JOB_KIND = "tune";
/** Queue attempts of one tuning job; each attempt starts over (the candidate lists are not kept). */
const TUNE_JOB_ATTEMPTS = 3;
/** The queue job that runs a tuning. */
export const tuneQueueJob = (row: { id: string; tenant_id: string }) => ({
  tenant_id: row.tenant_id,
  kind: TUNE_JOB_KIND,
  subject: row.id,
  max_attempts: TUNE_JOB_ATTEMPTS,
});

/**
 * Without `background` in the body, a suite of at most this many cases is tuned in the request
 * (about a second in hybrid mode) and a larger one as a job.
 */
export const SYNC_TUNE_CASES = 100;
/**
 * `background: false` is refused above this many cases: a request holding one HTTP connection for
 * tens of seconds meets proxy timeouts. Suites hold at most 500 cases, so a cap of 500 would
 * never refuse anything.
 */
export const SYNC_TUNE_MAX_CASES = 300;
/** GET /benchmarks/{id}/tunings lists this many, newest first. */
export const TUNINGS_LIST_LIMIT = 50;

/** tuning in the background: the benchmark service's dependencies (log, the tune queue) besides the tuner's */
export type TuningDeps = TunerDeps & Pick<BenchmarkServiceDeps, "log" | "tuneQueue" | "events">;

export interface TuningJobOut {
  id: string;
  suite_id: string;
  collection_id: string;
  status: BenchmarkTuningStatus;
  apply: boolean;
  progress: { phase: string; cases_done: number; cases_total: number };
  /** the synchronous call's answer (BenchmarkTuneOut) once completed */
  result: Json | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export const tuningOut = (r: BenchmarkTuningRow): TuningJobOut => ({
  id: r.id,
  suite_id: r.suite_id,
  collection_id: r.collection_id,
  status: r.status,
  apply: r.apply,
  progress: { phase: r.phase, cases_done: r.cases_done, cases_total: r.cases_total },
  result: r.result,
  error: r.error,
  created_at: r.created_at,
  started_at: r.started_at,
  finished_at: r.finished_at,
});
