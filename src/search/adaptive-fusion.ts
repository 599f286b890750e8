// Query-adaptive fusion weights (issue 27): the vector list weighs more when the lexical list is
// unsure. A claim or a keyword question has a BM25 hit that stands far above the rest of its list;
// a plain-language question shares few of its page's words, and its list is flat: many chunks
// match one or two common words about equally. One fixed weight serves one kind and costs the
// other (docs/model.md: vector weight 0.5 lifts the docs sets' plain questions and sinks SciFact),
// so the weight is set per query from the lexical list itself:
//
//   strength = min(1, z of the best BM25 score among the list's scores / PEAK)
//   vector weight = strong + (weak - strong) * (1 - strength),  lexical weight = 1 - vector weight
//
// The z-score is the one fusion normalises the list with (fusion.ts), so nothing beyond the list
// is read. Tried before it and dropped: the best hit's share of the query's full-match score
// (idf of the query's words): on the dev proxy it lost to one fixed weight of the same mean
// (docs/model.md, "Query-adaptive fusion").
//
// Per embedding profile: the weights are the profile's model's (a strong in-domain model earns
// more weight on an unsure lexical list than a weak one). Only quarry-static has them; every other
// profile keeps the fixed fusion (fusion.ts DEFAULT_FUSION_OPTIONS).
import type { Candidate } from "./fusion.js";

export interface AdaptiveWeights {
  /** the vector weight when the best lexical hit stands PEAK or more standard deviations above its list */
  strong: number;
  /** the vector weight when it does not stand out at all */
  weak: number;
  /** the z-score of the best hit at which the list counts as sure */
  peak: number;
}

/**
 * The profiles with adaptive fusion. quarry-static's: `strong` is the fixed fusion's 0.3, so a
 * query with a clear lexical winner ranks as before; `weak` 0.5, at most that so the lexical
 * weight is never below the vector weight and an exact match still comes first (fusion.ts
 * Z_BOUND); `peak` chosen on the dev proxy alone among 3, 5 and 8: the one whose adapting beats one
 * fixed weight of the same mean on both of its sets by the most (docs/model.md).
 */
export const PROFILE_ADAPTIVE_WEIGHTS: Readonly<Record<string, AdaptiveWeights>> = Object.freeze({
  "quarry-static": Object.freeze({ strong: 0.3, weak: 0.5, peak: 5 }),
});

/** The profile's adaptive weights; undefined: the profile fuses with fixed weights. */
export function adaptiveWeightsOf(profile: string | undefined): AdaptiveWeights | undefined {
  return profile === undefined ? undefined : PROFILE_ADAPTIVE_WEIGHTS[profile];
}

/**
 * How far the best lexical hit stands above its list, in standard deviations (the list best
 * first). A list of one hit, or of equal scores, has nothing to stand above: Infinity (sure) when
 * it has a hit, 0 when it is empty.
 */
export function peakOf(lexical: readonly Candidate[]): number {
  if (lexical.length === 0) return 0;
  const scores = lexical.map((c) => c.score).filter((s) => Number.isFinite(s));
  if (scores.length === 0) return 0;
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  const sd = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / scores.length);
  return sd === 0 ? Infinity : (scores[0]! - mean) / sd;
}

/** The vector weight for a lexical list whose best hit stands `peak` standard deviations out. */
export function vectorWeightAt(w: AdaptiveWeights, peak: number): number {
  const strength = Math.min(1, Math.max(0, peak / w.peak));
  return w.strong + (w.weak - w.strong) * (1 - strength);
}
