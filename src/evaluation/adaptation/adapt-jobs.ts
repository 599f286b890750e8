// Adaptations as jobs (issue 27 item 4): POST /collections/{id}/adapt with background (the default
// for kind model, whose training takes minutes on a manual-sized collection, longer than proxies
// hold a request) answers 202 at once with a row that GET /collections/{id}/adaptations/{id} reads:
// status, phase, folds done and, once completed, the synchronous call's answer. The job runs the
// same runAdaptation on the tune queue (one worker, beside tunings and automatic adaptations).
// Automatic adaptations (adapt-service.ts) write a row of their own the same way (runTracked), so
// the list shows what the server did to a collection and what it is doing now.
//
// A retry (the worker died, the lease ran out) finds the row running and starts over: nothing is
// written to the collection before the very end of a run. An automatic run's job is retried by the
// queue under the collection's id, with a new row; the interrupted row is marked failed then.
import type { Logger } from "pino";
import type { AdaptationStatus, AdaptationStore, AdaptationTrigger, CollectionAdaptationRow } from "../../store/adaptation-types.js";
import { newId, nowIso } from "../../store/ids.js";
import { QueueUnavailableError, type JobQueue, type QueuedJob, type RunningJob } from "../../jobs/types.js";
import { conflict, notFound, ServiceError, unavailable, ValidationError } from "../../services/errors.js";
import type { WebhookEmitter } from "../../services/webhooks/webhooks.js";
import { CV_FOLDS } from "../tuning/tuning-cv.js";
import { ADAPT_JOB_KIND } from "./adapt-types.js";
import { adaptable, runAdaptation, type AdaptationReport, type AdaptDeps, type AdaptRequest } from "./adapt-run.js";

/** The queue job of one requested adaptation (subject: its row's id); ADAPT_JOB_KIND is the automatic one. */
export const ADAPT_RUN_JOB_KIND = "adapt-run";
/** A run's states: running, then applying once its guards passed and it writes the collection. */
const LIVE: readonly AdaptationStatus[] = ["running", "applying"];
/** Queue attempts of one adaptation job; each attempt starts over. */
const ADAPT_RUN_ATTEMPTS = 2;
/** GET /collections/{id}/adaptations lists this many, newest first. */
export const ADAPTATIONS_LIST_LIMIT = 50;

export interface AdaptJobDeps extends AdaptDeps {
  store: AdaptDeps["store"] & { adaptations: AdaptationStore };
  /** the tune queue */
  queue: () => JobQueue;
  log: Logger;
  /** webhook events (adaptation.completed); none in tests that leave it out */
  events?: WebhookEmitter;
}

export interface AdaptationJobOut {
  id: string;
  collection_id: string;
  kind: string;
  trigger: AdaptationTrigger;
  apply: boolean;
  status: CollectionAdaptationRow["status"];
  progress: { phase: string; folds_done: number; folds_total: number };
  result: CollectionAdaptationRow["result"];
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export const adaptationOut = (r: CollectionAdaptationRow): AdaptationJobOut => ({
  id: r.id,
  collection_id: r.collection_id,
  kind: r.kind,
  trigger: r.trigger,
  apply: r.apply,
  status: r.status,
  progress: { phase: r.phase, folds_done: r.folds_done, folds_total: CV_FOLDS },
  result: r.result,
  error: r.error,
  created_at: r.created_at,
  started_at: r.started_at,
  finished_at: r.finished_at,
});

const adaptJob = (row: { id: string; tenant_id: string }) => ({ tenant_id: row.tenant_id, kind: ADAPT_RUN_JOB_KIND, subject: row.id, max_attempts: ADAPT_RUN_ATTEMPTS });

const queueDown = () =>
  unavailable("The adaptation queue is not running, so the adaptation was not started. Try again in a moment, or send background: false to adapt in the request.");

/** A new adaptation's row: queued for a request in the background, running for an automatic one that starts now. */
function newRow(tenantId: string, collectionId: string, body: AdaptRequest, trigger: AdaptationTrigger, status: "queued" | "running"): CollectionAdaptationRow {
  const now = nowIso();
  return {
    id: newId("adp"),
    tenant_id: tenantId,
    collection_id: collectionId,
    kind: body.kind ?? "queries",
    trigger,
    apply: body.apply === true,
    status,
    phase: status === "queued" ? "queued" : "training",
    folds_done: 0,
    result: null,
    error: null,
    created_at: now,
    started_at: status === "queued" ? null : now,
    finished_at: null,
  };
}

/** Checks what can be checked now (404, 422), stores the job's row and queues it. */
export async function queueAdaptation(deps: AdaptJobDeps, tenantId: string, collectionId: string, body: AdaptRequest): Promise<AdaptationJobOut> {
  await adaptable(deps, tenantId, collectionId, body.kind ?? "queries");
  if (!deps.queue().available()) throw queueDown();
  const row = newRow(tenantId, collectionId, body, "request", "queued");
  await deps.store.adaptations.createAdaptation(row);
  try {
    await deps.queue().enqueue(adaptJob(row));
  } catch (err) {
    if (!(err instanceof QueueUnavailableError)) throw err;
    await deps.store.adaptations.transitionAdaptation(tenantId, row.id, ["queued"], "failed", { error: "The adaptation queue was unavailable; the adaptation did not start.", finished_at: nowIso() });
    throw queueDown();
  }
  return adaptationOut(row);
}

/** Why an adaptation failed, in words for the job's error. */
function failureMessage(err: unknown): string {
  if (err instanceof ValidationError) return `The adaptation could not run: ${err.issues.map((i) => i.msg).join(" ")}`;
  if (err instanceof ServiceError) return `The adaptation could not run: ${err.message}`;
  return `The adaptation stopped: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * A run that stopped because its row is no longer live: cancelled (a refusal for an automatic run)
 * or deleted with its collection. Not a failure: nothing to retry, nothing to log.
 */
export class AdaptationStopped extends Error {
  constructor(readonly cancelled: boolean) {
    super(cancelled ? "The adaptation was cancelled." : "The adaptation's collection was deleted.");
  }
}

/**
 * Runs the adaptation of a running row, writing its progress and how it ended (completed with the
 * answer, or failed with why); rethrows a failure. Stopped by `signal`, it leaves the row as it is
 * and throws AdaptationStopped when the row was cancelled or deleted, the abort itself when the
 * process is shutting down (the row stays running for the queue to retry).
 */
async function runTracked(deps: AdaptJobDeps, row: CollectionAdaptationRow, jobSignal: AbortSignal): Promise<AdaptationReport> {
  const { tenant_id: tenantId, id } = row;
  // a cancel reaches a job in another process only at its next lease renewal: each progress write
  // also finds out, from the row, whether it is still running (cancelled, or deleted with its collection)
  const stopped = new AbortController();
  const signal = AbortSignal.any([jobSignal, stopped.signal]);
  const onProgress = async (p: { phase: string; folds_done: number }) => {
    // applying is a status of its own: a cancel from then on is refused (409), so the collection
    // is never written by a run its row calls cancelled
    const live =
      p.phase === "applying"
        ? (await deps.store.adaptations.transitionAdaptation(tenantId, id, ["running"], "applying", p)) !== null
        : await deps.store.adaptations.setAdaptationProgress(tenantId, id, p);
    if (!live) stopped.abort(new Error("The adaptation is no longer running."));
  };
  try {
    const body: AdaptRequest = { apply: row.apply, kind: row.kind === "model" ? "model" : "queries" };
    const result = await runAdaptation(deps, tenantId, row.collection_id, body, { onProgress, signal });
    await emitEnded(deps, await deps.store.adaptations.transitionAdaptation(tenantId, id, LIVE, "completed", { phase: "done", result, finished_at: nowIso() }), result.apply.applied);
    return result;
  } catch (err) {
    if (!signal.aborted) {
      await emitEnded(deps, await deps.store.adaptations.transitionAdaptation(tenantId, id, LIVE, "failed", { error: failureMessage(err), finished_at: nowIso() }), false);
      throw err;
    }
    const now = await deps.store.adaptations.getAdaptation(tenantId, id);
    if (!now || now.status === "cancelled") throw new AdaptationStopped(now !== null);
    throw err;
  }
}

/** adaptation.completed: an adaptation job ended, completed (with whether it was applied) or failed; not when cancelled (its canceller knows). */
async function emitEnded(deps: Pick<AdaptJobDeps, "events">, row: CollectionAdaptationRow | null, applied: boolean): Promise<void> {
  if (!row || !deps.events) return;
  const data = { adaptation_id: row.id, collection_id: row.collection_id, trigger: row.trigger, kind: row.kind, status: row.status, applied, error: row.error };
  await deps.events.emit(row.tenant_id, "adaptation.completed", data, { collectionId: row.collection_id });
}

/**
 * An automatic adaptation (or a tuning's adapt_model) of the collection, recorded as a row like a
 * requested one. Its queue job is the collection's (one at a time), so a row of the same trigger
 * still running is one a crash or a shutdown interrupted: it is marked failed first.
 */
export async function runRecorded(
  deps: AdaptJobDeps,
  job: Pick<RunningJob, "tenant_id" | "subject" | "signal">,
  body: AdaptRequest,
  trigger: "automatic" | "tuning",
): Promise<AdaptationReport> {
  const { tenant_id: tenantId, subject: collectionId } = job;
  await failLiveRuns(deps, tenantId, collectionId, (r) => r.trigger === trigger, INTERRUPTED);
  const row = newRow(tenantId, collectionId, body, trigger, "running");
  await deps.store.adaptations.createAdaptation(row);
  return runTracked(deps, row, job.signal);
}

/** Marks failed the collection's live rows that `which` picks: runs whose job is the collection's, which nothing else will end. */
async function failLiveRuns(deps: Pick<AdaptJobDeps, "store">, tenantId: string, collectionId: string, which: (r: CollectionAdaptationRow) => boolean, error: string): Promise<void> {
  for (const r of await deps.store.adaptations.listAdaptations(tenantId, collectionId, ADAPTATIONS_LIST_LIMIT)) {
    if (LIVE.includes(r.status) && which(r)) await deps.store.adaptations.transitionAdaptation(tenantId, r.id, LIVE, "failed", { error, finished_at: nowIso() });
  }
}

const INTERRUPTED = "The adaptation was interrupted (the server stopped); it was started again.";

/** The tune queue's handler of ADAPT_RUN_JOB_KIND. */
export async function handleAdaptJob(deps: AdaptJobDeps, job: RunningJob): Promise<void> {
  // from "running" too: a retry after a crash starts over
  const patch = { phase: "training", folds_done: 0, result: null, error: null, started_at: nowIso(), finished_at: null };
  const row = await deps.store.adaptations.transitionAdaptation(job.tenant_id, job.subject, ["queued", ...LIVE], "running", patch);
  if (!row) return; // deleted with its collection or tenant, cancelled, or already ended
  try {
    const result = await runTracked(deps, row, job.signal);
    deps.log.info({ event: "adaptation", adaptation: row.id, tenant: row.tenant_id, collection: row.collection_id, kind: row.kind, applied: result.apply.applied, ms: result.took_ms }, result.apply.detail);
  } catch (err) {
    // cancelled or deleted meanwhile, or a shutdown: the queue puts the job back and its next run starts over
    if (err instanceof AdaptationStopped || job.signal.aborted) return;
    // a collection that cannot be adapted (too few pairs, deleted meanwhile) or a failure: retrying would not help
    deps.log.warn({ err, adaptation: row.id, tenant: row.tenant_id }, "adaptation failed");
  }
}

/**
 * POST /collections/{id}/adaptations/{adaptation_id}/cancel: queued or running -> cancelled. A
 * running one stops after the training it is in (the queue aborts its job, in whichever process
 * runs it); nothing is written to the collection before a run's end, so it is left as it was. 409
 * once it has ended.
 */
export async function cancelAdaptation(deps: Pick<AdaptJobDeps, "store" | "queue">, tenantId: string, collectionId: string, id: string): Promise<AdaptationJobOut> {
  await getAdaptation(deps, tenantId, collectionId, id);
  const row = await deps.store.adaptations.transitionAdaptation(tenantId, id, ["queued", "running"], "cancelled", { error: "The adaptation was cancelled.", finished_at: nowIso() });
  if (!row) {
    const now = await getAdaptation(deps, tenantId, collectionId, id);
    const why = now.status === "applying" ? "it passed its checks and is being written to the collection" : `it is ${now.status}`;
    throw conflict(`Adaptation '${id}' can no longer be cancelled: ${why}. Only queued or running adaptations can be cancelled.`);
  }
  // a requested run's job is its own; an automatic one's (or a tuning's) is the collection's
  if (row.trigger === "request") await deps.queue().cancel(ADAPT_RUN_JOB_KIND, row.id);
  else await deps.queue().cancel(ADAPT_JOB_KIND, row.collection_id);
  return adaptationOut(row);
}

/** The queue gave up on an adaptation job (attempts used up): say so on its row. */
export async function giveUpAdaptation(deps: Pick<AdaptJobDeps, "store">, job: Pick<QueuedJob, "tenant_id" | "subject" | "kind">, error: string): Promise<void> {
  const failed = `The adaptation could not run: ${error}`;
  if (job.kind === ADAPT_RUN_JOB_KIND) await deps.store.adaptations.transitionAdaptation(job.tenant_id, job.subject, ["queued", ...LIVE], "failed", { error: failed, finished_at: nowIso() });
  // an automatic run's job is the collection's: its row left running by the last attempt
  if (job.kind === ADAPT_JOB_KIND) await failLiveRuns(deps, job.tenant_id, job.subject, (r) => r.trigger !== "request", failed);
}

/** Tune queue recovery: every queued or running requested adaptation has a live queue job (an automatic one's job is the collection's, which the queue keeps). */
export async function recoverAdaptations(deps: Pick<AdaptJobDeps, "store" | "log">, queue: Pick<JobQueue, "enqueue">): Promise<number> {
  let n = 0;
  for (const row of await deps.store.adaptations.unfinishedAdaptations()) if (row.trigger === "request" && (await queue.enqueue({ ...adaptJob(row), unlessLive: true }))) n++;
  if (n) deps.log.info({ adaptations: n }, "resuming interrupted adaptations");
  return n;
}

/** GET /collections/{id}/adaptations/{adaptation_id}: 404 for an unknown id, another collection's or another tenant's. */
export async function getAdaptation(deps: Pick<AdaptJobDeps, "store">, tenantId: string, collectionId: string, id: string): Promise<AdaptationJobOut> {
  const row = await deps.store.adaptations.getAdaptation(tenantId, id);
  if (!row || row.collection_id !== collectionId) throw notFound("Adaptation", id);
  return adaptationOut(row);
}

/** GET /collections/{id}/adaptations: the newest ADAPTATIONS_LIST_LIMIT, newest first. */
export async function listAdaptations(deps: Pick<AdaptJobDeps, "store">, tenantId: string, collectionId: string): Promise<AdaptationJobOut[]> {
  if (!(await deps.store.content.collectionScope(tenantId, collectionId))) throw notFound("Collection", collectionId);
  return (await deps.store.adaptations.listAdaptations(tenantId, collectionId, ADAPTATIONS_LIST_LIMIT)).map(adaptationOut);
}
