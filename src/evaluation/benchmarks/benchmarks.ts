// Benchmark suites: a collection plus queries with the documents that should come back. A run
// sends every case through the same search path users hit (services/search.ts, collapsed to one
// hit per document, the suite's top_k), scores the answers with search/metrics.ts and keeps the
// run. The run's queries count against the monthly quota once, all together, before it starts.
//
// The operations are named functions taking their dependencies: benchmark-suites.ts (the suite
// API), benchmark-runs.ts (running a suite), benchmark-model.ts (shared shapes); tuning.ts binds
// the tuning operations (in the request or as a job on the tune queue).
// createBenchmarkService binds them to one set of dependencies for the runtime.
import type { Json } from "../../store/content-types.js";
import { tenantOf, type Principal } from "../../services/auth/auth.js";
import { suiteRow, type BenchmarkServiceDeps, type BenchmarkSuiteCreate } from "./benchmark-types.js";
import { createSuite, getSuite, listSuiteRuns, listSuites, removeSuite } from "./benchmark-suites.js";
import { runSuite } from "./benchmark-runs.js";
import { createTuner } from "../tuning/tuning-service.js";
import type { RunningJob } from "../../jobs/types.js";
import type { TuneBody } from "../tuning/tuning-requests.js";

export {
  INTERRUPTED_RUN_ERROR,
  SUITE_LIMITS,
  runOut,
  type BenchmarkCaseIn,
  type BenchmarkCaseOut,
  type BenchmarkRunOut,
  type BenchmarkServiceDeps,
  type BenchmarkSuiteCreate,
  type BenchmarkSuiteOut,
  type CaseResult,
} from "./benchmark-types.js";

export { SYNC_TUNE_CASES, SYNC_TUNE_MAX_CASES, TUNE_JOB_KIND, type TuneAnswer, type TuningJobOut } from "../tuning/tuning-service.js";

export function createBenchmarkService(deps: BenchmarkServiceDeps) {
  const tuner = createTuner(deps);
  return {
    /** POST /benchmarks/{id}/tune: fusion settings searched on the suite's cases, in the request or as a job (services/tuning.ts) */
    tune: (p: Principal, id: string, body: TuneBody = {}) => tuner.tune(p, id, body),
    /** GET /benchmarks/{id}/tunings/{tuning_id} */
    tuning: (p: Principal, id: string, tuningId: string) => tuner.get(p, id, tuningId),
    /** GET /benchmarks/{id}/tunings: newest first */
    tunings: (p: Principal, id: string) => tuner.list(p, id),
    /** POST /benchmarks/{id}/tunings/{tuning_id}/cancel */
    cancelTuning: (p: Principal, id: string, tuningId: string) => tuner.cancel(p, id, tuningId),
    /** the tune queue's handler, give-up hook and recovery */
    handleTune: (job: RunningJob) => tuner.handle(job),
    giveUpTune: (job: { tenant_id: string; subject: string; kind: string }, error: string) => tuner.giveUp(job, error),
    recoverTunings: tuner.recover,
    create: (p: Principal, body: BenchmarkSuiteCreate, origin: Json = {}) => createSuite(deps, p, body, origin),
    /** Every suite with its cases and runs (newest first, without per-case results) and latest scores. */
    list: (p: Principal) => listSuites(deps, p),
    get: (p: Principal, id: string) => getSuite(deps, p, id),
    /** GET /benchmarks/{id}/runs: newest first, `limit` at a time; `next` is the following page's cursor */
    runs: (p: Principal, id: string, o: { limit?: number; cursor?: string }) => listSuiteRuns(deps, p, id, o),
    /** the stored row, for callers that need `origin` (bench, import) */
    row: (p: Principal, id: string) => suiteRow(deps, tenantOf(p).id, id),
    remove: (p: Principal, id: string) => removeSuite(deps, p, id),
    /** Runs every case now and keeps the run; 429 (and no run) when the quota cannot take all the cases. */
    run: (p: Principal, id: string) => runSuite(deps, p, id),
  };
}

export type BenchmarkService = ReturnType<typeof createBenchmarkService>;
