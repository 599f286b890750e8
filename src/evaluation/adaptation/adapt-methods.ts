// The two ways a collection's model adapts (issue 27 item 4), each as adapt-run.ts runs it: train on
// some of the collection's heading -> section pairs, then score held-out ones against the base.
// - "queries" (model/query-adapt.ts): the rows of the headings' tokens, trained against sections the
//   base model embeds without their heading's words; only queries are embedded with it.
// - "model" (model/collection-adapt.ts): every row the collection's text touches, from the rows'
//   trained scale, its frequent new words given rows, on the heading pairs, two inverse-cloze pairs a
//   chunk and three times as many general pairs replayed (model/replay.ts): the recipe the lab
//   measured best (docs/model.md, 2026-11-29). Queries and passages are embedded with it, so the
//   held-out sections are embedded by the model being scored.
import type { StaticBaseModel } from "../../embed/index.js";
import { adaptCollection, COLLECTION_ADAPT_DEFAULTS, modelDelta, TRAINED_ROW_SCALE, type CollectionAdaptSettings } from "../../model/collection-adapt.js";
import type { TextPair } from "../../model/corpus.js";
import { AdaptedQueryEncoder, type QueryDelta } from "../../model/query-delta.js";
import { adaptQueries, ADAPT_DEFAULTS, passageVectors, scorePairs, type AdaptPair, type PairMetrics } from "../../model/query-adapt.js";
import { Random } from "../../model/random.js";
import { drawReplay, replayPairs } from "../../model/replay.js";
import { ictPairs } from "../../model/sentences.js";

export type AdaptKind = "queries" | "model";

type BaseModel = StaticBaseModel;

/** inverse-cloze pairs drawn from each chunk */
const ICT_PER_PASSAGE = 2;
/** general pairs replayed per pair of the collection's own */
const REPLAY_RATIO = 3;
/**
 * The lab's recipe (one epoch, learning rate 0.01, new words from 3 occurrences), from the rows'
 * trained scale; compact, since only the delta is kept (the rows the pairs never touch take no
 * memory while it trains).
 */
export const MODEL_ADAPT_SETTINGS: CollectionAdaptSettings = { ...COLLECTION_ADAPT_DEFAULTS, baseRowScale: TRAINED_ROW_SCALE, compact: true };

const seconds = (t0: number) => Math.round((performance.now() - t0) / 100) / 10;

export interface Scores {
  base: PairMetrics;
  adapted: PairMetrics;
}

export interface AdaptMethod {
  kind: AdaptKind;
  description: string;
  /** what the report records of the training beside its losses */
  settings: Record<string, unknown>;
  /** trains on the pairs `train` (indexes), scores the pairs `asked` with the base and the adaptation */
  trainAndScore(train: number[], asked: number[], training: Record<string, unknown>): Promise<{ delta: QueryDelta; scores: Scores }>;
}

/** The base model through the delta's arithmetic (an empty delta), so a text training did not touch embeds the same on both sides. */
const plainEncoder = (base: StaticBaseModel) =>
  new AdaptedQueryEncoder(base.encoder, { baseModel: base.model, basePayloadSha256: base.payloadSha256, dim: base.encoder.parts.shape.dim, tokens: [], rows: new Float32Array(0), weights: new Float32Array(0), training: {} });

export function queriesMethod(base: BaseModel, pairs: AdaptPair[]): AdaptMethod {
  // the pairs' passages: without their heading's words for training, as written for scoring
  const masked = passageVectors(base.encoder, pairs, true);
  const whole = passageVectors(base.encoder, pairs, false);
  const plain = plainEncoder(base);
  return {
    kind: "queries",
    description: "query-side contrastive fine-tuning on the collection's heading -> section pairs (trained on sections without their heading's words, scored on whole sections)",
    settings: ADAPT_DEFAULTS as unknown as Record<string, unknown>,
    async trainAndScore(train, asked, training) {
      const t0 = performance.now();
      const { delta, losses } = await adaptQueries(base.encoder, pairs, masked, train);
      const full: QueryDelta = { ...delta, baseModel: base.model, basePayloadSha256: base.payloadSha256, training: { ...training, losses, seconds: seconds(t0) } };
      const adapted = new AdaptedQueryEncoder(base.encoder, full);
      const scores = { base: await scorePairs((q) => plain.embed(q), pairs, whole, asked), adapted: await scorePairs((q) => adapted.embed(q), pairs, whole, asked) };
      return { delta: full, scores };
    },
  };
}

/** Every pair's passage as `embed` makes it, one row each. */
function embedAll(embed: (text: string) => Float32Array, pairs: readonly AdaptPair[], dim: number): Float32Array {
  const out = new Float32Array(pairs.length * dim);
  pairs.forEach((p, i) => out.set(embed(p.passage), i * dim));
  return out;
}

export function modelMethod(base: BaseModel, pairs: AdaptPair[], passages: readonly { text: string }[], replay: readonly TextPair[] = replayPairs()): AdaptMethod {
  const s = MODEL_ADAPT_SETTINGS;
  const dim = base.encoder.dimension;
  const plain = plainEncoder(base);
  const basePassages = embedAll((t) => plain.embed(t), pairs, dim);
  // drawn once: every fold and the final training see the same inverse-cloze pairs
  const drawn = new Random(s.seed);
  const ict = passages.flatMap((x) => ictPairs(x.text, ICT_PER_PASSAGE, drawn));
  return {
    kind: "model",
    description: `the whole model fine-tuned on the collection's text (heading -> section pairs, ${ICT_PER_PASSAGE} inverse-cloze pairs a chunk, ${REPLAY_RATIO}x as many general pairs replayed), its chunks embedded again with it; scored on whole sections, each model embedding its own`,
    settings: { ...s, ict_per_chunk: ICT_PER_PASSAGE, replay_ratio: REPLAY_RATIO, replay_pool: replay.length },
    async trainAndScore(train, asked, training) {
      const t0 = performance.now();
      const own: TextPair[] = [...train.map((i) => ({ s: "heading", q: pairs[i]!.query, p: pairs[i]!.passage })), ...ict];
      const rnd = new Random(s.seed + 1);
      const all = [...own, ...drawReplay(replay, REPLAY_RATIO * own.length, rnd)];
      const run = await adaptCollection(base.encoder.parts, all, s, undefined, rnd);
      const delta = modelDelta(run.model, run.moved, base, s.baseRowScale, { ...training, own_pairs: own.length, replayed: all.length - own.length, losses: run.losses, seconds: seconds(t0) });
      const adapted = new AdaptedQueryEncoder(base.encoder, delta);
      const adaptedPassages = embedAll((t) => adapted.embed(t), pairs, dim);
      const scores = { base: await scorePairs((q) => plain.embed(q), pairs, basePassages, asked), adapted: await scorePairs((q) => adapted.embed(q), pairs, adaptedPassages, asked) };
      return { delta, scores };
    },
  };
}
