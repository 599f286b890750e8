// Score calibration (src/search/calibration.ts): relevance in [0, 1], non-increasing in fused order,
// higher for stronger signals; the retrieve cutoff keeps the head of the list.
import { describe, expect, it } from "vitest";
import { calibrate, features, relativeCutoff, shippedModels, FEATURES, MODEL_FEATURES } from "../../src/search/calibration.js";
import { fuse } from "../../src/search/fusion.js";

const lexical = Array.from({ length: 30 }, (_, i) => ({ id: `c${i}`, score: 30 / (i + 1) }));
const vector = Array.from({ length: 30 }, (_, i) => ({ id: `c${(i * 7) % 40}`, score: 0.6 - i * 0.01 }));

describe("calibrate", () => {
  it("gives relevances in [0, 1], non-increasing down the fused list", () => {
    for (const mode of ["hybrid", "lexical", "vector"] as const) {
      const hits = fuse(mode === "vector" ? [] : lexical, mode === "lexical" ? [] : vector);
      const r = calibrate(hits, mode);
      expect(r).toHaveLength(hits.length);
      for (const x of r) expect(x >= 0 && x <= 1).toBe(true);
      for (let i = 1; i < r.length; i++) expect(r[i]).toBeLessThanOrEqual(r[i - 1]);
    }
  });

  it("scores a strong lexical match above a query whose best match is weak", () => {
    // a BM25 outlier on top of a full candidate list (the usual shape of an answered question)
    const strong = calibrate(fuse(lexical, vector), "hybrid");
    const weak = calibrate(fuse([], [{ id: "a", score: 0.15 }, { id: "b", score: 0.12 }], {}, { lexicalComplete: true }), "hybrid");
    expect(strong[0]).toBeGreaterThan(0.5);
    expect(weak[0]).toBeLessThan(0.15);
  });

  it("fitted weights are never negative (relevance never falls as a signal grows)", () => {
    for (const m of [...Object.values(shippedModels("default")), ...Object.values(shippedModels("quarry-static"))]) {
      expect(m.weights).toHaveLength(MODEL_FEATURES.length);
      for (const w of m.weights) expect(w).toBeGreaterThanOrEqual(0);
    }
  });

  it("computes the features of a hit missing from one list", () => {
    const hits = fuse([{ id: "a", score: 10 }], [{ id: "b", score: 0.4 }, { id: "c", score: 0.2 }]);
    const x = new Map(hits.map((h, i) => [h.id, features(hits)[i]!]));
    // cosine: the vector list's lowest; small: 0 (the vector list is not known to be complete)
    expect(x.get("a")!.slice(1)).toEqual([1, Math.log1p(10), 0.2, 0, 0, Math.log1p(10)]);
    expect(x.get("b")!.slice(1)).toEqual([0, 0, 0.4, 0, 0, 0]);
    expect(features(hits)[0]).toHaveLength(MODEL_FEATURES.length);
    expect(MODEL_FEATURES.slice(0, FEATURES.length)).toEqual([...FEATURES]);
  });

  it("tells a short complete vector list (a small collection) and a long query's BM25 apart", () => {
    const hits = fuse([{ id: "a", score: 10 }], [{ id: "a", score: 0.5 }, { id: "b", score: 0.4 }, { id: "c", score: 0.2 }, { id: "d", score: 0.1 }]);
    const small = MODEL_FEATURES.indexOf("small");
    const mean = MODEL_FEATURES.indexOf("lex_mean");
    expect(features(hits, undefined, { vectorComplete: true })[0]![small]).toBeCloseTo(Math.log(100 / 4));
    expect(features(hits, undefined, { vectorComplete: false })[0]![small]).toBe(0);
    expect(features(hits, undefined, { queryTerms: 4 })[0]![mean]).toBeCloseTo(Math.log1p(10 / 4));
    // the same lists score higher when they are all the collection holds
    expect(calibrate(hits, "hybrid", undefined, undefined, { vectorComplete: true })[0]).toBeGreaterThan(calibrate(hits, "hybrid")[0]!);
  });
});

describe("relativeCutoff", () => {
  const list = (scores: number[]) => scores.map((score, i) => ({ id: i, score }));
  it("keeps the best and the matches at least ratio x best and at least the floor", () => {
    expect(relativeCutoff(list([0.9, 0.5, 0.26, 0.2]), { ratio: 0.3, floor: 0.15 }).map((m) => m.id)).toEqual([0, 1]);
    expect(relativeCutoff(list([0.9, 0.5, 0.27]), { ratio: 0.3, floor: 0.15 }).map((m) => m.id)).toEqual([0, 1, 2]);
    // a weak best: the floor stops the tail, the best stays
    expect(relativeCutoff(list([0.1, 0.09, 0.08]), { ratio: 0.3, floor: 0.15 }).map((m) => m.id)).toEqual([0]);
    expect(relativeCutoff([], { ratio: 0.3, floor: 0.15 })).toEqual([]);
  });
});
