// Per-collection adaptation of the query model (issue 27 item 4), started three ways:
// - POST /collections/{id}/adapt: in the request (seconds for hundreds of sections, about a
//   minute for 5,000 on two busy cores), or as a job with background (the default for kind model:
//   minutes), which adapt-jobs.ts runs and GET /collections/{id}/adaptations/{id} follows;
// - POST /benchmarks/{suite_id}/tune with adapt_model: true: the suite's collection, after the
//   fusion tuning, under the same apply;
// - automatically: once a collection holds AUTO_MIN_DOCUMENTS indexed documents and has no
//   adaptation record, a job on the tune queue adapts it (apply: true, so still only when the
//   guards of adapt-run.ts pass): the whole model when its data sources are its own, its queries
//   otherwise (a source in two collections keeps the base model's vectors). A refused attempt is recorded (settings.model_adaptation with
//   enabled false and applied false) and tried again only once the collection has doubled.
import type { JobQueue, QueuedJob, RunningJob } from "../../jobs/types.js";
import type { CollectionCatalog, DocumentCatalog } from "../../store/content-store.js";
import type { Json } from "../../store/content-types.js";
import { nowIso } from "../../store/ids.js";
import { tenantOf, type Principal } from "../../services/auth/auth-types.js";
import { ValidationError } from "../../services/errors.js";
import { runAdaptation, type AdaptationReport, type AdaptRequest } from "./adapt-run.js";
import {
  getAdaptation,
  giveUpAdaptation,
  handleAdaptJob,
  listAdaptations,
  queueAdaptation,
  recoverAdaptations,
  runRecorded,
  cancelAdaptation,
  AdaptationStopped,
  type AdaptationJobOut,
  type AdaptJobDeps,
} from "./adapt-jobs.js";

import { ADAPT_JOB_KIND } from "./adapt-types.js";
import type { AdaptKind } from "./adapt-methods.js";
import { otherCollections } from "../../services/collections/adapted-sources.js";

export { ADAPT_JOB_KIND };
/**
 * The size at which a collection adapts on its own (ADAPT_AUTO_MIN_DOCUMENTS): 200 indexed
 * documents. Below it a collection's headings are few (adapt-run.ts refuses under 40 pairs; a
 * documentation page gives 2-6) and a held-out third of them is a thin check; above it every
 * manual-sized collection gets the chance (LibreOffice's help, 2,560 pages).
 */
export const AUTO_MIN_DOCUMENTS = 200;
/**
 * Or this many chunks in its indexed documents (ADAPT_AUTO_MIN_CHUNKS): a reference of few long
 * pages has many sections (the Node.js API docs: 63 pages, 4,645 chunks, 3,599 heading pairs) and
 * gained from adapting (docs/benchmarks.md), where counting documents alone never started it.
 */
export const AUTO_MIN_CHUNKS = 2_000;
/**
 * A source's collections are checked at most this often per process (crawls and uploads index
 * documents in a stream); a check skipped in the window runs at its end, so the last document of
 * a burst is always counted. ADAPT_CHECK_SECONDS sets it.
 */
const CHECK_EVERY_MS = 10_000;

export interface AdapterDeps extends AdaptJobDeps {
  store: AdaptJobDeps["store"] & { content: Pick<CollectionCatalog, "getCollection" | "sourceLanguages"> & Pick<DocumentCatalog, "chunkCount"> };
  /** ADAPT_AUTO_MIN_DOCUMENTS (default AUTO_MIN_DOCUMENTS); 0: never automatically */
  autoMinDocuments?: number;
  /** ADAPT_AUTO_MIN_CHUNKS (default AUTO_MIN_CHUNKS): a collection this large adapts too; 0: documents only */
  autoMinChunks?: number;
  /** ADAPT_CHECK_SECONDS in ms (default CHECK_EVERY_MS) */
  checkEveryMs?: number;
}

/** The record of an automatic attempt that was refused: the documents (and chunks) it saw, so it is retried only after growth. */
interface Attempt {
  documents?: number;
  chunks?: number;
  applied?: boolean;
}

/** A collection's size as the automatic start counts it, and the size it starts at. */
interface Size {
  documents: number;
  chunks: number;
}

function attemptOf(settings: Json): Attempt | null {
  const v = settings.model_adaptation;
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Attempt) : null;
}

const CANCELLED_DETAIL =
  "The automatic adaptation was cancelled. It is tried again once the collection has doubled; settings.model_adaptation_auto: false turns automatic adaptation off.";

async function autoAdapt(deps: AdapterDeps, job: RunningJob): Promise<void> {
  const collection = await deps.store.content.getCollection(job.tenant_id, job.subject);
  if (!collection) return;
  // queued by a tuning in the background: its apply; queued on reaching the size: apply
  const tuningApply = job.payload?.apply;
  const automatic = typeof tuningApply !== "boolean";
  const apply = automatic ? true : tuningApply;
  try {
    const kind = automatic ? await automaticKind(deps, job.tenant_id, job.subject) : "queries";
    const r = await runRecorded(deps, job, { apply, kind }, automatic ? "automatic" : "tuning");
    deps.log.info({ event: "adaptation", kind, tenant: job.tenant_id, collection: job.subject, applied: r.apply.applied, held_out: r.held_out, ms: r.took_ms }, r.apply.detail);
    if (!r.apply.applied && automatic) await recordRefused(deps, job, collection.data_source_ids, collection.indexed_count, r.apply.detail);
  } catch (err) {
    if (err instanceof ValidationError) {
      deps.log.info({ tenant: job.tenant_id, collection: job.subject, reason: err.message }, "automatic adaptation not possible");
      return;
    }
    // cancelled: not started again at the next document, as a refusal is not
    if (err instanceof AdaptationStopped) {
      if (err.cancelled && automatic) await recordRefused(deps, job, collection.data_source_ids, collection.indexed_count, CANCELLED_DETAIL);
      return;
    }
    // a shutdown: the queue runs it again
    if (!job.signal.aborted) throw err;
  }
}

/** A refused (or cancelled) automatic attempt: the size it was tried at, so it is tried again only once the collection has doubled. */
async function recordRefused(deps: AdapterDeps, job: RunningJob, sourceIds: string[], documents: number, detail: string): Promise<void> {
  // the collection's settings are re-read: the run took a while
  const now = await deps.store.content.getCollection(job.tenant_id, job.subject);
  if (!now || attemptOf(now.settings)?.applied !== undefined) return;
  const chunks = await deps.store.content.chunkCount(job.tenant_id, sourceIds);
  const record = { enabled: false, applied: false, documents, chunks, tried_at: nowIso(), detail };
  await deps.store.content.updateCollection(job.tenant_id, job.subject, { settings: { ...now.settings, model_adaptation: record } });
}

/** An automatic adaptation's kind: the whole model when no data source of the collection is in another collection. */
async function automaticKind(deps: AdapterDeps, tenantId: string, collectionId: string): Promise<AdaptKind> {
  const scope = await deps.store.content.collectionScope(tenantId, collectionId);
  if (!scope) return "queries";
  return (await otherCollections(deps.store.content, tenantId, collectionId, scope.data_source_ids)).length > 0 ? "queries" : "model";
}

/** Whether a collection of this size should adapt on its own now. */
function due(settings: Json, size: Size, min: Size): boolean {
  const large = size.documents >= min.documents || (min.chunks > 0 && size.chunks >= min.chunks);
  if (min.documents <= 0 || !large || settings.model_adaptation_auto === false) return false;
  const a = attemptOf(settings);
  if (!a) return true;
  // an applied adaptation (or one turned off by hand) stays as it is; a refused one waits for growth
  if (a.applied !== false || typeof a.documents !== "number") return false;
  return size.documents >= 2 * a.documents || (typeof a.chunks === "number" && a.chunks > 0 && size.chunks >= 2 * a.chunks);
}

/** POST /collections/{id}/adapt's body: the adaptation, and whether it runs as a job */
export interface AdaptBody extends AdaptRequest {
  /** true: a job (202); false: in the request; absent: a job for kind model only */
  background?: boolean;
}

export type AdaptAnswer = { background: false; result: AdaptationReport } | { background: true; job: AdaptationJobOut };

export function createAdapter(deps: AdapterDeps) {
  const checked = new Map<string, number>();
  const trailing = new Set<string>();
  const min: Size = { documents: deps.autoMinDocuments ?? AUTO_MIN_DOCUMENTS, chunks: deps.autoMinChunks ?? AUTO_MIN_CHUNKS };
  const checkEvery = deps.checkEveryMs ?? CHECK_EVERY_MS;

  /** a check skipped in the window runs once at its end */
  function later(key: string, wait: number, run: () => Promise<void>): void {
    if (trailing.has(key)) return;
    trailing.add(key);
    setTimeout(() => {
      trailing.delete(key);
      void run();
    }, wait).unref();
  }

  async function checkSource(tenantId: string, sourceId: string): Promise<void> {
    if (min.documents <= 0 || !deps.baseModel()) return;
    const key = `${tenantId}/${sourceId}`;
    const last = checked.get(key);
    if (last !== undefined && Date.now() - last < checkEvery) {
      later(key, checkEvery - (Date.now() - last), () => checkSource(tenantId, sourceId).catch((err: unknown) => deps.log.warn({ err }, "adaptation check failed")));
      return;
    }
    checked.set(key, Date.now());
    const collections = new Set((await deps.store.content.sourceLanguages(tenantId, [sourceId])).map((r) => r.collection_id));
    for (const id of collections) {
      const c = await deps.store.content.getCollection(tenantId, id);
      if (!c) continue;
      // chunks are counted only where the documents alone do not decide it
      const chunks = c.indexed_count >= min.documents || min.chunks <= 0 ? 0 : await deps.store.content.chunkCount(tenantId, c.data_source_ids);
      if (!due(c.settings, { documents: c.indexed_count, chunks }, min)) continue;
      await deps.queue().enqueue({ tenant_id: tenantId, kind: ADAPT_JOB_KIND, subject: id, max_attempts: 2, unlessLive: true });
      deps.log.info({ tenant: tenantId, collection: id, documents: c.indexed_count, chunks }, "collection reached the adaptation size; adaptation queued");
    }
  }

  return {
    /** POST /collections/{id}/adapt: the answer, or the queued job */
    adapt: async (p: Principal, collectionId: string, body: AdaptBody = {}): Promise<AdaptAnswer> => {
      const { background = body.kind === "model", ...request } = body;
      const tenantId = tenantOf(p).id;
      if (background) return { background: true, job: await queueAdaptation(deps, tenantId, collectionId, request) };
      return { background: false, result: await runAdaptation(deps, tenantId, collectionId, request) };
    },
    /** GET /collections/{id}/adaptations/{adaptation_id} */
    adaptation: (p: Principal, collectionId: string, id: string) => getAdaptation(deps, tenantOf(p).id, collectionId, id),
    /** GET /collections/{id}/adaptations */
    adaptations: (p: Principal, collectionId: string) => listAdaptations(deps, tenantOf(p).id, collectionId),
    /** POST /collections/{id}/adaptations/{adaptation_id}/cancel */
    cancel: (p: Principal, collectionId: string, id: string) => cancelAdaptation(deps, tenantOf(p).id, collectionId, id),
    /** the same for a tenant the caller already resolved (a tuning's adapt_model) */
    adaptIn: (tenantId: string, collectionId: string, body: AdaptRequest = {}) => runAdaptation(deps, tenantId, collectionId, body),
    /** the tune queue's handler of ADAPT_JOB_KIND (automatic, or after a tuning) */
    handle: (job: RunningJob) => autoAdapt(deps, job),
    /** the tune queue's handler of ADAPT_RUN_JOB_KIND (a requested adaptation in the background) */
    handleRun: (job: RunningJob) => handleAdaptJob(deps, job),
    /** the queue gave up on a requested adaptation */
    giveUp: (job: QueuedJob, error: string) => giveUpAdaptation(deps, job, error),
    /** tune queue recovery: every unfinished requested adaptation has a live job */
    recover: (queue: Pick<JobQueue, "enqueue">) => recoverAdaptations(deps, queue),
    /** documents of a source were indexed: queue the adaptation of its collections that reached the size */
    sourceChanged: (tenantId: string, sourceId: string) =>
      checkSource(tenantId, sourceId).catch((err: unknown) => deps.log.warn({ err, tenant: tenantId, source: sourceId }, "adaptation check failed")),
  };
}

export type Adapter = ReturnType<typeof createAdapter>;
