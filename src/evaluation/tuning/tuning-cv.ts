// Cross-validation of the tuning itself (POST /benchmarks/{suite_id}/tune). One 70/30 split is a
// thin check on a suite of a hundred cases: on the documentation question set (88 cases) three
// suites of the same questions, split differently, chose three different settings
// (docs/decisions.md, "Tuning measured on held-out queries"). So the search is also run k times,
// each time on all cases but one fold, and its choice is scored on that fold: every case is
// scored once by a setting chosen without it. When that out-of-fold score loses to the current
// setting, tuning does not generalise on this suite, whatever the one split says. Pure, like
// tuning.ts: the candidate lists are already in memory, so k more searches cost only fusion.
import type { EngineSettings, TuningCandidates } from "../../search/engine.js";
import { coordinateSearch, DEFAULT_SEARCH_SPACE, EPS, evaluateSetting, inHashOrder, weightIndexOf, type SearchSpace, type SplitMetrics, type TuningCase } from "./fusion-search.js";

/** Folds of the cross-validation; fewer when the suite has fewer cases. */
export const CV_FOLDS = 5;

export interface CrossValidation {
  folds: number;
  /** the current setting on every case */
  current: SplitMetrics;
  /** every case scored by the setting the search chose on the other folds */
  tuned: SplitMetrics;
  /** folds where the search's choice beat / lost to the current setting on nDCG@10 */
  folds_better: number;
  folds_worse: number;
}

/** Case i of the hash order goes to fold i mod k, so folds differ in size by at most one. */
export function foldsOf<T extends { id: string }>(cases: readonly T[], k: number): T[][] {
  const folds: T[][] = Array.from({ length: k }, () => []);
  inHashOrder(cases).forEach((c, i) => folds[i % k]!.push(c));
  return folds;
}

/** Sums metrics of parts into one mean over all their cases. */
export function pooled(parts: readonly SplitMetrics[]): SplitMetrics {
  const cases = parts.reduce((a, m) => a + m.cases, 0);
  const mean = (key: "ndcg_at_10" | "recall_at_10" | "mrr_at_10") => (cases ? parts.reduce((a, m) => a + m[key] * m.cases, 0) / cases : 0);
  return { ndcg_at_10: mean("ndcg_at_10"), recall_at_10: mean("recall_at_10"), mrr_at_10: mean("mrr_at_10"), cases };
}

/** The search run once per fold on the other folds, its choice scored on the fold left out. */
export function crossValidate(
  cases: readonly TuningCase[],
  current: EngineSettings,
  mode: TuningCandidates["mode"],
  space: SearchSpace = DEFAULT_SEARCH_SPACE,
): CrossValidation {
  const k = Math.min(CV_FOLDS, cases.length);
  const folds = foldsOf(cases, k);
  const currentParts: SplitMetrics[] = [];
  const tunedParts: SplitMetrics[] = [];
  let better = 0;
  let worse = 0;
  folds.forEach((fold, i) => {
    const rest = folds.flatMap((f, j) => (j === i ? [] : f));
    const chosen = coordinateSearch(rest, current, mode, space).best;
    const now = evaluateSetting(fold, current, weightIndexOf(current, current, space));
    const tuned = evaluateSetting(fold, chosen, weightIndexOf(current, chosen, space));
    currentParts.push(now);
    tunedParts.push(tuned);
    if (tuned.ndcg_at_10 > now.ndcg_at_10 + EPS) better++;
    if (tuned.ndcg_at_10 < now.ndcg_at_10 - EPS) worse++;
  });
  return { folds: k, current: pooled(currentParts), tuned: pooled(tunedParts), folds_better: better, folds_worse: worse };
}
