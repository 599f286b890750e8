// The API side of tuning: POST /benchmarks/{id}/tune answers in the request for a small suite (or
// background: false) and queues a tuning job otherwise; GET .../tunings reads the jobs.
import type { TenantRow } from "../../store/types.js";
import { newId, nowIso } from "../../store/ids.js";
import { QueueUnavailableError } from "../../jobs/types.js";
import { tenantOf, type Principal } from "../../services/auth/auth-types.js";
import { conflict, notFound, unavailable, ValidationError } from "../../services/errors.js";
import { ADAPT_JOB_KIND } from "../adaptation/adapt-types.js";
import { runTuning, suiteToTune, type SuiteToTune, type TuneRequest } from "./tuning-run.js";
import { SYNC_TUNE_CASES, SYNC_TUNE_MAX_CASES, TUNE_JOB_KIND, TUNINGS_LIST_LIMIT, tuneQueueJob, tuningOut, type TuningDeps, type TuningJobOut } from "./tuning-types.js";

export interface TuneBody extends TuneRequest {
  /** true: always a job; false: in the request (422 above SYNC_TUNE_MAX_CASES); absent: by suite size */
  background?: boolean;
}

export type TuneAnswer = { background: false; result: Awaited<ReturnType<typeof runTuning>> } | { background: true; job: TuningJobOut };

/** POST /benchmarks/{id}/tune: the same checks (404, 422) either way, then the answer or a queued job. */
export async function requestTuning(deps: TuningDeps, p: Principal, suiteId: string, body: TuneBody = {}): Promise<TuneAnswer> {
  const started = performance.now();
  const tenant = tenantOf(p);
  const target = await suiteToTune(deps, tenant.id, suiteId);
  const n = target.cases.length;
  const background = body.background ?? n > SYNC_TUNE_CASES;
  if (!background && n > SYNC_TUNE_MAX_CASES) {
    const msg =
      `The suite has ${n} cases; a tuning in the request takes at most ${SYNC_TUNE_MAX_CASES}. ` +
      "Send background: true (or leave background out) to tune it as a job and follow it at the Location the answer gives.";
    throw new ValidationError([{ type: "value_error", loc: ["body", "background"], msg, input: false }]);
  }
  if (background) {
    const job = await queueTuning(deps, tenant, target, body);
    // a tuning job carries no request body beyond apply: the adaptation is a job of its own, after it on the same queue
    if (body.adapt_model === true) await deps.tuneQueue().enqueue({ tenant_id: tenant.id, kind: ADAPT_JOB_KIND, subject: target.suite.collection_id, payload: { apply: body.apply === true }, max_attempts: 2 });
    return { background: true, job };
  }
  // each case is searched once (its lists are reused for every setting): one query each
  await deps.quotas.consumeQueries(tenant, n);
  return { background: false, result: await runTuning(deps, p, target, body, {}, started) };
}

const queueDown = () => unavailable(`The tuning queue is not running, so the tuning was not started. Try again in a moment, or tune a suite of at most ${SYNC_TUNE_MAX_CASES} cases with background: false.`);

/** Counts the queries now (a 429 is answered here, not by the job later), stores the job's row and queues it. */
async function queueTuning(deps: TuningDeps, tenant: TenantRow, target: SuiteToTune, body: TuneBody): Promise<TuningJobOut> {
  if (!deps.tuneQueue().available()) throw queueDown();
  await deps.quotas.consumeQueries(tenant, target.cases.length);
  const row = {
    id: newId("tun"),
    tenant_id: tenant.id,
    suite_id: target.suite.id,
    collection_id: target.suite.collection_id,
    status: "queued" as const,
    apply: body.apply === true,
    phase: "queued",
    cases_done: 0,
    cases_total: target.cases.length,
    result: null,
    error: null,
    created_at: nowIso(),
    started_at: null,
    finished_at: null,
  };
  await deps.store.benchmarks.createTuning(row);
  try {
    await deps.tuneQueue().enqueue(tuneQueueJob(row));
  } catch (err) {
    if (!(err instanceof QueueUnavailableError)) throw err;
    await deps.store.benchmarks.transitionTuning(tenant.id, row.id, ["queued"], "failed", { error: "The tuning queue was unavailable; the tuning did not start.", finished_at: nowIso() });
    throw queueDown();
  }
  return tuningOut(row);
}

/** GET /benchmarks/{suite_id}/tunings/{tuning_id}: 404 for an unknown id, another suite's or another tenant's. */
export async function getTuning(deps: Pick<TuningDeps, "store">, p: Principal, suiteId: string, tuningId: string): Promise<TuningJobOut> {
  const row = await deps.store.benchmarks.getTuning(tenantOf(p).id, tuningId);
  if (!row || row.suite_id !== suiteId) throw notFound("Tuning", tuningId);
  return tuningOut(row);
}

/** GET /benchmarks/{suite_id}/tunings: the newest TUNINGS_LIST_LIMIT, newest first. */
export async function listTunings(deps: Pick<TuningDeps, "store">, p: Principal, suiteId: string): Promise<TuningJobOut[]> {
  const tenantId = tenantOf(p).id;
  if (!(await deps.store.benchmarks.getSuite(tenantId, suiteId))) throw notFound("Benchmark suite", suiteId);
  return (await deps.store.benchmarks.listTunings(tenantId, suiteId, TUNINGS_LIST_LIMIT)).map(tuningOut);
}

/**
 * POST /benchmarks/{suite_id}/tunings/{tuning_id}/cancel: queued or running -> cancelled. A running
 * job stops at its next case (the queue aborts its signal, in whichever process runs it, and its
 * next progress write finds the row no longer running); the collection is written only when a
 * tuning completes, so a cancelled one changes nothing. 409 once it has ended.
 */
export async function cancelTuning(deps: Pick<TuningDeps, "store" | "tuneQueue">, p: Principal, suiteId: string, tuningId: string): Promise<TuningJobOut> {
  const tenantId = tenantOf(p).id;
  const before = await getTuning(deps, p, suiteId, tuningId);
  const row = await deps.store.benchmarks.transitionTuning(tenantId, before.id, ["queued", "running"], "cancelled", { error: "The tuning was cancelled.", finished_at: nowIso() });
  if (!row) {
    const now = await getTuning(deps, p, suiteId, tuningId);
    throw conflict(`Tuning '${tuningId}' is ${now.status}; only queued or running tunings can be cancelled.`);
  }
  await deps.tuneQueue().cancel(TUNE_JOB_KIND, row.id);
  return tuningOut(row);
}
