// Per-collection adaptation of the static model, query side: a copy of the rows and weights of the
// tokens in a collection's queries (its headings) is trained with the trainer's contrastive loss
// (batch.ts contrastiveLoss, in-batch negatives, symmetric) to find each heading's section, whose
// vector the base model makes and which stays fixed. The passages a collection already has keep
// their vectors, so the adaptation applies and reverts without re-embedding anything.
//
// Each section loses its heading's words before the base model embeds it (the trainer's `mask`
// at 1): otherwise the heading finds its section through the words they share, which the base
// model's exact-word part already does, and nothing new is learnt.
import { SparseAdam, ADAM_DEFAULTS } from "./adam.js";
import { contrastiveLoss } from "./batch.js";
import type { StaticEncoder } from "./encoder.js";
import { baseRow, type QueryDelta } from "./query-delta.js";
import { pool, poolBackward, type PoolGradients, type PoolParams, type TokenBag } from "./pooling.js";
import { Random } from "./random.js";

/**
 * Lets the event loop run once BREATHE_MS of work have passed, checked between batches and between
 * scored queries (a batch takes tens of ms on a busy machine): an adaptation trains and scores for
 * up to a minute in the process that serves searches, which must keep answering meanwhile.
 */
const BREATHE_MS = 20;
export function breather(): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < BREATHE_MS) return;
    await new Promise((r) => setImmediate(r));
    last = performance.now();
  };
}

export interface AdaptPair {
  /** stable id (the split and the folds hash it) */
  id: string;
  query: string;
  passage: string;
}

export interface AdaptSettings {
  seed: number;
  epochs: number;
  batchSize: number;
  temperature: number;
  lr: number;
  weightLr: number;
}

/**
 * Chosen on collections' own held-out pairs, never on an evaluation question set: a few passes
 * at the trainer's learning rate; more epochs overfit a collection's few thousand headings.
 */
export const ADAPT_DEFAULTS: AdaptSettings = { seed: 20261128, epochs: 3, batchSize: 128, temperature: 0.05, lr: 0.01, weightLr: 0.01 };

/** The text's bag as the base model pools it, without the tokens of `without` (masking). */
function bagWithout(base: StaticEncoder, text: string, without?: TokenBag): TokenBag {
  const bag = base.bag(text);
  if (!without) return bag;
  const drop = new Set(without.hashes);
  let n = 0;
  for (let i = 0; i < bag.length; i++) {
    if (drop.has(bag.hashes[i]!)) continue;
    bag.rows[n] = bag.rows[i]!;
    bag.hashes[n] = bag.hashes[i]!;
    bag.counts[n++] = bag.counts[i]!;
  }
  return { ...bag, length: n };
}

/**
 * The pairs' passages as the base model embeds them (pairs.length x dimension, unit rows; a
 * passage with nothing left is the zero vector). `masked`: each has lost its query's words, as
 * training sees them; otherwise as written, as the held-out scoring ranks them (a passage without
 * its heading's words is the only one certain to lack them, so ranked against whole passages it
 * would lose to every other passage that has them).
 */
export function passageVectors(base: StaticEncoder, pairs: readonly AdaptPair[], masked: boolean): Float32Array {
  const { shape, params } = base.parts;
  const d = shape.dim + shape.identityDim;
  const out = new Float32Array(pairs.length * d);
  pairs.forEach((p, i) => pool(shape, params, bagWithout(base, p.passage, masked ? base.bag(p.query) : undefined), out.subarray(i * d, (i + 1) * d)));
  return out;
}

/** The trainable copy: the base rows and weights of the queries' vocabulary tokens. */
interface QueryTable {
  tokens: string[];
  params: PoolParams & { table: Float32Array };
  /** each pair's query as a bag over the copy's rows (-1: not in the base vocabulary) */
  bags: TokenBag[];
}

function queryTable(base: StaticEncoder, pairs: readonly AdaptPair[]): QueryTable {
  const { shape, params } = base.parts;
  const localOf = new Map<number, number>();
  const tokens: string[] = [];
  const bags = pairs.map((p) => {
    const bag = base.bag(p.query);
    for (let i = 0; i < bag.length; i++) {
      const r = bag.rows[i]!;
      if (r < 0) continue;
      let l = localOf.get(r);
      if (l === undefined) {
        l = tokens.length;
        localOf.set(r, l);
        tokens.push(base.parts.vocabulary[r]!);
      }
      bag.rows[i] = l;
    }
    return bag;
  });
  const table = new Float32Array(tokens.length * shape.dim);
  const weights = new Float32Array(tokens.length);
  for (const [r, l] of localOf) {
    baseRow(base, r, table, l * shape.dim);
    weights[l] = params.weights[r]!;
  }
  return { tokens, params: { table, weights, oovWeight: params.oovWeight, gamma: params.gamma }, bags };
}

/** One batch: queries pooled with the copy, passages fixed; gradients into the copy only. */
function queryBatch(base: StaticEncoder, t: QueryTable, ids: ArrayLike<number>, passages: Float32Array, s: AdaptSettings, grad: PoolGradients): number {
  const { shape } = base.parts;
  const d = shape.dim + shape.identityDim;
  const n = ids.length;
  const q = new Float32Array(n * d);
  const norms = new Float32Array(n);
  for (let i = 0; i < n; i++) norms[i] = pool(shape, t.params, t.bags[ids[i]!]!, q.subarray(i * d, (i + 1) * d));
  const inv = 1 / s.temperature;
  const sim = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let x = 0;
      const qo = i * d;
      const po = ids[j]! * d;
      for (let k = 0; k < d; k++) x += q[qo + k]! * passages[po + k]!;
      sim[i * n + j] = x * inv;
    }
  }
  const g = new Float32Array(n * n);
  const loss = contrastiveLoss(sim, n, n, g, inv, true);
  const dq = new Float32Array(d);
  const du = new Float32Array(d);
  for (let i = 0; i < n; i++) {
    dq.fill(0);
    for (let j = 0; j < n; j++) {
      const a = g[i * n + j]!;
      if (a === 0) continue;
      const po = ids[j]! * d;
      for (let k = 0; k < d; k++) dq[k] += a * passages[po + k]!;
    }
    poolBackward(shape, t.params, t.bags[ids[i]!]!, q.subarray(i * d, (i + 1) * d), norms[i]!, dq, grad, du);
  }
  return loss;
}

export interface AdaptResult {
  /** the tokens training changed, with their rows and weights (QueryDelta without its provenance) */
  delta: Omit<QueryDelta, "baseModel" | "basePayloadSha256" | "training">;
  /** mean loss of each epoch */
  losses: number[];
}

/**
 * Trains the query copy on `train` (indexes into `pairs`), against `passages`
 * (passageVectors of `pairs`, masked). Deterministic for a seed.
 */
export async function adaptQueries(base: StaticEncoder, pairs: readonly AdaptPair[], passages: Float32Array, train: readonly number[], s: AdaptSettings = ADAPT_DEFAULTS): Promise<AdaptResult> {
  const breathe = breather();
  const { shape } = base.parts;
  const t = queryTable(base, pairs);
  const rnd = new Random(s.seed);
  const v = t.tokens.length;
  const grad: PoolGradients = { table: new Float32Array(v * shape.dim), touched: new Set(), logWeights: new Float32Array(v), logOov: 0, logGamma: 0 };
  const logW = Float32Array.from(t.params.weights, (w) => Math.log(Math.max(w, 1e-6)));
  const tableOpt = new SparseAdam(t.params.table, shape.dim, { ...ADAM_DEFAULTS, lr: s.lr });
  const weightOpt = new SparseAdam(logW, 1, { ...ADAM_DEFAULTS, lr: s.weightLr });
  const losses: number[] = [];
  const trained = new Set<number>();
  const batch = Math.min(s.batchSize, train.length);
  let step = 0;
  for (let epoch = 0; epoch < s.epochs && batch >= 2; epoch++) {
    const order = rnd.shuffle(Uint32Array.from(train));
    const batches = Math.floor(order.length / batch);
    let sum = 0;
    for (let b = 0; b < batches; b++) {
      await breathe();
      const ids = order.subarray(b * batch, (b + 1) * batch);
      sum += queryBatch(base, t, ids, passages, s, grad);
      step++;
      tableOpt.step(grad.table, grad.touched, step);
      const touched = [...grad.touched];
      for (const r of touched) trained.add(r);
      weightOpt.step(grad.logWeights, touched, step);
      for (const r of touched) t.params.weights[r] = Math.exp(logW[r]!);
      grad.touched.clear();
      grad.logOov = grad.logGamma = 0;
    }
    losses.push(sum / Math.max(1, batches));
  }
  // only the rows training moved: a query without them embeds exactly as the base model embeds it
  const kept = [...trained].sort((a, b) => a - b);
  const rows = new Float32Array(kept.length * shape.dim);
  kept.forEach((r, i) => rows.set(t.params.table.subarray(r * shape.dim, (r + 1) * shape.dim), i * shape.dim));
  const delta = { dim: shape.dim, tokens: kept.map((r) => t.tokens[r]!), rows, weights: Float32Array.from(kept, (r) => t.params.weights[r]!) };
  return { delta, losses };
}

export interface PairMetrics {
  ndcg_at_10: number;
  recall_at_10: number;
  mrr_at_10: number;
  cases: number;
}

/**
 * Each asked pair's query (embedded by `embedQuery`) ranked against every pair's passage: one
 * relevant passage per query, its own; nDCG, recall and MRR at 10 as the tuning scores them.
 */
export async function scorePairs(embedQuery: (text: string) => Float32Array, pairs: readonly AdaptPair[], passages: Float32Array, asked: readonly number[]): Promise<PairMetrics> {
  const breathe = breather();
  const m = pairs.length;
  const d = passages.length / Math.max(1, m);
  let ndcg = 0;
  let recall = 0;
  let mrr = 0;
  for (const i of asked) {
    await breathe();
    const q = embedQuery(pairs[i]!.query);
    const score = (j: number) => {
      let x = 0;
      for (let k = 0; k < d; k++) x += q[k]! * passages[j * d + k]!;
      return x;
    };
    const own = score(i);
    // rank = 1 + passages scoring above its own (ties go against it)
    let rank = 1;
    for (let j = 0; j < m && rank <= 10; j++) if (j !== i && score(j) >= own) rank++;
    if (rank <= 10) {
      ndcg += 1 / Math.log2(rank + 1);
      recall += 1;
      mrr += 1 / rank;
    }
  }
  const n = Math.max(1, asked.length);
  return { ndcg_at_10: ndcg / n, recall_at_10: recall / n, mrr_at_10: mrr / n, cases: asked.length };
}
