// Adaptation jobs of collections (POST /collections/{id}/adapt in the background, and the
// automatic ones; issue 27 item 4): status, progress and, once completed, the answer the
// synchronous call gives. A whole-model adaptation of a manual-sized collection trains for minutes,
// longer than a proxy holds a request.
import type { Json } from "./content-types.js";
import type { JobTable } from "./job-rows.js";

/** queued -> running -> applying -> completed; failed from any before completed; cancelled while queued or running */
export type AdaptationStatus = "queued" | "running" | "applying" | "completed" | "failed" | "cancelled";

/** what started it: POST .../adapt in the background, the collection reaching the size, or a tuning's adapt_model */
export type AdaptationTrigger = "request" | "automatic" | "tuning";

export interface CollectionAdaptationRow {
  id: string;
  tenant_id: string;
  collection_id: string;
  /** queries or model (AdaptRequest.kind) */
  kind: string;
  trigger: AdaptationTrigger;
  /** the request asked for it to be applied (under the guards of adapt-run.ts) */
  apply: boolean;
  status: AdaptationStatus;
  /** where a running adaptation is: queued, training, cross-validation, applying, done */
  phase: string;
  /** trainings of the cross-validation finished (of CV_FOLDS) */
  folds_done: number;
  /** the synchronous call's answer (AdaptationOut) once completed */
  result: Json | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export type UnfinishedAdaptation = Pick<CollectionAdaptationRow, "id" | "tenant_id" | "trigger">;

export type AdaptationPatch = Partial<Pick<CollectionAdaptationRow, "phase" | "folds_done" | "result" | "error" | "started_at" | "finished_at">>;

export interface AdaptationStore {
  /** an adaptation job's row (the caller queues its job); deleting the collection or the tenant deletes it */
  createAdaptation(row: CollectionAdaptationRow): Promise<void>;
  getAdaptation(tenantId: string, id: string): Promise<CollectionAdaptationRow | null>;
  /** one collection's adaptations, newest first (ties in insertion order, newest first) */
  listAdaptations(tenantId: string, collectionId: string, limit: number): Promise<CollectionAdaptationRow[]>;
  /**
   * Moves the adaptation to `to` when its status is one of `from`, applying `patch`, atomically.
   * The updated row, or null when it is missing (in this tenant) or in another state.
   */
  transitionAdaptation(
    tenantId: string,
    id: string,
    from: readonly AdaptationStatus[],
    to: AdaptationStatus,
    patch?: AdaptationPatch,
  ): Promise<CollectionAdaptationRow | null>;
  /** progress of a running adaptation; false (and nothing written) when it is no longer running (cancelled, applying) or gone */
  setAdaptationProgress(tenantId: string, id: string, progress: { phase: string; folds_done: number }): Promise<boolean>;
  /** queued, running or applying adaptations of every tenant (queue recovery) */
  unfinishedAdaptations(): Promise<UnfinishedAdaptation[]>;
}

/** collection_adaptations as a job table (job-rows.ts) */
export const ADAPTATIONS_TABLE: JobTable = {
  table: "collection_adaptations",
  columns: ["id", "tenant_id", "collection_id", "kind", "trigger", "apply", "status", "phase", "folds_done", "result", "error", "created_at", "started_at", "finished_at"],
  patchable: ["phase", "folds_done", "result", "error", "started_at", "finished_at"],
};
