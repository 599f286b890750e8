import { describe, expect, it } from "vitest";
import {
  evaluateQuery,
  evaluateRun,
  hitRateAtK,
  latencySummary,
  mrrAtK,
  ndcgAtK,
  ndcgAtKGraded,
  percentile,
  precisionAtK,
  recallAtK,
} from "../../src/evaluation/ranking-metrics.js";

const L2 = (x: number): number => Math.log2(x);

describe("per-query metrics (hand-computed)", () => {
  const ranked = ["d1", "d2", "d3", "d4", "d5"];
  const relevant = new Set(["d2", "d4", "d9"]);

  it("@5 with two of three relevant documents retrieved at ranks 2 and 4", () => {
    expect(hitRateAtK(ranked, relevant, 5)).toBe(1);
    expect(recallAtK(ranked, relevant, 5)).toBeCloseTo(2 / 3, 12);
    expect(precisionAtK(ranked, relevant, 5)).toBeCloseTo(0.4, 12);
    expect(mrrAtK(ranked, relevant, 5)).toBe(0.5);
    // DCG = 1/log2(3) + 1/log2(5) = 1.061606; IDCG (3 relevant) = 1 + 1/log2(3) + 1/log2(4) = 2.130930
    expect(ndcgAtK(ranked, relevant, 5)).toBeCloseTo(0.498189, 6);
    expect(ndcgAtK(ranked, relevant, 5)).toBeCloseTo((1 / L2(3) + 1 / L2(5)) / (1 + 1 / L2(3) + 0.5), 12);
  });

  it("@3 cuts the ranking", () => {
    expect(recallAtK(ranked, relevant, 3)).toBeCloseTo(1 / 3, 12);
    expect(precisionAtK(ranked, relevant, 3)).toBeCloseTo(1 / 3, 12);
    expect(ndcgAtK(ranked, relevant, 3)).toBeCloseTo(0.296082, 6);
    expect(mrrAtK(ranked, relevant, 1)).toBe(0);
    expect(hitRateAtK(ranked, relevant, 1)).toBe(0);
  });

  it("duplicates count once, at the first occurrence; later ids move up", () => {
    const dup = ["d2", "d2", "d4"];
    const rel = new Set(["d2", "d4"]);
    expect(ndcgAtK(dup, rel, 2)).toBe(1);
    expect(precisionAtK(dup, rel, 2)).toBe(1);
    expect(recallAtK(dup, rel, 2)).toBe(1);
    expect(mrrAtK(["x", "x", "d2"], rel, 2)).toBe(0.5);
  });

  it("more relevant documents than k: ideal DCG uses min(|relevant|, k)", () => {
    const rel = new Set(["a", "b", "c", "d"]);
    expect(ndcgAtK(["a", "b"], rel, 2)).toBe(1);
    expect(recallAtK(["a", "b"], rel, 2)).toBe(0.5);
    expect(precisionAtK(["a", "b"], rel, 2)).toBe(1);
  });

  it("precision divides by k even when fewer results came back (trec_eval P_k)", () => {
    expect(precisionAtK(["a"], new Set(["a"]), 10)).toBe(0.1);
  });

  it("empty results score 0", () => {
    expect(evaluateQuery([], new Set(["a"]), 10)).toEqual({ hit_rate: 0, recall: 0, precision: 0, mrr: 0, ndcg: 0 });
  });

  it("no relevant documents: every per-query metric is 0", () => {
    expect(evaluateQuery(["a", "b"], new Set(), 10)).toEqual({ hit_rate: 0, recall: 0, precision: 0, mrr: 0, ndcg: 0 });
  });

  it("ties: the list order decides (no scores at this level)", () => {
    expect(ndcgAtK(["x", "a"], new Set(["a"]), 2)).toBeCloseTo(1 / L2(3), 12);
    expect(ndcgAtK(["a", "x"], new Set(["a"]), 2)).toBe(1);
  });

  it("graded nDCG uses linear gains and the ideal order of the grades (trec_eval ndcg_cut)", () => {
    const grades = new Map([["a", 2], ["b", 1], ["c", 3], ["z", 0]]);
    // DCG = 2/1 + 0 + 1/log2(4) = 2.5; IDCG = 3 + 2/log2(3) + 1/log2(4) = 4.761860
    expect(ndcgAtKGraded(["a", "x", "b"], grades, 3)).toBeCloseTo(0.525, 5);
    // grade 0 is not relevant: no gain, not in the ideal
    expect(ndcgAtKGraded(["z", "c"], grades, 1)).toBe(0);
    // binary nDCG of the same judgements treats every positive grade as 1
    expect(ndcgAtK(["a", "x", "b"], grades, 3)).toBeCloseTo((1 + 0.5) / (1 + 1 / L2(3) + 0.5), 12);
    expect(evaluateQuery(["a", "x", "b"], grades, 3).ndcg).toBeCloseTo(0.525, 5);
    expect(recallAtK(["a", "z"], grades, 2)).toBeCloseTo(1 / 3, 12);
  });

  it("accepts relevant ids as an array", () => {
    expect(recallAtK(["a", "b"], ["b", "c"], 2)).toBe(0.5);
  });
});

describe("evaluateRun", () => {
  it("averages over judged queries; missing rankings score 0; unjudged queries are skipped", () => {
    const run = new Map([["q1", ["d1", "d2"]]]);
    const qrels = new Map<string, Map<string, number>>([
      ["q1", new Map([["d2", 1]])],
      ["q2", new Map([["x", 1]])],
      ["q3", new Map([["y", 0]])],
    ]);
    const m = evaluateRun(run, qrels, 2);
    expect(m.queries).toBe(2);
    expect(m.skipped).toBe(1);
    expect(m.k).toBe(2);
    expect(m.hit_rate).toBe(0.5);
    expect(m.recall).toBe(0.5);
    expect(m.precision).toBe(0.25);
    expect(m.mrr).toBe(0.25);
    expect(m.ndcg).toBeCloseTo(1 / L2(3) / 2, 12);
  });

  it("no judged queries gives zeros, not NaN", () => {
    expect(evaluateRun(new Map(), new Map(), 10)).toEqual({ k: 10, queries: 0, skipped: 0, hit_rate: 0, recall: 0, precision: 0, mrr: 0, ndcg: 0 });
  });
});

describe("latency helpers (nearest rank)", () => {
  it("percentile is an observed sample: sorted[ceil(p/100*n) - 1]", () => {
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(percentile([5, 1, 4, 2, 3], 95)).toBe(5);
    expect(percentile([5, 1, 4, 2, 3], 0)).toBe(1);
    expect(percentile([5, 1, 4, 2, 3], 100)).toBe(5);
    const twenty = Array.from({ length: 20 }, (_, i) => 20 - i);
    expect(percentile(twenty, 95)).toBe(19);
    expect(percentile(twenty, 50)).toBe(10);
    expect(percentile([], 50)).toBeNull();
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });

  it("latencySummary", () => {
    expect(latencySummary([10, 20, 30, 40])).toEqual({ count: 4, mean: 25, p50: 20, p95: 40, max: 40 });
    expect(latencySummary([])).toEqual({ count: 0, mean: null, p50: null, p95: null, max: null });
  });
});
