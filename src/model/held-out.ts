// Generalisation during training: the share of held-out pairs whose own passage is the nearest of
// all held-out passages to their query (recall@1 among a few thousand candidates).
import { bagOf, type TokenMaps } from "./batch.js";
import type { PairCorpus } from "./corpus.js";
import { pool, type PoolParams, type Shape } from "./pooling.js";

export function evaluateHeldOut(corpus: PairCorpus, ids: number[], maps: TokenMaps, shape: Shape, params: PoolParams): number {
  const d = shape.dim + shape.identityDim;
  const q = new Float32Array(ids.length * d);
  const p = new Float32Array(ids.length * d);
  ids.forEach((id, i) => {
    pool(shape, params, bagOf(corpus.queries, id, maps), q.subarray(i * d, (i + 1) * d));
    pool(shape, params, bagOf(corpus.passages, id, maps), p.subarray(i * d, (i + 1) * d));
  });
  let hits = 0;
  for (let i = 0; i < ids.length; i++) {
    let best = -1;
    let bestScore = -Infinity;
    for (let j = 0; j < ids.length; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += q[i * d + k]! * p[j * d + k]!;
      if (s > bestScore) {
        bestScore = s;
        best = j;
      }
    }
    if (best === i) hits++;
  }
  return hits / Math.max(1, ids.length);
}
