// One adaptation of a collection's query model (issue 27 item 4), with the tuning's guards: the
// collection's heading -> section pairs are split as tuning splits its cases (fusion-search.ts
// splitCases: 30% held out by the hash of their id), the query copy is trained on the rest
// (model/query-adapt.ts) and scored on the held-out pairs against the base model; the training is
// also repeated on 5 folds (tuning-cv.ts foldsOf), every pair scored once by a copy trained
// without it. The adaptation is written to the collection only when asked, when it improves the
// held-out pairs (nDCG@10, then recall, then MRR: fusion-search.ts better) and when it does not
// lose out of fold (the tuning's mayApply).
import fsp from "node:fs/promises";
import type { CollectionCatalog } from "../../store/content-store.js";
import type { Json } from "../../store/content-types.js";
import type { FileStore } from "../../store/files.js";
import { newId, nowIso } from "../../store/ids.js";
import type { StaticBaseModel } from "../../embed/index.js";
import { AdaptedQueryEncoder, encodeQueryDelta, type QueryDelta } from "../../model/query-delta.js";
import { adaptQueries, ADAPT_DEFAULTS, passageVectors, scorePairs, type AdaptPair, type PairMetrics } from "../../model/query-adapt.js";
import { notFound, ValidationError } from "../../services/errors.js";
import { adaptationFileOf, adaptationOf, type ModelAdaptation } from "../../services/search/query-models.js";
import { better, inHashOrder, mayApply, splitCases } from "../tuning/fusion-search.js";
import { CV_FOLDS, foldsOf, pooled } from "../tuning/tuning-cv.js";
import { collectionPairs, type PairStore } from "./collection-pairs.js";

/** Fewer pairs than this leave too few to train on and to check with (422). */
export const MIN_ADAPT_PAIRS = 40;
/** held-out pairs scored (the first in hash order): each ranks against every passage */
const MAX_SCORED_HELD_OUT = 1_000;
/** pairs scored per fold of the cross-validation */
const MAX_SCORED_PER_FOLD = 300;

/** The model a collection's queries are adapted from: the active profile's, when it is quarry-static. */
type BaseModel = StaticBaseModel;

export interface AdaptDeps {
  store: PairStore & { content: Pick<CollectionCatalog, "collectionScope" | "updateCollection"> };
  files: FileStore;
  /** null when the active profile is not a static model of Quarry's (nothing to adapt) */
  baseModel: () => BaseModel | null;
}

export interface AdaptRequest {
  apply?: boolean;
}

const refuse = (msg: string, input: unknown) => new ValidationError([{ type: "value_error", loc: ["path", "collection_id"], msg, input }]);

const f3 = (x: number) => x.toFixed(3);

interface Scores {
  base: PairMetrics;
  adapted: PairMetrics;
}

/** The pairs' passages: without their heading's words for training, as written for scoring. */
interface Passages {
  masked: Float32Array;
  whole: Float32Array;
}

/** Trains on `train`, scores `asked` with the base and the adapted query model. */
async function trainAndScore(base: BaseModel, pairs: AdaptPair[], passages: Passages, train: number[], asked: number[], training: Record<string, unknown>) {
  const t0 = performance.now();
  const { delta, losses } = await adaptQueries(base.encoder, pairs, passages.masked, train);
  const full: QueryDelta = { ...delta, baseModel: base.model, basePayloadSha256: base.payloadSha256, training: { ...training, losses, seconds: Math.round((performance.now() - t0) / 100) / 10 } };
  const adapted = new AdaptedQueryEncoder(base.encoder, full);
  // the base through the same arithmetic (an empty delta), so a query training did not touch scores the same on both sides
  const plain = new AdaptedQueryEncoder(base.encoder, { ...full, tokens: [], rows: new Float32Array(0), weights: new Float32Array(0) });
  const scores: Scores = {
    base: await scorePairs((q) => plain.embed(q), pairs, passages.whole, asked),
    adapted: await scorePairs((q) => adapted.embed(q), pairs, passages.whole, asked),
  };
  return { delta: full, scores };
}

async function crossValidateAdaptation(base: BaseModel, pairs: AdaptPair[], passages: Passages) {
  const indexed = pairs.map((p, i) => ({ id: p.id, i }));
  const k = Math.min(CV_FOLDS, pairs.length);
  const folds = foldsOf(indexed, k);
  const parts: Scores[] = [];
  for (const [f, fold] of folds.entries()) {
    const rest = folds.flatMap((x, j) => (j === f ? [] : x.map((c) => c.i)));
    parts.push((await trainAndScore(base, pairs, passages, rest, fold.slice(0, MAX_SCORED_PER_FOLD).map((c) => c.i), {})).scores);
  }
  const folds_better = parts.filter((p) => better(p.adapted, p.base)).length;
  const folds_worse = parts.filter((p) => better(p.base, p.adapted)).length;
  return { folds: k, base: pooled(parts.map((p) => p.base)), adapted: pooled(parts.map((p) => p.adapted)), folds_better, folds_worse };
}

/** Stores the delta as a file of the tenant's and points the collection's settings at it. */
async function applyAdaptation(deps: AdaptDeps, tenantId: string, collectionId: string, record: ModelAdaptation, delta: QueryDelta): Promise<void> {
  const tmp = deps.files.tempPath();
  await fsp.writeFile(tmp, encodeQueryDelta(delta));
  await deps.files.put(tenantId, adaptationFileOf(record.id!), tmp);
  // the settings as they are now: training took a while, and they may have changed meanwhile
  const settings = (await deps.store.content.collectionScope(tenantId, collectionId))?.settings;
  if (!settings) return deps.files.remove(tenantId, adaptationFileOf(record.id!)); // deleted meanwhile
  await deps.store.content.updateCollection(tenantId, collectionId, { settings: { ...settings, model_adaptation: record as unknown as Json[string] } });
  // the adaptation it replaces (its file; its record was overwritten above)
  const before = adaptationOf(settings);
  if (before?.id && before.id !== record.id) await deps.files.remove(tenantId, adaptationFileOf(before.id));
}

interface Verdict {
  improves: boolean;
  generalises: boolean;
  requested: boolean;
  heldOutLine: string;
  crossLine: string;
}

function detailOf(v: Verdict, collectionId: string): string {
  if (!v.improves) return `Not applied: the adapted model does not improve the held-out pairs (${v.heldOutLine}). The collection's queries keep the base model.`;
  if (!v.generalises) return `Not applied: it improves the held-out pairs (${v.heldOutLine}) but loses out of fold (${v.crossLine}), so on this collection adaptation learns noise. The collection's queries keep the base model.`;
  if (!v.requested) return `Not applied (the request did not ask for it). It improves the held-out pairs (${v.heldOutLine}) and does not lose out of fold (${v.crossLine}); send apply: true to apply it.`;
  return `Applied to collection '${collectionId}' (${v.heldOutLine}; ${v.crossLine}): its queries are embedded with the adapted model from now on. settings.model_adaptation.enabled: false reverts to the base model.`;
}

/** The adaptation itself: pairs, split, training, guards, and the write when allowed and asked. */
export async function runAdaptation(deps: AdaptDeps, tenantId: string, collectionId: string, body: AdaptRequest) {
  const started = performance.now();
  const base = deps.baseModel();
  const scope = await deps.store.content.collectionScope(tenantId, collectionId);
  if (!scope) throw notFound("Collection", collectionId);
  if (!base) {
    throw refuse("The active embedding profile is not Quarry's static model, so there is no model to adapt. Start the server with EMBEDDING_PROFILE=quarry-static and reindex.", collectionId);
  }
  const pairs = await collectionPairs(deps.store, tenantId, collectionId);
  if (pairs.length < MIN_ADAPT_PAIRS) {
    throw refuse(
      `The collection has ${pairs.length} heading -> section pair${pairs.length === 1 ? "" : "s"} with a single answer; adaptation needs at least ${MIN_ADAPT_PAIRS} (30% are held out to check the result). Add documents with headings.`,
      pairs.length,
    );
  }
  const passages = { masked: passageVectors(base.encoder, pairs, true), whole: passageVectors(base.encoder, pairs, false) };
  const indexed = pairs.map((p, i) => ({ id: p.id, i }));
  const { tuning, heldOut } = splitCases(indexed);
  const asked = inHashOrder(heldOut).slice(0, MAX_SCORED_HELD_OUT).map((c) => c.i);
  const training = { pairs: tuning.length, settings: ADAPT_DEFAULTS };
  const { delta, scores } = await trainAndScore(base, pairs, passages, tuning.map((c) => c.i), asked, training);
  const cv = await crossValidateAdaptation(base, pairs, passages);
  const improves = better(scores.adapted, scores.base);
  const generalises = mayApply(cv.adapted, cv.base);
  const requested = body.apply === true;
  const heldOutLine = `held-out nDCG@10 ${f3(scores.adapted.ndcg_at_10)} against ${f3(scores.base.ndcg_at_10)} for the base model`;
  const crossLine = `${cv.folds}-fold nDCG@10 ${cv.adapted.ndcg_at_10.toFixed(4)} against ${cv.base.ndcg_at_10.toFixed(4)}`;
  const allowed = improves && generalises;
  const applied = allowed && requested;
  let record: ModelAdaptation | null = null;
  if (applied) {
    record = {
      id: newId("qad"),
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
    method: "query-side contrastive fine-tuning on the collection's heading -> section pairs (trained on sections without their heading's words, scored on whole sections)",
    pairs: { total: pairs.length, training: tuning.length, held_out: heldOut.length, held_out_scored: asked.length },
    tokens: delta.tokens.length,
    losses: delta.training.losses as number[],
    held_out: scores,
    cross_validation: cv,
    apply: { requested, applied, allowed, detail: detailOf({ improves, generalises, requested, heldOutLine, crossLine }, collectionId) },
    model_adaptation: record,
    took_ms: Math.round(performance.now() - started),
  };
}

export type AdaptationReport = Awaited<ReturnType<typeof runAdaptation>>;
