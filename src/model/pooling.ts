// The model's arithmetic, shared by training and serving: a text's vector is the weighted sum of
// its tokens' vectors, L2-normalised. A token's vector is its trained row (vocabulary tokens)
// followed by its identity vector times gamma (every token); its weight is the token's learned
// weight (or the shared out-of-vocabulary weight) times 1 + ln(count), so repeats count less and
// less, as BM25's saturation has it.
import { addIdentity, dotIdentity } from "./identity.js";

export interface Shape {
  /** trained dimensions (the table's row length) */
  dim: number;
  /** identity dimensions after them (a multiple of 32) */
  identityDim: number;
}

/** A text as the model sees it: distinct tokens with counts; vocabulary ids, or -1 with a hash. */
export interface TokenBag {
  rows: Int32Array;
  hashes: Uint32Array;
  counts: Uint16Array;
  length: number;
}

/**
 * What pooling reads: row i of `table` (dim values; a served model keeps them as int8 with a scale
 * per row, training as float32), its weight, gamma and the OOV weight.
 */
export interface PoolParams {
  table: Float32Array | Int8Array;
  /** per-row scale of an int8 table */
  rowScale?: Float32Array;
  weights: Float32Array;
  oovWeight: number;
  gamma: number;
}

export const countWeight = (c: number): number => 1 + Math.log(c);

/**
 * Pools the bag into `out` (length dim + identityDim) and normalises it; returns the norm before
 * normalising (0 for an empty bag, whose vector stays 0).
 */
export function pool(shape: Shape, p: PoolParams, bag: TokenBag, out: Float32Array): number {
  const { dim, identityDim } = shape;
  out.fill(0);
  for (let i = 0; i < bag.length; i++) {
    const r = bag.rows[i]!;
    const g = countWeight(bag.counts[i]!);
    const a = (r >= 0 ? p.weights[r]! : p.oovWeight) * g;
    if (r >= 0) {
      const base = r * dim;
      const f = p.rowScale ? a * p.rowScale[r]! : a;
      for (let j = 0; j < dim; j++) out[j] += f * p.table[base + j]!;
    }
    if (identityDim > 0) addIdentity(out, dim, identityDim, bag.hashes[i]!, a * p.gamma);
  }
  let n = 0;
  for (let j = 0; j < out.length; j++) n += out[j]! * out[j]!;
  n = Math.sqrt(n);
  if (n > 0) for (let j = 0; j < out.length; j++) out[j] /= n;
  return n;
}

export interface PoolGradients {
  /** dense gradient of the table; rows touched are listed in `touched` */
  table: Float32Array;
  touched: Set<number>;
  /** gradient of each token's log-weight */
  logWeights: Float32Array;
  logOov: number;
  logGamma: number;
}

/**
 * Backpropagates dL/d(normalised vector) `dOut` of a bag pooled into `f` with norm `norm`, adding
 * into `grad`. Weights and gamma are trained through their logarithms (kept positive).
 */
export function poolBackward(shape: Shape, p: PoolParams, bag: TokenBag, f: Float32Array, norm: number, dOut: Float32Array, grad: PoolGradients, du: Float32Array): void {
  if (norm === 0) return;
  const { dim, identityDim } = shape;
  let fd = 0;
  for (let j = 0; j < f.length; j++) fd += f[j]! * dOut[j]!;
  for (let j = 0; j < f.length; j++) du[j] = (dOut[j]! - f[j]! * fd) / norm;
  for (let i = 0; i < bag.length; i++) {
    const r = bag.rows[i]!;
    const g = countWeight(bag.counts[i]!);
    const a = (r >= 0 ? p.weights[r]! : p.oovWeight) * g;
    const idDot = identityDim > 0 ? dotIdentity(du, dim, identityDim, bag.hashes[i]!) * p.gamma : 0;
    grad.logGamma += a * idDot;
    if (r < 0) {
      grad.logOov += a * idDot;
      continue;
    }
    const base = r * dim;
    let rowDot = 0;
    for (let j = 0; j < dim; j++) {
      rowDot += p.table[base + j]! * du[j]!;
      grad.table[base + j] += a * du[j]!;
    }
    grad.touched.add(r);
    grad.logWeights[r] += a * (rowDot + idDot);
  }
}
