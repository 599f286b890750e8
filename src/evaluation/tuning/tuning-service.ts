// POST /benchmarks/{suite_id}/tune: find fusion settings that suit a suite's collection.
// Every case's query is embedded once and its candidate lists fetched once (search/engine.ts
// candidates()); a coordinate search (search/tuning.ts) then ranks the tuning cases under a few
// tens of settings in memory. The best setting is checked on held-out cases and written to the
// collection's settings only when asked (apply: true) and when it does not lose there.
// The work is one embedding, one kNN and up to five BM25 queries per case, about what one to two
// runs of the suite cost: a second for 100 cases, tens of seconds for hundreds. So a suite of at
// most 100 cases is tuned in the request, a larger one (or any, with background: true) as a job
// on the tune queue whose progress GET /benchmarks/{id}/tunings/{tuning_id} shows.
//
// The operations are named functions taking their dependencies: tuning-run.ts (the steps, shared
// by both ways), tuning-requests.ts (the API), tuning-job.ts (the job), tuning-report.ts (the
// answer), tuning-model.ts (shared shapes). createTuner binds them to one set of dependencies.
import type { RecoveryHook, RunningJob } from "../../jobs/types.js";
import type { Principal } from "../../services/auth/auth-types.js";
import { cancelTuning, getTuning, listTunings, requestTuning, type TuneBody } from "./tuning-requests.js";
import { giveUpTuning, handleTuneJob, recoverTunings } from "./tuning-job.js";
import type { TuningDeps } from "./tuning-types.js";

export type { TuneRequest, TunerDeps } from "./tuning-run.js";
export type { TuneAnswer, TuneBody } from "./tuning-requests.js";
export { SYNC_TUNE_CASES, SYNC_TUNE_MAX_CASES, TUNE_JOB_KIND, type TuningDeps, type TuningJobOut } from "./tuning-types.js";

export function createTuner(deps: TuningDeps) {
  const recover: RecoveryHook = (queue) => recoverTunings(deps, queue);
  return {
    /** the answer (background: false) or the queued job (background: true) */
    tune: (p: Principal, suiteId: string, body: TuneBody = {}) => requestTuning(deps, p, suiteId, body),
    get: (p: Principal, suiteId: string, tuningId: string) => getTuning(deps, p, suiteId, tuningId),
    list: (p: Principal, suiteId: string) => listTunings(deps, p, suiteId),
    cancel: (p: Principal, suiteId: string, tuningId: string) => cancelTuning(deps, p, suiteId, tuningId),
    /** the tune queue's handler */
    handle: (job: RunningJob) => handleTuneJob(deps, job),
    /** the queue gave up on a tuning job (attempts used up): say so on the tuning */
    giveUp: (job: { tenant_id: string; subject: string; kind: string }, error: string) => giveUpTuning(deps, job, error),
    /** tune queue recovery: every queued or running tuning has a live queue job */
    recover,
  };
}

export type Tuner = ReturnType<typeof createTuner>;
