// BM25 as SQLite FTS5's bm25() computes it (k1 1.2, b 0.75, idf floored at 1e-6, field weights
// multiplying the per-field frequencies, length = tokens of all fields): the one formula every
// backend scores with, so rankings are the same on each.
import { TITLE_SHIFT, HEADINGS_SHIFT, MAX_TITLE_TF, MAX_HEADINGS_TF, MAX_BODY_TF } from "./analyze.js";
import type { LexicalWeights } from "./types.js";

export const K1 = 1.2;
export const B = 0.75;

export function idf(n: number, df: number): number {
  const v = Math.log((n - df + 0.5) / (df + 0.5));
  return v > 0 ? v : 1e-6;
}

/** BM25's term-frequency factor for weighted frequency f in a doc of length len. */
export function tfFactor(f: number, len: number, avgdl: number): number {
  return (f * (K1 + 1)) / (f + K1 * (1 - B + (B * len) / avgdl));
}

/** A packed field-frequency (analyze.ts packTf) as one frequency under the field weights. */
export function weighted(packed: number, w: LexicalWeights): number {
  return ((packed >>> TITLE_SHIFT) & MAX_TITLE_TF) * w.title + ((packed >>> HEADINGS_SHIFT) & MAX_HEADINGS_TF) * w.headings + (packed & MAX_BODY_TF) * w.body;
}
