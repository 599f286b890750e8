// Per-collection tuning (POST /benchmarks/{suite_id}/tune): a small coordinate search over fusion
// settings, scored on a suite's cases from candidate lists fetched once per case (engine.ts
// candidates(): the query embedded once, one kNN list, one BM25 list per field-weight set), so
// every setting is ranked in memory with the same fusion code search uses (fuseCandidates).
// Pure: no storage, no I/O.
import { createHash } from "node:crypto";
import type { LexicalWeights } from "../../search/lexical/types.js";
import { fuseCandidates, withDocumentEvidence, type EngineSettings, type TuningCandidates } from "../../search/engine.js";
import type { FusionOptions } from "../../search/fusion.js";
import { evaluateQuery } from "../ranking-metrics.js";

/** Metrics are taken at this cut-off whatever the suite's top_k. */
export const TUNING_K = 10;
/** Share of the cases held out from the search and used only to check its result. */
export const HELD_OUT_SHARE = 0.3;
/** Fewer cases than this leave too few to tune on and to check with (422). */
export const MIN_TUNING_CASES = 5;

export interface TuningCase {
  id: string;
  relevant: ReadonlySet<string>;
  candidates: TuningCandidates;
}

export interface SplitMetrics {
  ndcg_at_10: number;
  recall_at_10: number;
  mrr_at_10: number;
  cases: number;
}

/** The dimensions searched, each a short list of values (the current value is added to each). */
export interface SearchSpace {
  fusion: FusionOptions[];
  lexicalWeights: LexicalWeights[];
  depth: number[];
}

const z = (lexicalWeight: number): FusionOptions => ({
  method: "weighted",
  normalization: "zscore",
  lexicalWeight,
  vectorWeight: Math.round((1 - lexicalWeight) * 10) / 10,
  rrfK: 60,
});

export const DEFAULT_SEARCH_SPACE: SearchSpace = {
  fusion: [
    ...[0.5, 0.6, 0.7, 0.8, 0.9].map(z),
    ...[0.5, 0.7, 0.9].map((w) => ({ ...z(w), normalization: "minmax" as const })),
    ...[0.5, 0.7].map((w) => ({ ...z(w), method: "rrf" as const })),
  ],
  lexicalWeights: [
    { title: 2, headings: 1.5, body: 1 },
    { title: 1, headings: 1, body: 1 },
    { title: 4, headings: 2, body: 1 },
    { title: 1, headings: 1, body: 2 },
  ],
  depth: [50, 100, 200],
};

/** Cases ordered by the SHA-256 of their id: a fixed order that does not follow the suite's own. */
export function inHashOrder<T extends { id: string }>(cases: readonly T[]): T[] {
  const keyed = cases.map((c) => ({ c, h: createHash("sha256").update(c.id).digest("hex") }));
  keyed.sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0));
  return keyed.map((x) => x.c);
}

/**
 * Deterministic split by case id: cases ordered by the SHA-256 of their id, the first 30% (at
 * least one) held out, the rest tuned on. The same cases always fall on the same side.
 */
export function splitCases<T extends { id: string }>(cases: readonly T[]): { tuning: T[]; heldOut: T[] } {
  const n = Math.min(cases.length - 1, Math.max(1, Math.round(cases.length * HELD_OUT_SHARE)));
  const heldOut = new Set(inHashOrder(cases).slice(0, n));
  return { tuning: cases.filter((c) => !heldOut.has(c)), heldOut: cases.filter((c) => heldOut.has(c)) };
}

export const weightsKey = (w: LexicalWeights): string => `${w.title}/${w.headings}/${w.body}`;

function fusionKey(f: FusionOptions): string {
  return f.method === "rrf" ? `rrf/${f.lexicalWeight}/${f.vectorWeight}/${f.rrfK}` : `w/${f.normalization ?? "zscore"}/${f.lexicalWeight}/${f.vectorWeight}`;
}

export const settingKey = (s: EngineSettings): string => `${fusionKey(s.fusion)}|${weightsKey(s.lexicalWeights)}|${s.depth}`;

/** The document ids a setting ranks for a case, best first (duplicates left for the metrics to drop). */
export function rankDocuments(c: TuningCase, s: EngineSettings, weightIndex: number): string[] {
  const lexical = c.candidates.lexical[weightIndex] ?? [];
  const { fused: chunks } = fuseCandidates(lexical, c.candidates.vector, c.candidates.mode, s);
  const e = s.documentEvidence;
  const fused = e && e.weight > 0 && e.others > 0 ? withDocumentEvidence(chunks, (id) => c.candidates.documentOf.get(id), e) : chunks;
  const out: string[] = [];
  for (const f of fused) {
    const d = c.candidates.documentOf.get(f.id);
    if (d !== undefined) out.push(d);
  }
  return out;
}

/** Mean nDCG@10, recall@10 and MRR@10 of a setting over cases (collapsed to one hit per document). */
export function evaluateSetting(cases: readonly TuningCase[], s: EngineSettings, weightIndex: number): SplitMetrics {
  let ndcg = 0;
  let recall = 0;
  let mrr = 0;
  for (const c of cases) {
    const m = evaluateQuery(rankDocuments(c, s, weightIndex), c.relevant, TUNING_K);
    ndcg += m.ndcg;
    recall += m.recall;
    mrr += m.mrr;
  }
  const n = cases.length || 1;
  return { ndcg_at_10: ndcg / n, recall_at_10: recall / n, mrr_at_10: mrr / n, cases: cases.length };
}

/** metric differences below this are ties (float noise of the same ranking) */
export const EPS = 1e-9;

/** a beats b: higher nDCG@10, then recall@10, then MRR@10 (ties keep b) */
export function better(a: SplitMetrics, b: SplitMetrics): boolean {
  if (a.ndcg_at_10 > b.ndcg_at_10 + EPS) return true;
  if (a.ndcg_at_10 < b.ndcg_at_10 - EPS) return false;
  if (a.recall_at_10 > b.recall_at_10 + EPS) return true;
  if (a.recall_at_10 < b.recall_at_10 - EPS) return false;
  return a.mrr_at_10 > b.mrr_at_10 + EPS;
}

/** Values of a dimension: the current one first, then the space's that differ from it. */
function withCurrent<T>(current: T, options: readonly T[], key: (x: T) => string): T[] {
  const seen = new Set([key(current)]);
  const out = [current];
  for (const o of options) {
    if (seen.has(key(o))) continue;
    seen.add(key(o));
    out.push(o);
  }
  return out;
}

/** The field-weight sets and the depth the candidate lists must be fetched with. */
export function candidatePlan(current: EngineSettings, space: SearchSpace = DEFAULT_SEARCH_SPACE): { lexicalWeights: LexicalWeights[]; depth: number } {
  return {
    lexicalWeights: withCurrent(current.lexicalWeights, space.lexicalWeights, weightsKey),
    depth: Math.max(current.depth, ...space.depth),
  };
}

export interface TuningOutcome {
  best: EngineSettings;
  evaluated: number;
  passes: number;
  /** dimensions searched: fusion only when vectors are available (lexical mode has one list) */
  dimensions: string[];
}

/**
 * Coordinate search from the current setting: for each dimension in turn (fusion method, weights
 * and normalisation; BM25 field weights; candidate depth) take the value that scores best on the
 * tuning cases with the others fixed; repeat until a pass changes nothing (at most 3 passes).
 * Ties keep the value in place, so the current setting wins unless something beats it.
 */
export function coordinateSearch(
  tuning: readonly TuningCase[],
  current: EngineSettings,
  mode: TuningCandidates["mode"],
  space: SearchSpace = DEFAULT_SEARCH_SPACE,
): TuningOutcome {
  const plan = candidatePlan(current, space);
  const weightIndex = new Map(plan.lexicalWeights.map((w, i) => [weightsKey(w), i]));
  const cache = new Map<string, SplitMetrics>();
  const score = (s: EngineSettings): SplitMetrics => {
    const k = settingKey(s);
    let m = cache.get(k);
    if (!m) cache.set(k, (m = evaluateSetting(tuning, s, weightIndex.get(weightsKey(s.lexicalWeights))!)));
    return m;
  };
  type Dim = { name: string; values: (s: EngineSettings) => EngineSettings[] };
  const dims: Dim[] = [];
  if (mode === "hybrid") {
    dims.push({
      name: "fusion",
      values: (s) => withCurrent(s.fusion, space.fusion, fusionKey).map((fusion) => ({ ...s, fusion })),
    });
  }
  dims.push({ name: "field_weights", values: (s) => plan.lexicalWeights.map((lexicalWeights) => ({ ...s, lexicalWeights })) });
  dims.push({ name: "candidate_depth", values: (s) => withCurrent(s.depth, space.depth, String).map((depth) => ({ ...s, depth })) });

  let best = current;
  let bestScore = score(current);
  let passes = 0;
  for (let changed = true; changed && passes < 3; passes++) {
    changed = false;
    for (const d of dims) {
      for (const candidate of d.values(best)) {
        const m = score(candidate);
        if (better(m, bestScore)) {
          best = candidate;
          bestScore = m;
          changed = true;
        }
      }
    }
  }
  return { best, evaluated: cache.size, passes, dimensions: dims.map((d) => d.name) };
}

/** Index of a setting's field weights among the candidate lists of candidatePlan(current). */
export function weightIndexOf(current: EngineSettings, s: EngineSettings, space: SearchSpace = DEFAULT_SEARCH_SPACE): number {
  return candidatePlan(current, space).lexicalWeights.findIndex((w) => weightsKey(w) === weightsKey(s.lexicalWeights));
}

/** The apply rule: a setting replaces the current one only when it does not lose on the held-out cases. */
export function mayApply(best: SplitMetrics, current: SplitMetrics): boolean {
  return best.ndcg_at_10 >= current.ndcg_at_10 - EPS;
}
