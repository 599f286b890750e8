// Query-adaptive fusion, as the dev proxy and the in-memory evaluation try it (issue 27; tried
// through the service and not adopted, docs/model.md "Query-adaptive fusion"): the vector list's
// weight grows as the query's lexical match weakens. Two signals of that weakness, both known to
// the service at query time.
//
// Coverage, how much of the query the best hit matches:
//
//   coverage = min(1, best BM25 score / full-match score)
//   vector weight = full + (none - full) * (1 - coverage),  lexical weight = 1 - vector weight
//
// where the full-match score is the query's own terms' idf x term weight summed: the BM25 score
// of a chunk of average length holding each query word once (bm25.ts tfFactor is 1 there). Words
// the collection lacks count with their (high) idf; only the user's own words count, not
// synonyms or typo and prefix alternatives. The signal was chosen for being available to the
// service at query time: the best score comes with the lexical list and the document frequencies
// from the term dictionary (ChunkSearch.lexicalTerms); which query terms each hit matched (the
// share of the query's idf mass in the best hit) the stores do not return.
//
// Peak, how far the best hit stands above its list: the z-score of the best BM25 score among the
// list's scores (the normalisation fusion.ts applies), strength = min(1, z / peak). A claim or a
// keyword question has a hit far above the rest; a plain question's list is flat.
import type { Candidate } from "../../../search/fusion.js";
import { idf } from "../../../search/lexical/bm25.js";
import { termWeight, type LexicalQuery } from "../../../search/lexical/types.js";

export interface CoverageWeights {
  /** the vector weight when the best lexical hit scores the full-match score or more */
  full: number;
  /** the vector weight when nothing matches lexically */
  none: number;
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
