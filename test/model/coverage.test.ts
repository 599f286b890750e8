// Query-adaptive fusion as the dev proxy tries it (src/evaluation/bench/model/coverage.ts): the
// vector weight follows how weakly the best lexical hit matches the query.
import { describe, expect, it } from "vitest";
import { fullMatchScore, lexicalCoverage, peakOf, vectorWeightAt } from "../../src/evaluation/bench/model/coverage.js";
import { idf } from "../../src/search/lexical/bm25.js";
import type { LexicalQuery } from "../../src/search/lexical/types.js";

describe("query-adaptive fusion weights", () => {
  const w = { full: 0.3, none: 0.5 };

  it("moves the vector weight with the lexical match: `full` at full coverage, `none` at none, linear between, clamped", () => {
    expect(vectorWeightAt(w, 1)).toBeCloseTo(0.3, 12);
    expect(vectorWeightAt(w, 0)).toBeCloseTo(0.5, 12);
    expect(vectorWeightAt(w, 0.5)).toBeCloseTo(0.4, 12);
    expect(vectorWeightAt(w, 0.25)).toBeGreaterThan(vectorWeightAt(w, 0.75));
    expect(vectorWeightAt(w, 3)).toBeCloseTo(0.3, 12);
    expect(vectorWeightAt(w, -1)).toBeCloseTo(0.5, 12);
  });

  it("coverage is the best score over the full-match score, capped at 1, 0 without a hit", () => {
    expect(lexicalCoverage(2, 8)).toBeCloseTo(0.25, 12);
    expect(lexicalCoverage(12, 8)).toBe(1);
    expect(lexicalCoverage(undefined, 8)).toBe(0);
    expect(lexicalCoverage(0, 8)).toBe(0);
  });

  it("the full-match score sums idf x term weight of the user's own words only, unknown words at their idf", () => {
    const q = {
      terms: [
        { term: "gear", count: 2 },
        { term: "box", count: 1 },
        { term: "gearbox", count: 1, weight: 0.9, rule: "typo" },
      ],
      phrases: [],
    } as unknown as LexicalQuery;
    const df: Record<string, number> = { gear: 10, box: 0, gearbox: 3 };
    expect(fullMatchScore(q, 1000, (t) => df[t] ?? 0)).toBeCloseTo(2 * idf(1000, 10) + idf(1000, 0), 12);
  });

  it("the peak is the best score's z in its list: high for a clear winner, low for a flat list, so a flat list gets more vector weight", () => {
    const list = (...scores: number[]) => scores.map((score, i) => ({ id: `c${i}`, score }));
    const clear = peakOf(list(30, 2, 2, 1, 1, 1, 1, 1, 1, 1));
    const flat = peakOf(list(5, 4.9, 4.8, 4.8, 4.7, 4.7, 4.6, 4.6, 4.5, 4.5));
    expect(clear).toBeGreaterThan(2.5);
    expect(flat).toBeLessThan(2);
    expect(vectorWeightAt(w, flat / 5)).toBeGreaterThan(vectorWeightAt(w, clear / 5));
    expect(peakOf(list(3))).toBe(Infinity); // the only match: sure
    expect(vectorWeightAt(w, Infinity)).toBeCloseTo(0.3, 12);
    expect(peakOf([])).toBe(0);
  });
});
