// One training step: a batch of pairs pooled into query and passage vectors, the contrastive loss
// with in-batch negatives (every other passage of the batch is a wrong answer for a query), and
// its gradient back into the pooling parameters.
//
// loss = mean_i CE(softmax_j(q_i . p_j / t), i); optionally the same over queries for each
// passage (symmetric). The query's words can be dropped from its passage ("masking"), so the pair
// is matched by the words around them and the table has to learn what they mean.
import type { Bags } from "./corpus.js";
import { pool, poolBackward, type PoolGradients, type PoolParams, type Shape, type TokenBag } from "./pooling.js";

export interface BatchSettings {
  temperature: number;
  symmetric: boolean;
}

export interface TokenMaps {
  rowOf: Int32Array;
  hashes: Uint32Array;
}

/** Text `i` of `bags` as a token bag, leaving out the global ids in `without`. */
export function bagOf(bags: Bags, i: number, maps: TokenMaps, without?: Set<number>): TokenBag {
  const from = bags.offsets[i]!;
  const to = bags.offsets[i + 1]!;
  const rows = new Int32Array(to - from);
  const hashes = new Uint32Array(to - from);
  const counts = new Uint16Array(to - from);
  let n = 0;
  for (let k = from; k < to; k++) {
    const id = bags.ids[k]!;
    if (without?.has(id)) continue;
    rows[n] = maps.rowOf[id]!;
    hashes[n] = maps.hashes[id]!;
    counts[n++] = bags.counts[k]!;
  }
  return { rows, hashes, counts, length: n };
}

export function globalIds(bags: Bags, i: number): Set<number> {
  return new Set(bags.ids.subarray(bags.offsets[i]!, bags.offsets[i + 1]!));
}

/** a[ao .. ao+d) . b[bo .. bo+d), unrolled by 4 (d is a multiple of 4) */
function dotAt(a: Float32Array, ao: number, b: Float32Array, bo: number, d: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let k = 0; k < d; k += 4) {
    s0 += a[ao + k]! * b[bo + k]!;
    s1 += a[ao + k + 1]! * b[bo + k + 1]!;
    s2 += a[ao + k + 2]! * b[bo + k + 2]!;
    s3 += a[ao + k + 3]! * b[bo + k + 3]!;
  }
  return s0 + s1 + s2 + s3;
}

/** y[yo .. yo+d) += alpha * x[xo .. xo+d) */
function axpyAt(alpha: number, x: Float32Array, xo: number, y: Float32Array, yo: number, d: number): void {
  for (let k = 0; k < d; k += 4) {
    y[yo + k] += alpha * x[xo + k]!;
    y[yo + k + 1] += alpha * x[xo + k + 1]!;
    y[yo + k + 2] += alpha * x[xo + k + 2]!;
    y[yo + k + 3] += alpha * x[xo + k + 3]!;
  }
}

interface Pooled {
  vectors: Float32Array;
  norms: Float32Array;
}

function poolAll(shape: Shape, p: PoolParams, bags: TokenBag[]): Pooled {
  const d = shape.dim + shape.identityDim;
  const vectors = new Float32Array(bags.length * d);
  const norms = new Float32Array(bags.length);
  bags.forEach((b, i) => (norms[i] = pool(shape, p, b, vectors.subarray(i * d, (i + 1) * d))));
  return { vectors, norms };
}

/**
 * Softmax cross-entropy over a line of the similarity matrix with `target` as the right answer:
 * adds dL/dS (times `scale`, divided by `count` lines) into `g`; `at(k)` indexes the line's k-th cell.
 */
function lineCe(s: Float32Array, g: Float32Array, len: number, target: number, at: (k: number) => number, scale: number, count: number): number {
  let max = -Infinity;
  for (let k = 0; k < len; k++) max = Math.max(max, s[at(k)]!);
  let sum = 0;
  for (let k = 0; k < len; k++) sum += Math.exp(s[at(k)]! - max);
  for (let k = 0; k < len; k++) g[at(k)] += (scale * (Math.exp(s[at(k)]! - max) / sum - (k === target ? 1 : 0))) / count;
  return -(s[at(target)]! - max - Math.log(sum));
}

/** Query i's passage is passage i: each row over all passages; with `symmetric`, each of the n paired passages over the queries too. */
export function contrastiveLoss(sim: Float32Array, n: number, m: number, g: Float32Array, scale: number, symmetric: boolean): number {
  let rows = 0;
  for (let i = 0; i < n; i++) rows += lineCe(sim, g, m, i, (k) => i * m + k, symmetric ? scale / 2 : scale, n);
  if (!symmetric) return rows / n;
  let cols = 0;
  for (let j = 0; j < n; j++) cols += lineCe(sim, g, n, j, (k) => k * m + j, scale / 2, n);
  return (rows / n + cols / n) / 2;
}

/** Forward and backward of one batch; gradients are added into `grad`. Returns the loss. */
export function trainBatch(shape: Shape, p: PoolParams, queries: TokenBag[], passages: TokenBag[], s: BatchSettings, grad: PoolGradients): number {
  const d = shape.dim + shape.identityDim;
  const n = queries.length;
  const m = passages.length;
  const q = poolAll(shape, p, queries);
  const c = poolAll(shape, p, passages);
  const inv = 1 / s.temperature;
  const sim = new Float32Array(n * m);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) sim[i * m + j] = dotAt(q.vectors, i * d, c.vectors, j * d, d) * inv;
  const g = new Float32Array(n * m);
  const loss = contrastiveLoss(sim, n, m, g, inv, s.symmetric);
  const dq = new Float32Array(n * d);
  const dc = new Float32Array(m * d);
  // two passes, each accumulating into one row at a time (cache-friendly): dq = G C, dc = G^T Q
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) axpyAt(g[i * m + j]!, c.vectors, j * d, dq, i * d, d);
  for (let j = 0; j < m; j++) for (let i = 0; i < n; i++) axpyAt(g[i * m + j]!, q.vectors, i * d, dc, j * d, d);
  const du = new Float32Array(d);
  queries.forEach((b, i) => poolBackward(shape, p, b, q.vectors.subarray(i * d, (i + 1) * d), q.norms[i]!, dq.subarray(i * d, (i + 1) * d), grad, du));
  passages.forEach((b, j) => poolBackward(shape, p, b, c.vectors.subarray(j * d, (j + 1) * d), c.norms[j]!, dc.subarray(j * d, (j + 1) * d), grad, du));
  return loss;
}
