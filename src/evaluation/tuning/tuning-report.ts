// The answer of POST /benchmarks/{suite_id}/tune: what was searched, on which cases, how the
// current and the best setting score, and whether the best one was applied.
import type { EngineSettings, RetrievalMode } from "../../search/engine.js";
import type { CrossValidation } from "./tuning-cv.js";
import { CALIBRATION_HITS, type SuiteCalibration } from "./tuning-calibration.js";
import { DEFAULT_SEARCH_SPACE, HELD_OUT_SHARE, TUNING_K, type SplitMetrics, type TuningOutcome } from "./fusion-search.js";
import type { LexicalWeights } from "../../search/lexical/types.js";
import type { BenchmarkSuiteRow } from "../../store/benchmark-types.js";
import { calibrationSettingOf, collectionSettingsOf } from "../../services/search/search-types.js";

const r6 = (x: number) => Math.round(x * 1e6) / 1e6;
const metricsOut = (m: SplitMetrics) => ({ ndcg_at_10: r6(m.ndcg_at_10), recall_at_10: r6(m.recall_at_10), mrr_at_10: r6(m.mrr_at_10), cases: m.cases });

/** A setting's metrics on both halves of the split. */
export interface SettingScore {
  tuning: SplitMetrics;
  held_out: SplitMetrics;
}

export interface TuneFindings {
  suite: BenchmarkSuiteRow;
  mode: RetrievalMode | "mixed";
  tuningIds: string[];
  heldOutIds: string[];
  outcome: TuningOutcome;
  plan: { lexicalWeights: LexicalWeights[]; depth: number };
  current: EngineSettings;
  now: SettingScore;
  found: SettingScore;
  changed: boolean;
  /** null when nothing changed (nothing to apply, so not run) */
  crossValidation: CrossValidation | null;
  apply: { requested: boolean; applied: boolean; allowed: boolean; detail: string };
  /** the collection's own calibration: null fit when the cases' modes differ */
  calibration: { fit: SuiteCalibration | null; apply: { requested: boolean; applied: boolean; detail: string } };
  started: number;
}

function calibrationOut(f: TuneFindings) {
  const { fit, apply } = f.calibration;
  const scoresOut = (b: Omit<NonNullable<SuiteCalibration["fitted"]>, "calibration">) => ({
    tuning_brier: r6(b.tuning_brier),
    held_out_brier: r6(b.held_out_brier),
    held_out_contexts_kept: r6(b.held_out_kept),
    held_out_relevant_kept: r6(b.held_out_relevant_kept),
    off_topic_most_kept: b.most_kept,
  });
  return {
    method:
      `a Platt model over the calibration features (weights >= 0), fitted on the first ${CALIBRATION_HITS} hits of each tuning case under the setting the collection keeps ` +
      "(a hit is relevant when its document is one of the case's relevant documents) and of off-topic probe questions (none relevant), " +
      "with a /retrieve floor just above every probe's second hit; compared with the calibration in effect by Brier score and by the contexts /retrieve keeps",
    mode: fit?.mode ?? null,
    hits: fit?.hits ?? null,
    off_topic_probes: fit?.probes ?? null,
    current: fit ? scoresOut(fit.current) : null,
    fitted: fit?.fitted ? { relevance_calibration: calibrationSettingOf(fit.fitted.calibration), ...scoresOut(fit.fitted) } : null,
    apply,
  };
}

function searchOut(f: TuneFindings) {
  return {
    method: "coordinate search from the current setting over fusion (method, weights, normalisation), BM25 field weights and candidate depth; each query embedded once",
    dimensions: f.outcome.dimensions,
    settings_evaluated: f.outcome.evaluated,
    passes: f.outcome.passes,
    space: {
      fusion: DEFAULT_SEARCH_SPACE.fusion.map((s) => ({ fusion: s.method, lexical_weight: s.lexicalWeight, vector_weight: s.vectorWeight, normalization: s.method === "weighted" ? (s.normalization ?? "zscore") : null })),
      field_weights: f.plan.lexicalWeights,
      candidate_depth: [...new Set([f.current.depth, ...DEFAULT_SEARCH_SPACE.depth])],
    },
  };
}

export function tuneReport(f: TuneFindings) {
  return {
    suite_id: f.suite.id,
    collection_id: f.suite.collection_id,
    mode: f.mode,
    k: TUNING_K,
    objective: "ndcg_at_10 on the tuning cases (ties: recall_at_10, then mrr_at_10; a tie keeps the current value)",
    split: {
      method: `deterministic by case id: cases ordered by the SHA-256 of their id, the first ${Math.round(HELD_OUT_SHARE * 100)}% held out, the rest tuned on`,
      tuning_case_ids: f.tuningIds,
      held_out_case_ids: f.heldOutIds,
    },
    search: searchOut(f),
    current: { settings: collectionSettingsOf(f.current), tuning: metricsOut(f.now.tuning), held_out: metricsOut(f.now.held_out) },
    best: { settings: collectionSettingsOf(f.outcome.best), tuning: metricsOut(f.found.tuning), held_out: metricsOut(f.found.held_out) },
    changed: f.changed,
    cross_validation: f.crossValidation && {
      method: `the search repeated ${f.crossValidation.folds} times, each on all cases but one fold (case i of the id-hash order in fold i mod ${f.crossValidation.folds}), its choice scored on that fold`,
      folds: f.crossValidation.folds,
      current: metricsOut(f.crossValidation.current),
      tuned: metricsOut(f.crossValidation.tuned),
      folds_better: f.crossValidation.folds_better,
      folds_worse: f.crossValidation.folds_worse,
    },
    apply: f.apply,
    calibration: calibrationOut(f),
    took_ms: Math.round(performance.now() - f.started),
  };
}
