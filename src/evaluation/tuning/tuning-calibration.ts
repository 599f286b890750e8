// A collection's own score calibration, fitted by tuning on its benchmark suite. The shipped
// calibration (calibration.ts) was fitted on SciFact, where one abstract answers a claim; on a
// documentation site with page-level judgments it is under-confident below rank 1 (0.06 predicted
// where 57% are relevant at rank 5, docs/decisions.md). The same features and the same fitter as
// the shipped fit, on the suite's tuning cases plus the hits of off-topic probe questions, all
// irrelevant (off-topic.ts); the held-out cases decide whether it is better. The probes also set
// its /retrieve floor: on a collection whose pages are often relevant, hits of a question without
// an answer score above the shipped floor (0.15), so the floor is raised above the second hit of
// every probe the ratio to its best does not already cut, and such a question still gets at most
// one context.
// Pure: no storage, no I/O.
import { calibrationInputs, fuseCandidates, type EngineSettings } from "../../search/engine.js";
import {
  cappedRelevance,
  cutoffFor,
  features,
  relativeCutoff,
  CALIBRATION_MODELS,
  FEATURES,
  RETRIEVE_CUTOFF,
  type CalibrationMode,
  type OwnCalibration,
  type PlattModel,
} from "../../search/calibration.js";
import { ON_TOPIC_RELEVANCE } from "../../search/off-topic.js";
import { fitNonNegative, type LabelledHit } from "../calibration-fit.js";
import type { TuningCase } from "./fusion-search.js";

/** Hits of each case that are labelled: the ones a reader sees (the shipped fit used 20 too). */
export const CALIBRATION_HITS = 20;
/** Fewer relevant (or fewer irrelevant) labelled hits among the tuning cases than this: no fit. */
export const MIN_CALIBRATION_LABELS = 10;

/** One case's first hits under a setting, in rank order, with their features and labels. */
export function labelledHits(c: TuningCase, s: EngineSettings, weightIndex: number): LabelledHit[] {
  const { candidates } = c;
  const lists = fuseCandidates(candidates.lexical[weightIndex] ?? [], candidates.vector, candidates.mode, s, candidates.queryTerms);
  const documentOf = (id: string) => candidates.documentOf.get(id);
  const { fused, fusedOf } = calibrationInputs(lists, candidates.mode, s, documentOf);
  const x = features(fused, fusedOf, lists.lists);
  const out: LabelledHit[] = [];
  for (let i = 0; i < fused.length && out.length < CALIBRATION_HITS; i++) {
    const d = documentOf(fused[i]!.id);
    if (d !== undefined) out.push({ x: x[i]!, y: c.relevant.has(d) ? 1 : 0 });
  }
  return out;
}

/** The relevance served for one case's hits (rank order), as calibration.ts serves it. */
const served = (hits: readonly LabelledHit[], model: PlattModel): number[] =>
  cappedRelevance(
    model,
    hits.map((h) => h.x),
  );

/** Mean squared error of the served relevance against the labels, over every case's hits. */
export function brierScore(cases: readonly LabelledHit[][], model: PlattModel): number {
  let sum = 0;
  let n = 0;
  for (const hits of cases) {
    served(hits, model).forEach((p, i) => (sum += (p - hits[i]!.y) ** 2));
    n += hits.length;
  }
  return n ? sum / n : 0;
}

/** How many of a case's hits /retrieve's relative cutoff keeps (an approximation: by hit, not by document). */
function keptOf(hits: readonly LabelledHit[], c: OwnCalibration): number {
  return relativeCutoff(
    served(hits, c.model).map((score) => ({ score })),
    cutoffFor(c, c.mode),
  ).length;
}

/**
 * What a calibration does to /retrieve: mean hits kept for a held-out case and how many of them are
 * relevant (the cutoff keeps a prefix), and the most kept for a probe.
 */
function keeping(heldOut: readonly LabelledHit[][], probes: readonly LabelledHit[][], c: OwnCalibration) {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
  const kept = heldOut.map((hits) => keptOf(hits, c));
  return {
    held_out_kept: mean(kept),
    held_out_relevant_kept: mean(heldOut.map((hits, i) => hits.slice(0, kept[i]).filter((h) => h.y === 1).length)),
    most_kept: Math.max(0, ...probes.map((hits) => keptOf(hits, c))),
  };
}

/**
 * The lowest floor (at least the shipped one, four decimals) under which no probe keeps a second
 * hit: just above each probe's second hit, unless the ratio to its best already drops it. None
 * without probes.
 */
function floorAbove(probes: readonly LabelledHit[][], model: PlattModel): number | undefined {
  if (probes.length === 0) return undefined;
  const needed = probes.map((hits) => {
    const [best = 0, second = 0] = served(hits, model);
    return second >= RETRIEVE_CUTOFF.ratio * best ? second : 0;
  });
  return Math.min(0.99, Math.max(RETRIEVE_CUTOFF.floor, (Math.ceil(Math.max(...needed) * 1e4) + 1) / 1e4));
}

export interface SuiteCalibration {
  mode: CalibrationMode;
  /** labelled hits (and how many relevant) on each side of the split */
  hits: { tuning: number; tuning_relevant: number; held_out: number; held_out_relevant: number };
  /** off-topic probes asked, and used (those the calibration in effect rates on-topic are left out) */
  probes: { asked: number; used: number };
  /** the calibration in effect (the collection's own, else the shipped one); held_out_kept / most_kept: contexts kept (keeping()) */
  current: { tuning_brier: number; held_out_brier: number; held_out_kept: number; held_out_relevant_kept: number; most_kept: number };
  /** null when the tuning cases have too few relevant or irrelevant hits to fit */
  fitted: { calibration: OwnCalibration; tuning_brier: number; held_out_brier: number; held_out_kept: number; held_out_relevant_kept: number; most_kept: number } | null;
}

const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
const count = (cases: LabelledHit[][]) => cases.reduce((n, hits) => n + hits.length, 0);
const relevantIn = (cases: LabelledHit[][]) => cases.reduce((n, hits) => n + hits.filter((h) => h.y === 1).length, 0);

/**
 * Fits a Platt model (weights >= 0) on the tuning cases' first hits under setting `s` and on the
 * off-topic probes' hits (cases with nothing relevant), and scores it and the calibration in
 * effect by Brier score on both halves of the split and by the contexts a probe keeps.
 */
export function fitSuiteCalibration(
  split: { tuning: readonly TuningCase[]; heldOut: readonly TuningCase[] },
  probeCases: readonly TuningCase[],
  s: EngineSettings,
  weightIndex: number,
  mode: CalibrationMode,
): SuiteCalibration {
  const tuning = split.tuning.map((c) => labelledHits(c, s, weightIndex));
  const heldOut = split.heldOut.map((c) => labelledHits(c, s, weightIndex));
  // the calibration in effect for this mode: the collection's own, else the shipped model (and floor)
  const effective: OwnCalibration = s.calibration?.mode === mode ? s.calibration : { mode, model: CALIBRATION_MODELS[mode] };
  const probes = probeCases.map((c) => labelledHits(c, s, weightIndex)).filter((hits) => hits.length > 0 && (served(hits, effective.model)[0] ?? 0) < ON_TOPIC_RELEVANCE);
  const hits = { tuning: count(tuning), tuning_relevant: relevantIn(tuning), held_out: count(heldOut), held_out_relevant: relevantIn(heldOut) };
  const current = { tuning_brier: brierScore(tuning, effective.model), held_out_brier: brierScore(heldOut, effective.model), ...keeping(heldOut, probes, effective) };
  const asked = { asked: probeCases.length, used: probes.length };
  if (Math.min(hits.tuning_relevant, hits.tuning - hits.tuning_relevant) < MIN_CALIBRATION_LABELS) return { mode, hits, probes: asked, current, fitted: null };
  const model = fitNonNegative([...tuning.flat(), ...probes.flat()], FEATURES.map(() => true));
  // four decimals, as the collection setting stores it: the scores reported are the ones served
  const rounded = { intercept: r4(model.intercept), weights: model.weights.map(r4) };
  const floor = floorAbove(probes, rounded);
  const calibration: OwnCalibration = floor === undefined ? { mode, model: rounded } : { mode, model: rounded, retrieveFloor: floor };
  const { model: m } = calibration;
  return {
    mode,
    hits,
    probes: asked,
    current,
    fitted: { calibration, tuning_brier: brierScore(tuning, m), held_out_brier: brierScore(heldOut, m), ...keeping(heldOut, probes, calibration) },
  };
}
