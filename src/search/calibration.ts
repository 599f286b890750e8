// Score calibration: turns the engine's fused scores (z-score combinations, unbounded, negative
// for weak hits, meaningful only inside one query) into a relevance in [0, 1] that means the same
// thing in every query of a collection: an estimate of the probability that the hit is relevant.
//
// Method (docs/decisions.md, "Calibrated scores"): a logistic (Platt) model over a few features
// every hit has, fitted offline on labelled (query, hit, relevant?) pairs from SciFact collections
// of 10 to 1,200 documents with src/evaluation/labs/fit-calibration.ts, one coefficient set per
// embedding profile and retrieval mode (hybrid; lexical when the model is unavailable; vector).
// The coefficients below are that script's output; re-run it (with EMBEDDING_PROFILE set) after
// changing fusion, BM25 weights or a profile's model.
//
// Order: the hit list stays in fused order, and each hit's relevance is capped by the relevance of
// the hit above it (a running minimum), so scores are non-increasing down the list and the ranking
// is exactly what it was. The cap binds rarely (the script reports how often).
import { DEFAULT_FUSION_OPTIONS, type FusedHit, type FusionOptions } from "./fusion.js";

export type CalibrationMode = "hybrid" | "lexical" | "vector";

/**
 * Feature names, in the order of `features()` and of a collection's own model's `weights` (the
 * collection setting relevance_calibration names these five).
 */
export const FEATURES = ["fused", "lex_ratio", "lex_log", "cosine", "both"] as const;

/**
 * The shipped models' features: FEATURES plus `small`, how far the candidate lists fall short of a
 * full list because the collection (or a filter) holds fewer chunks than that. The fused z-scores
 * and BM25 strengths these models read depend on it: a list of n candidates has z-scores of at most
 * sqrt(n - 1), and a collection of 10 pages has small IDFs. Fitted on SciFact collections of 10 to
 * 1,200 documents, it lets a score mean the same at any size (issue 27 item 5, docs/decisions.md).
 * And `lex_mean`, log(1 + BM25 / the query's terms): lex_log grows with the number of words asked,
 * so a three-word question that matches its page well reads weaker than a claim of twelve words that
 * matches as well; the mean per word asked does not. A collection's own model is fitted on the
 * collection itself (one size, its own questions), so it has neither.
 */
export const MODEL_FEATURES = [...FEATURES, "small", "lex_mean"] as const;

/** What features() needs to know of a query's lists besides their hits (engine fuseCandidates). */
export interface ListFacts {
  /** the vector list came back shorter than asked: it holds every chunk there is */
  vectorComplete?: boolean;
  /** the lexical query's terms and phrases (lex_mean); absent: 1 */
  queryTerms?: number;
}

/** Candidate count of a full list, the size above which `small` is 0 (the default candidate depth). */
export const FULL_LIST = 100;

export interface PlattModel {
  intercept: number;
  /** one weight per FEATURES entry */
  weights: readonly number[];
}

/** A collection's own model (collection setting relevance_calibration), for answers of one mode. */
export interface OwnCalibration {
  mode: CalibrationMode;
  model: PlattModel;
  /** /retrieve's cutoff floor under this model (RETRIEVE_CUTOFF.floor when absent) */
  retrieveFloor?: number;
}

/** One profile's shipped calibration: where it was fitted, and a model per mode over MODEL_FEATURES. */
export interface ShippedCalibration {
  fit: { data: string; profile: string; features: string };
  models: Readonly<Record<CalibrationMode, PlattModel>>;
}

// --- fitted constants: default (src/evaluation/labs/fit-calibration.ts --write; numbers in docs/decisions.md) ---
export const DEFAULT_PROFILE_CALIBRATION: ShippedCalibration = {
  fit: {
    data: "BEIR scifact train split, 400 queries, 1200 documents (1433 chunks), and 60 collections of 10 documents and 20 collections of 30 documents (hybrid, vector), top 20 chunks per query",
    profile: "default",
    features: "hybrid: all features, weights >= 0; lexical: all features, weights >= 0; vector: fused and small",
  },
  models: {
    hybrid: { intercept: -10.4897, weights: [0.73, 1.6901, 0.9204, 0, 0.2607, 2.0791, 2.5798] },
    lexical: { intercept: -9.8474, weights: [0.6603, 2.3121, 0.623, 0, 0, 0, 2.1521] },
    vector: { intercept: -7.0262, weights: [1.9611, 0, 0, 0, 0, 1.5122, 0] },
  },
};
// ------------------------------------------------------------------------------------------------

// --- fitted constants: quarry-static (src/evaluation/labs/fit-calibration.ts --write; numbers in docs/decisions.md) ---
export const QUARRY_STATIC_PROFILE_CALIBRATION: ShippedCalibration = {
  fit: {
    data: "BEIR scifact train split, 400 queries, 1200 documents (1433 chunks), and 60 collections of 10 documents and 20 collections of 30 documents (hybrid, vector), top 20 chunks per query",
    profile: "quarry-static",
    features: "hybrid: all features, weights >= 0; lexical: all features, weights >= 0; vector: fused and small",
  },
  models: {
    hybrid: { intercept: -10.8683, weights: [0.5244, 2.1702, 1.0183, 0.2452, 0.3938, 2.0507, 2.4836] },
    lexical: { intercept: -9.8474, weights: [0.6603, 2.3121, 0.623, 0, 0, 0, 2.1521] },
    vector: { intercept: -6.9975, weights: [2.0408, 0, 0, 0, 0, 1.1648, 0] },
  },
};
// ------------------------------------------------------------------------------------------------

/**
 * Each embedding profile's cosines and vector lists have their own distribution, so a profile with
 * a fit of its own uses it; the others use the default profile's: use-lite-int8 (the same model,
 * vectors within cosine 0.997 of the float model's, so its fit serves both), use-lite-static, openai.
 */
const SHIPPED: Readonly<Record<string, ShippedCalibration>> = {
  default: DEFAULT_PROFILE_CALIBRATION,
  "quarry-static": QUARRY_STATIC_PROFILE_CALIBRATION,
};

/** The shipped models of an embedding profile. */
export function shippedModels(profile: string | undefined): Readonly<Record<CalibrationMode, PlattModel>> {
  return (SHIPPED[profile ?? "default"] ?? DEFAULT_PROFILE_CALIBRATION).models;
}

/** The default profile's shipped models. */
export const CALIBRATION_MODELS = DEFAULT_PROFILE_CALIBRATION.models;

/**
 * The features of each hit of one query's fused list (best first):
 * - fused: the fused score with the fusion the models were fitted on (calibrationFusion; the
 *   caller passes `fusedOf` when the list was ranked with other settings);
 * - lex_ratio: BM25 score / the query's best BM25 score (1 for the best lexical hit, 0 when the
 *   hit did not match lexically);
 * - lex_log: log(1 + BM25 score), the absolute strength of the lexical match (0 when absent);
 * - cosine: cosine similarity to the query; a hit outside the vector list gets the list's lowest
 *   cosine (it is at most that), 0 without vectors;
 * - both: 1 when the hit is in both lists;
 * - small: ln(FULL_LIST / n) when the vector list holds every chunk there is (`vectorComplete`: it
 *   came back shorter than asked) and n < FULL_LIST, else 0 (no vector list: 0);
 * - lex_mean: log(1 + BM25 score / the query's terms), 0 when absent.
 */
export function features(
  hits: readonly FusedHit[],
  fusedOf?: ReadonlyMap<string, number>,
  lists: ListFacts = {},
): number[][] {
  let topLex = 0;
  let minCos: number | null = null;
  for (const h of hits) {
    if (h.lexicalScore !== null && Number.isFinite(h.lexicalScore) && h.lexicalScore > topLex) topLex = h.lexicalScore;
    if (h.vectorScore !== null && Number.isFinite(h.vectorScore) && (minCos === null || h.vectorScore < minCos)) minCos = h.vectorScore;
  }
  const small = smallness(hits, lists.vectorComplete === true);
  const terms = Math.max(1, lists.queryTerms ?? 1);
  return hits.map((h) => {
    const lex = h.lexicalScore !== null && Number.isFinite(h.lexicalScore) ? Math.max(0, h.lexicalScore) : null;
    const cos = h.vectorScore !== null && Number.isFinite(h.vectorScore) ? h.vectorScore : null;
    return [
      fusedOf ? (fusedOf.get(h.id) ?? 0) : Number.isFinite(h.score) ? h.score : 0,
      lex !== null && topLex > 0 ? lex / topLex : 0,
      lex !== null ? Math.log1p(lex) : 0,
      cos ?? minCos ?? 0,
      lex !== null && lex > 0 && cos !== null ? 1 : 0,
      small,
      lex !== null ? Math.log1p(lex / terms) : 0,
    ];
  });
}

/** The `small` feature of a list (see features). */
function smallness(hits: readonly FusedHit[], vectorComplete: boolean): number {
  if (!vectorComplete) return 0;
  const n = hits.reduce((k, h) => (h.vectorScore !== null ? k + 1 : k), 0);
  return n > 0 && n < FULL_LIST ? Math.log(FULL_LIST / n) : 0;
}

/**
 * The fusion the models were fitted with: the deployment default (weighted z-scores), with the
 * weights of the mode (hybrid 0.7 / 0.3; lexical 1 / 0; vector 0 / 1). A collection ranked with
 * other fusion settings is calibrated on this fusion of the same candidate lists, so its scores
 * mean the same; its own order is kept and capped as usual.
 */
export function calibrationFusion(mode: CalibrationMode): Required<FusionOptions> {
  if (mode === "hybrid") return { ...DEFAULT_FUSION_OPTIONS };
  return { ...DEFAULT_FUSION_OPTIONS, lexicalWeight: mode === "lexical" ? 1 : 0, vectorWeight: mode === "vector" ? 1 : 0 };
}

/** Whether two fusion settings give the same fused scores. */
export function sameFusion(a: FusionOptions, b: FusionOptions): boolean {
  return (
    a.method === b.method &&
    a.lexicalWeight === b.lexicalWeight &&
    a.vectorWeight === b.vectorWeight &&
    (a.method === "rrf" ? a.rrfK === b.rrfK : (a.normalization ?? DEFAULT_FUSION_OPTIONS.normalization) === (b.normalization ?? DEFAULT_FUSION_OPTIONS.normalization))
  );
}

const sigmoid = (z: number): number => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/** P(relevant) of one feature vector under a model. */
export function plattProbability(model: PlattModel, x: readonly number[]): number {
  let z = model.intercept;
  for (let i = 0; i < model.weights.length; i++) z += model.weights[i]! * (x[i] ?? 0);
  return sigmoid(z);
}

/** The profile's shipped models, with a collection's own model in place of its mode's. */
export function modelsWith(own: OwnCalibration | undefined, profile?: string): Readonly<Record<CalibrationMode, PlattModel>> {
  const shipped = shippedModels(profile);
  return own ? { ...shipped, [own.mode]: own.model } : shipped;
}

/**
 * Relevance in [0, 1] of each hit of a fused list (same order), non-increasing down the list.
 * `models`: the shipped fit unless a collection has its own (modelsWith), or the fitting script's trials.
 */
export function calibrate(
  hits: readonly FusedHit[],
  mode: CalibrationMode,
  fusedOf?: ReadonlyMap<string, number>,
  models: Readonly<Record<CalibrationMode, PlattModel>> = CALIBRATION_MODELS,
  lists: ListFacts = {},
): number[] {
  return cappedRelevance(models[mode], features(hits, fusedOf, lists));
}

/** The relevance served for a list's feature rows (rank order): each capped by the one above it. */
export function cappedRelevance(model: PlattModel, rows: readonly (readonly number[])[]): number[] {
  let cap = 1;
  return rows.map((x) => (cap = Math.min(cap, plattProbability(model, x))));
}

// --- retrieve cutoff ------------------------------------------------------------------------------

/**
 * POST /retrieve stops adding matches when the next one is much weaker than the best: a match is
 * kept while its relevance is at least RATIO x the best match's, and at least FLOOR (a weak best
 * match does not pull in a tail of equally weak ones: a question with no answer in the collection
 * gets at most its single best match). The best match is always kept (min_score can drop it).
 * Numbers from src/evaluation/labs/fit-calibration.ts, see docs/decisions.md.
 */
export const RETRIEVE_CUTOFF = Object.freeze({ ratio: 0.3, floor: 0.15 });

/**
 * The cutoff of an answer: a collection's own calibration brings its own floor (its scores are on
 * its own scale: where documentation pages are often relevant, unanswerable questions' hits score
 * higher than the shipped floor), for answers of its mode.
 */
export function cutoffFor(own: OwnCalibration | undefined, answered: CalibrationMode): { ratio: number; floor: number } {
  return own?.mode === answered && own.retrieveFloor !== undefined ? { ratio: RETRIEVE_CUTOFF.ratio, floor: own.retrieveFloor } : RETRIEVE_CUTOFF;
}

/** The matches (sorted best first) that survive the relative cutoff. */
export function relativeCutoff<T extends { score: number }>(sorted: readonly T[], cutoff: { ratio: number; floor: number } = RETRIEVE_CUTOFF): T[] {
  if (sorted.length === 0) return [];
  const best = sorted[0]!.score;
  const threshold = Math.max(cutoff.ratio * best, cutoff.floor);
  return sorted.filter((m, i) => i === 0 || m.score >= threshold);
}
