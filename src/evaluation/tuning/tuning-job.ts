// The tuning job: the tune queue's handler runs the same tuning as the synchronous call
// (tuning-run.ts runTuning) for a tuning row, writes its progress while each case's candidate
// lists are fetched, and ends the row as completed (with the answer), failed or cancelled.
//
// A retry (the worker died, the lease ran out) finds the row running and simply starts over: the
// candidate lists are not kept, and nothing is written to the collection before the very end, so
// an attempt that stops half way leaves nothing behind. The queries were counted when the job was
// accepted (tuning-requests.ts), so a retry costs no quota.
import type { TenantRow } from "../../store/types.js";
import type { BenchmarkTuningRow } from "../../store/benchmark-types.js";
import { nowIso } from "../../store/ids.js";
import type { JobQueue, RunningJob } from "../../jobs/types.js";
import { keylessPrincipal } from "../../services/auth/auth-types.js";
import { ServiceError, ValidationError } from "../../services/errors.js";
import { runTuning, suiteToTune, type TuneProgress } from "./tuning-run.js";
import { TUNE_JOB_KIND, tuneQueueJob, type TuningDeps } from "./tuning-types.js";

/** Progress is written at most this often (and at each phase change and at the last case). */
const PROGRESS_EVERY_MS = 1_000;

/** The job acts for the tenant that queued it; tuning reads and writes only that tenant's data. */
const jobPrincipal = (tenant: TenantRow) => keylessPrincipal(tenant, ["ingest"]);

/** Writes a running tuning's progress, throttled; aborts the tuning when its row stopped running (suite deleted). */
class ProgressWriter {
  private lastWrite = 0;
  private lastPhase = "";

  constructor(
    private readonly deps: Pick<TuningDeps, "store">,
    private readonly row: BenchmarkTuningRow,
    private readonly ctl: AbortController,
  ) {}

  async report(p: TuneProgress): Promise<void> {
    const due = p.phase !== this.lastPhase || p.cases_done === p.cases_total || Date.now() - this.lastWrite >= PROGRESS_EVERY_MS;
    if (!due) return;
    this.lastWrite = Date.now();
    this.lastPhase = p.phase;
    const stillRunning = await this.deps.store.benchmarks.setTuningProgress(this.row.tenant_id, this.row.id, { phase: p.phase, cases_done: p.cases_done });
    if (!stillRunning) this.ctl.abort(new Error("The tuning is no longer running (its suite was deleted)."));
  }
}

/** Why a tuning failed, in words for the job's error. */
function failureMessage(err: unknown): string {
  if (err instanceof ValidationError) return `The tuning could not run: ${err.issues.map((i) => i.msg).join(" ")}`;
  if (err instanceof ServiceError) return `The tuning could not run: ${err.message}`;
  return `The tuning stopped: ${err instanceof Error ? err.message : String(err)}`;
}

/** The tune queue's handler. */
export async function handleTuneJob(deps: TuningDeps, job: RunningJob): Promise<void> {
  const tenant = await deps.store.tenants.get(job.tenant_id);
  if (!tenant) return; // the workspace was deleted, the row with it
  // from "running" too: a retry after a crash starts over
  const row = await deps.store.benchmarks.transitionTuning(tenant.id, job.subject, ["queued", "running"], "running", {
    phase: "candidates",
    cases_done: 0,
    result: null,
    error: null,
    started_at: nowIso(),
    finished_at: null,
  });
  if (!row) return; // deleted with its suite, or already ended
  const ctl = new AbortController();
  const signal = AbortSignal.any([job.signal, ctl.signal]);
  const progress = new ProgressWriter(deps, row, ctl);
  const started = Date.now();
  try {
    const target = await suiteToTune(deps, tenant.id, row.suite_id);
    const result = await runTuning(deps, jobPrincipal(tenant), target, { apply: row.apply }, { onProgress: (p) => progress.report(p), signal });
    const ended = await deps.store.benchmarks.transitionTuning(tenant.id, row.id, ["running"], "completed", { phase: "done", result, error: null, finished_at: nowIso() });
    if (ended) await emitTuningEnded(deps, ended, target.suite.collection_id, { applied: result.apply.applied });
    deps.log.info({ event: "tuning", tuning: row.id, tenant: tenant.id, suite: row.suite_id, cases: row.cases_total, ms: Date.now() - started, applied: result.apply.applied }, "tuning completed");
  } catch (err) {
    if (signal.aborted) {
      // cancelled, or the row is gone (then nothing is updated)
      await deps.store.benchmarks.transitionTuning(tenant.id, row.id, ["running"], "cancelled", { error: "The tuning was cancelled.", finished_at: nowIso() });
      return;
    }
    // a suite that cannot be tuned (collection deleted meanwhile) or a failure: retrying would not help
    const error = failureMessage(err);
    deps.log.warn({ err, tuning: row.id, tenant: tenant.id }, "tuning failed");
    const ended = await deps.store.benchmarks.transitionTuning(tenant.id, row.id, ["running"], "failed", { error, finished_at: nowIso() });
    if (ended) await emitTuningEnded(deps, ended, null, { applied: false });
  }
}

/** tuning.completed: a tuning job ended, completed (with whether it applied its settings) or failed. */
async function emitTuningEnded(deps: Pick<TuningDeps, "events" | "store">, row: BenchmarkTuningRow, collectionId: string | null, extra: { applied: boolean }): Promise<void> {
  if (!deps.events) return;
  const collection = collectionId ?? (await deps.store.benchmarks.getSuite(row.tenant_id, row.suite_id))?.collection_id ?? null;
  const data = { tuning_id: row.id, benchmark_id: row.suite_id, collection_id: collection, status: row.status, applied: extra.applied, error: row.error };
  await deps.events.emit(row.tenant_id, "tuning.completed", data, collection ? { collectionId: collection } : {});
}

/** The queue gave up on a tuning job (attempts used up): say so on the tuning. */
export async function giveUpTuning(deps: Pick<TuningDeps, "store">, job: { tenant_id: string; subject: string; kind: string }, error: string): Promise<void> {
  if (job.kind !== TUNE_JOB_KIND) return;
  await deps.store.benchmarks.transitionTuning(job.tenant_id, job.subject, ["queued", "running"], "failed", { error: `The tuning could not run: ${error}`, finished_at: nowIso() });
}

/** Tune queue recovery: every queued or running tuning has a live queue job (a crash between its row and its job). */
export async function recoverTunings(deps: Pick<TuningDeps, "store" | "log">, queue: Pick<JobQueue, "enqueue">): Promise<number> {
  let n = 0;
  for (const row of await deps.store.benchmarks.unfinishedTunings()) if (await queue.enqueue({ ...tuneQueueJob(row), unlessLive: true })) n++;
  if (n) deps.log.info({ tunings: n }, "resuming interrupted tunings");
  return n;
}
