// Retrieval quality metrics for benchmark runs, defined as trec_eval / pytrec_eval (what BEIR
// reports) computes them, so our numbers compare with published ones:
//
// - Rankings are lists of document ids, best first. A duplicate id counts once, at its first
//   occurrence, and is removed, so the documents after it move up (a pytrec_eval run is a
//   dict {doc: score}, where duplicates cannot exist).
// - Relevance: a Set/array of ids (binary) or a Map id -> grade; grade <= 0 means not relevant.
// - precision@k divides by k even when fewer than k documents came back (trec_eval P_k).
// - recall@k divides by the number of relevant documents (all of them, not min(|rel|, k)).
// - MRR@k: 1 / rank of the first relevant document within the top k, else 0.
// - nDCG@k: DCG = sum gain_i / log2(i + 1) over ranks i = 1..k; binary gain 1, graded gain = the
//   grade (linear, as trec_eval ndcg_cut; not 2^g - 1); the ideal DCG ranks the judged grades
//   best first, cut at k (binary: min(|relevant|, k) ones).
// - A query with no relevant documents has no meaningful recall or nDCG: per-query functions
//   return 0 for it, and the aggregate skips it (counted in `skipped`), as trec_eval and BEIR do
//   for queries absent from the qrels. A query that has judgements but no results counts as 0.

export type Relevance = ReadonlySet<string> | ReadonlyMap<string, number> | readonly string[];

/** id -> grade, only grades > 0 (the relevant documents). */
function grades(relevant: Relevance): Map<string, number> {
  const out = new Map<string, number>();
  if (relevant instanceof Map) {
    for (const [id, g] of relevant) if (g > 0) out.set(id, g);
  } else {
    for (const id of relevant as Iterable<string>) out.set(id, 1);
  }
  return out;
}

/** The top k distinct ids (first occurrence wins). */
export function topDistinct(ranked: readonly string[], k: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ranked) {
    if (out.length >= k) break;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

function relevantInTop(ranked: readonly string[], relevant: Relevance, k: number): number {
  const g = grades(relevant);
  return topDistinct(ranked, k).filter((id) => g.has(id)).length;
}

export function hitRateAtK(ranked: readonly string[], relevant: Relevance, k: number): number {
  return relevantInTop(ranked, relevant, k) > 0 ? 1 : 0;
}

export function recallAtK(ranked: readonly string[], relevant: Relevance, k: number): number {
  const total = grades(relevant).size;
  return total === 0 ? 0 : relevantInTop(ranked, relevant, k) / total;
}

export function precisionAtK(ranked: readonly string[], relevant: Relevance, k: number): number {
  return k <= 0 ? 0 : relevantInTop(ranked, relevant, k) / k;
}

export function mrrAtK(ranked: readonly string[], relevant: Relevance, k: number): number {
  const g = grades(relevant);
  const top = topDistinct(ranked, k);
  const i = top.findIndex((id) => g.has(id));
  return i === -1 ? 0 : 1 / (i + 1);
}

function dcg(gains: readonly number[]): number {
  return gains.reduce((sum, gain, i) => sum + gain / Math.log2(i + 2), 0);
}

/** Graded nDCG@k (trec_eval ndcg_cut.k): gain = grade, grades <= 0 are 0. */
export function ndcgAtKGraded(ranked: readonly string[], relevance: ReadonlyMap<string, number>, k: number): number {
  const g = grades(relevance);
  if (g.size === 0 || k <= 0) return 0;
  const ideal = dcg([...g.values()].sort((a, b) => b - a).slice(0, k));
  return dcg(topDistinct(ranked, k).map((id) => g.get(id) ?? 0)) / ideal;
}

/** Binary nDCG@k: every relevant document has gain 1 (a Map's positive grades count as 1). */
export function ndcgAtK(ranked: readonly string[], relevant: Relevance, k: number): number {
  const binary = new Map<string, number>();
  for (const id of grades(relevant).keys()) binary.set(id, 1);
  return ndcgAtKGraded(ranked, binary, k);
}

export interface QueryMetrics {
  hit_rate: number;
  recall: number;
  precision: number;
  mrr: number;
  /** graded when the relevance is a Map with grades, binary otherwise */
  ndcg: number;
}

export function evaluateQuery(ranked: readonly string[], relevant: Relevance, k: number): QueryMetrics {
  return {
    hit_rate: hitRateAtK(ranked, relevant, k),
    recall: recallAtK(ranked, relevant, k),
    precision: precisionAtK(ranked, relevant, k),
    mrr: mrrAtK(ranked, relevant, k),
    ndcg: relevant instanceof Map ? ndcgAtKGraded(ranked, relevant, k) : ndcgAtK(ranked, relevant, k),
  };
}

export interface AggregateMetrics extends QueryMetrics {
  k: number;
  /** queries averaged (those with at least one relevant document) */
  queries: number;
  /** queries left out because they have no relevant document */
  skipped: number;
}

/**
 * Mean metrics over the judged queries. `run` maps query id -> ranked ids; a judged query missing
 * from the run scores 0 (it was asked and nothing came back). Queries with no relevant document
 * are skipped.
 */
export function evaluateRun(
  run: ReadonlyMap<string, readonly string[]>,
  qrels: ReadonlyMap<string, Relevance>,
  k: number,
): AggregateMetrics {
  const sum: QueryMetrics = { hit_rate: 0, recall: 0, precision: 0, mrr: 0, ndcg: 0 };
  let queries = 0;
  let skipped = 0;
  for (const [queryId, relevant] of qrels) {
    if (grades(relevant).size === 0) {
      skipped++;
      continue;
    }
    const m = evaluateQuery(run.get(queryId) ?? [], relevant, k);
    for (const key of Object.keys(sum) as (keyof QueryMetrics)[]) sum[key] += m[key];
    queries++;
  }
  const mean = (x: number): number => (queries === 0 ? 0 : x / queries);
  return {
    k,
    queries,
    skipped,
    hit_rate: mean(sum.hit_rate),
    recall: mean(sum.recall),
    precision: mean(sum.precision),
    mrr: mean(sum.mrr),
    ndcg: mean(sum.ndcg),
  };
}

/**
 * Nearest-rank percentile (p in [0, 100]): the smallest sample such that at least p% of the samples
 * are <= it, i.e. sorted[ceil(p/100 * n) - 1]; p = 0 gives the minimum. Always an observed
 * value (no interpolation), which is what a latency SLO "p95 < X ms" means. null for no samples.
 */
export function percentile(samples: readonly number[], p: number): number | null {
  if (samples.length === 0) return null;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be in [0, 100], got ${p}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? null;
}

export interface LatencySummary {
  count: number;
  mean: number | null;
  p50: number | null;
  p95: number | null;
  max: number | null;
}

export function latencySummary(samples: readonly number[]): LatencySummary {
  if (samples.length === 0) return { count: 0, mean: null, p50: null, p95: null, max: null };
  return {
    count: samples.length,
    mean: samples.reduce((a, b) => a + b, 0) / samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    // reduce, not Math.max(...): spreading 100k+ samples overflows the call stack.
    max: samples.reduce((a, b) => (b > a ? b : a), -Infinity),
  };
}
