// One adaptation of a collection's model (issue 27 item 4), of either kind (adapt-methods.ts), with
// the tuning's guards: the collection's heading -> section pairs are split as tuning splits its
// cases (fusion-search.ts splitCases: 30% held out by the hash of their id), the adaptation is
// trained on the rest and scored on the held-out pairs against the base model; the training is also
// repeated on 5 folds (tuning-cv.ts foldsOf), every pair scored once by a copy trained without it.
// The adaptation is written to the collection only when asked, when it improves the held-out pairs
// (nDCG@10, then recall, then MRR: fusion-search.ts better) and when it does not lose out of fold
// (the tuning's mayApply).
import fsp from "node:fs/promises";
import type { CollectionCatalog, VectorStore } from "../../store/content-store.js";
import type { Json } from "../../store/content-types.js";
import type { FileStore } from "../../store/files.js";
import { newId, nowIso } from "../../store/ids.js";
import type { StaticBaseModel } from "../../embed/index.js";
import { encodeQueryDelta, type QueryDelta } from "../../model/query-delta.js";
import type { AdaptPair } from "../../model/query-adapt.js";
import { notFound, ValidationError } from "../../services/errors.js";
import { adaptationFileOf, adaptationOf, type ModelAdaptation } from "../../services/search/query-models.js";
import { checkAdaptedSources, modelStateOf, otherCollections, reembedChanged } from "../../services/collections/adapted-sources.js";
import { better, inHashOrder, mayApply, splitCases } from "../tuning/fusion-search.js";
import { CV_FOLDS, foldsOf, pooled } from "../tuning/tuning-cv.js";
import { collectionPairs, collectionText, type PairStore } from "./collection-pairs.js";
import { modelMethod, queriesMethod, type AdaptKind, type AdaptMethod, type Scores } from "./adapt-methods.js";

/** Fewer pairs than this leave too few to train on and to check with (422). */
export const MIN_ADAPT_PAIRS = 40;
/** held-out pairs scored (the first in hash order): each ranks against every passage */
const MAX_SCORED_HELD_OUT = 1_000;
/** pairs scored per fold of the cross-validation */
const MAX_SCORED_PER_FOLD = 300;

export interface AdaptDeps {
  store: PairStore & { content: Pick<CollectionCatalog, "collectionScope" | "updateCollection" | "sourceLanguages"> & Pick<VectorStore, "resetEmbeddings"> };
  files: FileStore;
  /** null when the active profile is not a static model of Quarry's (nothing to adapt) */
  baseModel: () => StaticBaseModel | null;
  /** chunks were marked unembedded (a whole-model adaptation applied or replaced): the backfill's request */
  vectorsStale?: () => void;
}

export interface AdaptRequest {
  apply?: boolean;
  /** "queries" (the default) or "model" */
  kind?: AdaptKind;
}

/** Where a running adaptation is (adapt-jobs.ts writes it to the job's row). */
export interface AdaptProgress {
  phase: "training" | "cross-validation" | "applying";
  folds_done: number;
}

export interface AdaptHooks {
  onProgress?: (p: AdaptProgress) => Promise<void>;
  /** a cancel (or a shutdown): the adaptation stops after the training it is in, before anything is written (checked after each onProgress) */
  signal?: AbortSignal;
}

const refuse = (msg: string, input: unknown, field = "collection_id") => new ValidationError([{ type: "value_error", loc: [field === "collection_id" ? "path" : "body", field], msg, input }]);

const f3 = (x: number) => x.toFixed(3);

async function crossValidateAdaptation(method: AdaptMethod, pairs: AdaptPair[], hooks: AdaptHooks) {
  const indexed = pairs.map((p, i) => ({ id: p.id, i }));
  const k = Math.min(CV_FOLDS, pairs.length);
  const folds = foldsOf(indexed, k);
  const parts: Scores[] = [];
  for (const [f, fold] of folds.entries()) {
    const rest = folds.flatMap((x, j) => (j === f ? [] : x.map((c) => c.i)));
    parts.push((await method.trainAndScore(rest, fold.slice(0, MAX_SCORED_PER_FOLD).map((c) => c.i), {})).scores);
    await hooks.onProgress?.({ phase: "cross-validation", folds_done: f + 1 });
    hooks.signal?.throwIfAborted();
  }
  const folds_better = parts.filter((p) => better(p.adapted, p.base)).length;
  const folds_worse = parts.filter((p) => better(p.base, p.adapted)).length;
  return { folds: k, base: pooled(parts.map((p) => p.base)), adapted: pooled(parts.map((p) => p.adapted)), folds_better, folds_worse };
}

/** Stores the delta as a file of the tenant's and points the collection's settings at it. */
async function applyAdaptation(deps: AdaptDeps, tenantId: string, collectionId: string, record: ModelAdaptation, delta: QueryDelta): Promise<void> {
  const tmp = deps.files.tempPath();
  await fsp.writeFile(tmp, encodeQueryDelta(delta));
  await deps.files.put(tenantId, adaptationFileOf(record.id), tmp);
  // the collection as it is now: training took a while, and it may have changed meanwhile
  const scope = await deps.store.content.collectionScope(tenantId, collectionId);
  if (!scope) return deps.files.remove(tenantId, adaptationFileOf(record.id)); // deleted meanwhile
  const settings = { ...scope.settings, model_adaptation: record as unknown as Json[string] };
  const after = modelStateOf(settings, scope.data_source_ids);
  // a source shared meanwhile
  if (after.adaptation) await checkAdaptedSources(deps.store.content, tenantId, collectionId, after, await otherCollections(deps.store.content, tenantId, collectionId, after.ids));
  await deps.store.content.updateCollection(tenantId, collectionId, { settings });
  // a whole-model adaptation (new, or replaced) changes the model of the sources' chunks
  await reembedChanged(deps.store.content, tenantId, modelStateOf(scope.settings, scope.data_source_ids), after, deps.vectorsStale);
  // the adaptation it replaces (its file; its record was overwritten above)
  const before = adaptationOf(scope.settings);
  if (before?.id && before.id !== record.id) await deps.files.remove(tenantId, adaptationFileOf(before.id));
}

interface Verdict {
  improves: boolean;
  generalises: boolean;
  requested: boolean;
  heldOutLine: string;
  crossLine: string;
}

function detailOf(v: Verdict, collectionId: string, kind: AdaptKind): string {
  const keeps = kind === "model" ? "The collection keeps its model." : "The collection's queries keep the base model.";
  if (!v.improves) return `Not applied: the adapted model does not improve the held-out pairs (${v.heldOutLine}). ${keeps}`;
  if (!v.generalises) return `Not applied: it improves the held-out pairs (${v.heldOutLine}) but loses out of fold (${v.crossLine}), so on this collection adaptation learns noise. ${keeps}`;
  if (!v.requested) return `Not applied (the request did not ask for it). It improves the held-out pairs (${v.heldOutLine}) and does not lose out of fold (${v.crossLine}); send apply: true to apply it.`;
  const what =
    kind === "model"
      ? "its queries are embedded with the adapted model from now on, and its chunks are being embedded again with it (until then vector search may miss some; lexical search is unaffected)"
      : "its queries are embedded with the adapted model from now on";
  return `Applied to collection '${collectionId}' (${v.heldOutLine}; ${v.crossLine}): ${what}. settings.model_adaptation.enabled: false reverts to the base model.`;
}

/** The method the request asks for, with what it trains on; 422 for too few pairs. */
async function methodFor(deps: AdaptDeps, tenantId: string, collectionId: string, base: StaticBaseModel, kind: AdaptKind) {
  const text = kind === "model" ? await collectionText(deps.store, tenantId, collectionId) : { pairs: await collectionPairs(deps.store, tenantId, collectionId), passages: [] };
  const { pairs } = text;
  if (pairs.length < MIN_ADAPT_PAIRS) {
    throw refuse(
      `The collection has ${pairs.length} heading -> section pair${pairs.length === 1 ? "" : "s"} with a single answer; adaptation needs at least ${MIN_ADAPT_PAIRS} (30% are held out to check the result). Add documents with headings.`,
      pairs.length,
    );
  }
  return { pairs, method: kind === "model" ? modelMethod(base, pairs, text.passages) : queriesMethod(base, pairs) };
}

/**
 * What is checked before anything is read or trained (404; 422 without a static model, and for
 * kind model over a data source another collection shares): a request queued as a job is answered
 * with these at once rather than failing later.
 */
export async function adaptable(deps: AdaptDeps, tenantId: string, collectionId: string, kind: AdaptKind) {
  const base = deps.baseModel();
  const scope = await deps.store.content.collectionScope(tenantId, collectionId);
  if (!scope) throw notFound("Collection", collectionId);
  if (!base) {
    throw refuse("The active embedding profile is not Quarry's static model, so there is no model to adapt. Start the server with EMBEDDING_PROFILE=quarry-static and reindex.", collectionId);
  }
  if (kind === "model") {
    // refused before training: applying it would be refused (adapted-sources.ts)
    const [shared] = await otherCollections(deps.store.content, tenantId, collectionId, scope.data_source_ids);
    if (shared) {
      throw refuse(
        `A whole-model adaptation embeds the collection's data sources' chunks with its own model, and data source '${shared.data_source_id}' is also in collection '${shared.collection_id}'. Adapt with kind "queries" (its queries only), or give the collection data sources of its own.`,
        kind,
        "kind",
      );
    }
  }
  return base;
}

/** The adaptation itself: pairs, split, training, guards, and the write when allowed and asked. */
export async function runAdaptation(deps: AdaptDeps, tenantId: string, collectionId: string, body: AdaptRequest, hooks: AdaptHooks = {}) {
  const started = performance.now();
  const kind = body.kind ?? "queries";
  const base = await adaptable(deps, tenantId, collectionId, kind);
  const { pairs, method } = await methodFor(deps, tenantId, collectionId, base, kind);
  const indexed = pairs.map((p, i) => ({ id: p.id, i }));
  const { tuning, heldOut } = splitCases(indexed);
  const asked = inHashOrder(heldOut).slice(0, MAX_SCORED_HELD_OUT).map((c) => c.i);
  const training = { pairs: tuning.length, settings: method.settings };
  await hooks.onProgress?.({ phase: "training", folds_done: 0 });
  const { delta, scores } = await method.trainAndScore(tuning.map((c) => c.i), asked, training);
  await hooks.onProgress?.({ phase: "cross-validation", folds_done: 0 });
  hooks.signal?.throwIfAborted();
  const cv = await crossValidateAdaptation(method, pairs, hooks);
  const improves = better(scores.adapted, scores.base);
  const generalises = mayApply(cv.adapted, cv.base);
  const requested = body.apply === true;
  const heldOutLine = `held-out nDCG@10 ${f3(scores.adapted.ndcg_at_10)} against ${f3(scores.base.ndcg_at_10)} for the base model`;
  const crossLine = `${cv.folds}-fold nDCG@10 ${cv.adapted.ndcg_at_10.toFixed(4)} against ${cv.base.ndcg_at_10.toFixed(4)}`;
  const allowed = improves && generalises;
  const applied = allowed && requested;
  let record: ModelAdaptation | null = null;
  if (applied) {
    await hooks.onProgress?.({ phase: "applying", folds_done: cv.folds });
    hooks.signal?.throwIfAborted();
    record = {
      id: newId("qad"),
      kind,
      enabled: true,
      base_model: base.name,
      created_at: nowIso(),
      pairs: pairs.length,
      tokens: delta.tokens.length,
      held_out: { base: scores.base.ndcg_at_10, adapted: scores.adapted.ndcg_at_10 },
    };
    await applyAdaptation(deps, tenantId, collectionId, record, delta);
  }
  return {
    collection_id: collectionId,
    base_model: base.name,
    kind,
    method: method.description,
    pairs: { total: pairs.length, training: tuning.length, held_out: heldOut.length, held_out_scored: asked.length },
    tokens: delta.tokens.length,
    losses: delta.training.losses as number[],
    held_out: scores,
    cross_validation: cv,
    apply: { requested, applied, allowed, detail: detailOf({ improves, generalises, requested, heldOutLine, crossLine }, collectionId, kind) },
    model_adaptation: record,
    took_ms: Math.round(performance.now() - started),
  };
}

export type AdaptationReport = Awaited<ReturnType<typeof runAdaptation>>;
