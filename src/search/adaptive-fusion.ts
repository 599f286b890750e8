// Query-adaptive fusion weights (issue 27): the vector list's weight grows as the query's lexical
// match weakens. A claim or a keyword question repeats its page's words and BM25 ranks it well;
// a plain-language question shares few of them, and there the vector list is what finds the page.
// One fixed weight serves one kind and costs the other (docs/model.md: vector weight 0.5 lifts the
// docs sets' plain questions and sinks SciFact), so the weight is chosen per query from a signal
// known at query time:
//
//   coverage = min(1, best BM25 score / full-match score)
//   vector weight = full + (none - full) * (1 - coverage),  lexical weight = 1 - vector weight
//
// where the full-match score is the query's own terms' idf x term weight summed: the BM25 score
// of a chunk of average length holding each query word once (bm25.ts tfFactor is 1 there). Words
// the collection lacks count with their (high) idf: a query half made of words the pages never use
// is half matched. Only the user's own words count, not synonyms or typo and prefix alternatives
// (they add terms, not meaning). Why this signal rather than the share of the query's idf mass the
// top hit holds: that needs which terms each hit matched, which the stores do not return; the best
// score and the dictionary's document frequencies (ChunkSearch.lexicalTerms) are both at hand.
//
// Per embedding profile: the weights are the profile's model's (a strong in-domain model earns
// more weight on weak lexical matches than a weak one). Only quarry-static has them; every other
// profile keeps the fixed fusion (fusion.ts DEFAULT_FUSION_OPTIONS).
import { idf } from "./lexical/bm25.js";
import { termWeight, type LexicalQuery } from "./lexical/types.js";

export interface CoverageWeights {
  /** the vector weight when the best lexical hit scores the full-match score or more */
  full: number;
  /** the vector weight when nothing matches lexically */
  none: number;
}

/**
 * The profiles with adaptive fusion. quarry-static's: `full` is the fixed fusion's 0.3, so a query
 * its best hit matches fully ranks as before; `none` was chosen on the dev proxy alone
 * (src/evaluation/bench/model/dev-proxy.ts --adaptive, the best mean of its two sets among 0.35 to
 * 0.5; docs/model.md) and is at most 0.5, so the lexical weight is never below the vector weight
 * and an exact match still comes first (fusion.ts Z_BOUND).
 */
export const PROFILE_COVERAGE_WEIGHTS: Readonly<Record<string, CoverageWeights>> = Object.freeze({
  "quarry-static": Object.freeze({ full: 0.3, none: 0.5 }),
});

/** The profile's adaptive weights; undefined: the profile fuses with fixed weights. */
export function coverageWeightsOf(profile: string | undefined): CoverageWeights | undefined {
  return profile === undefined ? undefined : PROFILE_COVERAGE_WEIGHTS[profile];
}

/** The full-match score of a query: its own terms' idf x term weight, under the given statistics. */
export function fullMatchScore(query: LexicalQuery, docCount: number, df: (term: string) => number): number {
  let s = 0;
  for (const t of query.terms) if (t.rule === undefined) s += idf(docCount, df(t.term)) * termWeight(t);
  return s;
}

/** How fully the best lexical hit matches the query, in [0, 1] (0: no lexical hit). */
export function lexicalCoverage(bestScore: number | undefined, fullMatch: number): number {
  if (bestScore === undefined || !Number.isFinite(bestScore) || bestScore <= 0) return 0;
  if (!(fullMatch > 0)) return 1;
  return Math.min(1, bestScore / fullMatch);
}

/** The vector weight at a coverage: `full` at 1, `none` at 0, linear between. */
export function vectorWeightAt(w: CoverageWeights, coverage: number): number {
  const c = Math.min(1, Math.max(0, coverage));
  return w.full + (w.none - w.full) * (1 - c);
}
