// The whole static model adapted to one collection's own text (issue 27 item 4, measured in
// src/evaluation/labs/collection-adapt-lab.ts; applied by evaluation/adaptation/adapt-model-run.ts). Unlike the query
// adaptation (query-adapt.ts), both sides move: every row and weight the collection's pairs touch is
// trained with the trainer's contrastive loss, and the collection's frequent words that the base
// vocabulary lacks get rows of their own, so the collection's passages must be embedded again with
// the result. Pairs of source "ict" (inverse cloze: a sentence and the rest of its passage) are used
// as they are; every other pair's passage loses its query's words, as the trainer's mask 1 does.
import { SparseAdam, ADAM_DEFAULTS } from "./adam.js";
import { bagOf, globalIds, trainBatch, type TokenMaps } from "./batch.js";
import { pairCorpusOf, tokenHashes, type PairCorpus, type TextPair } from "./corpus.js";
import type { EncoderParts } from "./encoder.js";
import type { PoolGradients, PoolParams } from "./pooling.js";
import { Random } from "./random.js";
import { breather } from "./query-adapt.js";
import type { QueryDelta } from "./query-delta.js";

export interface CollectionAdaptSettings {
  seed: number;
  epochs: number;
  batchSize: number;
  temperature: number;
  /** learning rate of the rows and of the log-weights */
  lr: number;
  /** a collection word absent from the base vocabulary gets a row from this many occurrences (0: none) */
  newVocabMin: number;
  /** after each step the moved rows go this share of the way back to their start (0: not at all) */
  anchor: number;
  /** the base's rows start at this multiple of their served scale (127: as trained, see below) */
  baseRowScale: number;
  /**
   * Train only the rows the pairs' tokens have (the rest can never move): the same training, bit
   * for bit, in a fraction of the memory; the model returned then holds only those rows, so only
   * its delta (modelDelta) is a whole model.
   */
  compact: boolean;
}

/** The lab's measured recipe (docs/model.md, 2026-11-29): one epoch; replay comes with the pairs. */
export const COLLECTION_ADAPT_DEFAULTS: CollectionAdaptSettings = {
  seed: 1,
  epochs: 1,
  batchSize: 128,
  temperature: 0.05,
  lr: 0.01,
  newVocabMin: 3,
  anchor: 0,
  baseRowScale: 1,
  compact: false,
};

/**
 * The shipped file's rows are 1/127 of their trained scale (docs/model.md, 2026-11-29); adapted from
 * the trained scale, with general pairs replayed, the lab measured its best figures on all sets.
 */
export const TRAINED_ROW_SCALE = 127;

/** A model being adapted: float rows, the base vocabulary (or, compact, the part of it the pairs use) followed by the collection's new words. */
export type AdaptingParts = EncoderParts & { params: PoolParams & { table: Float32Array } };

/**
 * The base model as float rows, its vocabulary extended by the corpus's words of `minCount`
 * occurrences or more (rows 0, the OOV weight). Compact: only the base rows of the corpus's tokens,
 * in base order, so the rows keep their relative order and the delta its token order.
 */
function startingModel(base: EncoderParts, corpus: PairCorpus, s: Pick<CollectionAdaptSettings, "newVocabMin" | "baseRowScale" | "compact">): AdaptingParts {
  const dim = base.shape.dim;
  const baseRow = new Map(base.vocabulary.map((t, i) => [t, i]));
  const kept = s.compact ? Int32Array.from(corpus.tokens.flatMap((t) => baseRow.get(t) ?? [])).sort() : Int32Array.from(base.vocabulary, (_, i) => i);
  const vocabulary = Array.from(kept, (r) => base.vocabulary[r]!);
  corpus.tokens.forEach((t, id) => {
    if (s.newVocabMin > 0 && !baseRow.has(t) && corpus.frequency[id]! >= s.newVocabMin) vocabulary.push(t);
  });
  const table = new Float32Array(vocabulary.length * dim);
  const { table: rows, rowScale } = base.params;
  kept.forEach((r, i) => {
    for (let j = 0; j < dim; j++) table[i * dim + j] = rows[r * dim + j]! * (rowScale ? rowScale[r]! : 1) * s.baseRowScale;
  });
  const weights = new Float32Array(vocabulary.length).fill(base.params.oovWeight);
  kept.forEach((r, i) => (weights[i] = base.params.weights[r]!));
  return { ...base, vocabulary, params: { table, weights, oovWeight: base.params.oovWeight, gamma: base.params.gamma } };
}

interface Optimizer {
  /** reused by every batch: one table-sized buffer for the whole run */
  grad: PoolGradients;
  table: SparseAdam;
  logW: Float32Array;
  weights: SparseAdam;
  step: number;
  /** the rows as they started (only with an anchor: a table-sized copy) */
  start: Float32Array | null;
  anchor: number;
  /** every row a step moved (the delta keeps these) */
  moved: Set<number>;
}

function pullBack(table: Float32Array, o: Optimizer, rows: Iterable<number>, dim: number): void {
  if (o.anchor <= 0 || !o.start) return;
  for (const r of rows) for (let j = r * dim; j < (r + 1) * dim; j++) table[j] = table[j]! - o.anchor * (table[j]! - o.start[j]!);
}

/** One epoch over the corpus in seeded order, letting the event loop run between batches; returns the mean loss. */
async function trainEpoch(model: AdaptingParts, corpus: PairCorpus, maps: TokenMaps, opt: Optimizer, s: CollectionAdaptSettings, rnd: Random): Promise<number> {
  const breathe = breather();
  const { shape, params } = model;
  const { grad } = opt;
  const order = rnd.shuffle(Uint32Array.from({ length: corpus.sourceOf.length }, (_, i) => i));
  const batches = Math.floor(order.length / s.batchSize);
  let sum = 0;
  for (let b = 0; b < batches; b++) {
    await breathe();
    const ids = [...order.subarray(b * s.batchSize, (b + 1) * s.batchSize)];
    const queries = ids.map((i) => bagOf(corpus.queries, i, maps));
    const passages = ids.map((i) => bagOf(corpus.passages, i, maps, corpus.sources[corpus.sourceOf[i]!] === "ict" ? undefined : globalIds(corpus.queries, i)));
    sum += trainBatch(shape, params, queries, passages, { temperature: s.temperature, symmetric: true }, grad);
    opt.step++;
    opt.table.step(grad.table, grad.touched, opt.step);
    pullBack(params.table, opt, grad.touched, shape.dim);
    const touched = [...grad.touched];
    for (const r of touched) opt.moved.add(r);
    opt.weights.step(grad.logWeights, touched, opt.step);
    for (const r of touched) params.weights[r] = Math.exp(opt.logW[r]!);
    grad.touched.clear();
  }
  return sum / Math.max(1, batches);
}

/**
 * Adapts `base` to the pairs (a collection's own, and any general pairs to replay); `onEpoch` sees
 * the model after each epoch. Deterministic for a seed (or for `rnd`, a caller's seeded stream that
 * also drew the pairs). The returned model embeds the collection's queries and passages alike
 * (StaticEncoder).
 */
export async function adaptCollection(
  base: EncoderParts,
  pairs: readonly TextPair[],
  s: CollectionAdaptSettings = COLLECTION_ADAPT_DEFAULTS,
  onEpoch?: (epoch: number, loss: number, model: AdaptingParts) => void,
  rnd: Random = new Random(s.seed),
): Promise<{ model: AdaptingParts; losses: number[]; moved: ReadonlySet<number> }> {
  const corpus = pairCorpusOf(pairs);
  const model = startingModel(base, corpus, s);
  const rowOf = new Map(model.vocabulary.map((t, i) => [t, i]));
  const maps: TokenMaps = { rowOf: Int32Array.from(corpus.tokens, (t) => rowOf.get(t) ?? -1), hashes: tokenHashes(corpus, base.identitySeed) };
  const logW = Float32Array.from(model.params.weights, Math.log);
  const v = model.vocabulary.length;
  const opt: Optimizer = {
    grad: { table: new Float32Array(v * model.shape.dim), touched: new Set(), logWeights: new Float32Array(v), logOov: 0, logGamma: 0 },
    table: new SparseAdam(model.params.table, model.shape.dim, { ...ADAM_DEFAULTS, lr: s.lr }),
    logW,
    weights: new SparseAdam(logW, 1, { ...ADAM_DEFAULTS, lr: s.lr }),
    step: 0,
    start: s.anchor > 0 ? Float32Array.from(model.params.table) : null,
    anchor: s.anchor,
    moved: new Set(),
  };
  const losses: number[] = [];
  for (let epoch = 1; epoch <= s.epochs; epoch++) {
    losses.push(await trainEpoch(model, corpus, maps, opt, s, rnd));
    onEpoch?.(epoch, losses.at(-1)!, model);
  }
  return { model, losses, moved: opt.moved };
}

/**
 * The adapted model as a delta over the served base (query-delta.ts): the rows and weights training
 * moved, new words included, in row order; every other row is the base's times `baseRowScale`
 * (the scale the adaptation started from, see startingModel).
 */
export function modelDelta(
  adapted: AdaptingParts,
  moved: ReadonlySet<number>,
  base: { model: string; payloadSha256: string },
  baseRowScale: number,
  training: Record<string, unknown>,
): QueryDelta {
  const dim = adapted.shape.dim;
  const kept = [...moved].sort((a, b) => a - b);
  const rows = new Float32Array(kept.length * dim);
  kept.forEach((r, i) => rows.set(adapted.params.table.subarray(r * dim, (r + 1) * dim), i * dim));
  return {
    baseModel: base.model,
    basePayloadSha256: base.payloadSha256,
    dim,
    tokens: kept.map((r) => adapted.vocabulary[r]!),
    rows,
    weights: Float32Array.from(kept, (r) => adapted.params.weights[r]!),
    baseRowScale,
    sides: "both",
    training,
  };
}
