// Query-adaptive fusion (search/adaptive-fusion.ts): the vector list's weight follows how weakly the
// best lexical hit matches the query, for the profiles that have adaptive weights, and only when
// the caller did not fix the weights.
import { describe, expect, it } from "vitest";
import {
  PROFILE_COVERAGE_WEIGHTS,
  coverageWeightsOf,
  fullMatchScore,
  lexicalCoverage,
  vectorWeightAt,
} from "../../src/search/adaptive-fusion.js";
import { idf } from "../../src/search/lexical/bm25.js";
import { rankIds, DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "../../src/search/engine.js";
import { fuse, type Candidate } from "../../src/search/fusion.js";
import { builtInProfiles } from "../../src/embed/profiles.js";
import type { ChunkSearch } from "../../src/store/content-store.js";
import type { Embedder } from "../../src/embed/types.js";
import type { LexicalQuery } from "../../src/search/lexical/types.js";

describe("adaptive weights", () => {
  const w = { full: 0.3, none: 0.5 };

  it("gives `full` at full coverage, `none` at none, linear between, clamped", () => {
    expect(vectorWeightAt(w, 1)).toBeCloseTo(0.3, 12);
    expect(vectorWeightAt(w, 0)).toBeCloseTo(0.5, 12);
    expect(vectorWeightAt(w, 0.5)).toBeCloseTo(0.4, 12);
    expect(vectorWeightAt(w, 3)).toBeCloseTo(0.3, 12);
    expect(vectorWeightAt(w, -1)).toBeCloseTo(0.5, 12);
  });

  it("coverage is the best score over the full-match score, capped at 1, 0 without a hit", () => {
    expect(lexicalCoverage(2, 8)).toBeCloseTo(0.25, 12);
    expect(lexicalCoverage(12, 8)).toBe(1);
    expect(lexicalCoverage(undefined, 8)).toBe(0);
    expect(lexicalCoverage(0, 8)).toBe(0);
  });

  it("the full-match score sums idf x term weight of the user's own words only", () => {
    const q: LexicalQuery = {
      terms: [
        { term: "gear", count: 2 },
        { term: "box", count: 1 },
        { term: "gearbox", count: 1, weight: 0.9, rule: "typo" },
      ],
      phrases: [],
    } as LexicalQuery;
    const df: Record<string, number> = { gear: 10, box: 0, gearbox: 3 };
    expect(fullMatchScore(q, 1000, (t) => df[t] ?? 0)).toBeCloseTo(2 * idf(1000, 10) + idf(1000, 0), 12);
  });

  it("quarry-static has adaptive weights that rise as the match weakens, never above the lexical weight; USE lite has none", () => {
    const qs = coverageWeightsOf("quarry-static")!;
    expect(qs.none).toBeGreaterThan(qs.full);
    // lexical >= vector at every coverage keeps an exact match first (fusion.ts Z_BOUND)
    expect(qs.none).toBeLessThanOrEqual(0.5);
    expect(coverageWeightsOf("default")).toBeUndefined();
    expect(Object.keys(PROFILE_COVERAGE_WEIGHTS)).toEqual(["quarry-static"]);
  });
});

/**
 * The engine with one collection of five chunks: lexical hits l1..l4 (l1 best), vector hits
 * v1, l2, l3 (v1 best). `df` is the dictionary's answer, so the same lists come with a strong or
 * a weak lexical match depending on it.
 */
function engineDeps(profileName: string, df: number) {
  const lexical: Candidate[] = [
    { id: "l1", score: 6 },
    { id: "l2", score: 4 },
    { id: "l3", score: 3 },
    { id: "l4", score: 2 },
  ];
  const vector: Candidate[] = [
    { id: "v1", score: 0.9 },
    { id: "l2", score: 0.5 },
    { id: "l3", score: 0.4 },
  ];
  const content = {
    lexicalSearch: async () => lexical.map((c) => ({ chunkId: c.id, score: c.score })),
    vectorSearch: async () => vector.map((c) => ({ chunkId: c.id, score: c.score })),
    lexicalTerms: async (_t: string, lookup: { terms: string[] }) => ({ docCount: 1000, df: new Map(lookup.terms.map((t) => [t, df])), ranges: [] }),
    chunkDocuments: async (_t: string, ids: string[]) => new Map(ids.map((id) => [id, `d-${id}`])),
  } as unknown as ChunkSearch;
  const profile = builtInProfiles().find((p) => p.name === profileName)!;
  const embedder = { profile, status: () => ({ state: "ready", detail: null }), embedQuery: async () => new Float32Array(profile.dimension) } as unknown as Embedder;
  return { deps: { content, profile, embedder }, lexical, vector };
}

/** fused scores by id of a hybrid answer to a one-word query */
async function fusedScores(profile: string, df: number, settings: EngineSettings = DEFAULT_ENGINE_SETTINGS, typos = false) {
  const { deps } = engineDeps(profile, df);
  const r = await rankIds(deps, "t", ["s"], "gearbox", { ...settings, typoTolerance: typos });
  expect(r.mode).toBe("hybrid");
  return new Map(r.ranked.map((h) => [h.id, h.fusedScore]));
}

/** what fusion.ts gives the lists at vector weight w */
function expectedAt(w: number): Map<string, number> {
  const { lexical, vector } = engineDeps("default", 1);
  return new Map(fuse(lexical, vector, { ...DEFAULT_ENGINE_SETTINGS.fusion, lexicalWeight: 1 - w, vectorWeight: w }, { lexicalComplete: true }).map((f) => [f.id, f.score]));
}

describe("the engine's hybrid fusion under adaptive weights", () => {
  const qs = coverageWeightsOf("quarry-static")!;
  // one query word, best BM25 score 6: its full-match score is idf(1000, df), so the dictionary's
  // df alone makes the same lists a strong or a weak lexical match
  const strongDf = 100; // idf 2.19: 6 / 2.19 > 1, full coverage
  const weakDf = 0; // a word no chunk holds, idf 7.6: coverage 6 / 7.6 = 0.79

  it("weighs the vector list by the lexical match: more vector weight when the best hit matches less", async () => {
    const strong = await fusedScores("quarry-static", strongDf);
    const weak = await fusedScores("quarry-static", weakDf);
    const coverage = lexicalCoverage(6, idf(1000, weakDf));
    expect(coverage).toBeLessThan(1);
    for (const [id, s] of expectedAt(qs.full)) expect(strong.get(id)).toBeCloseTo(s, 9);
    for (const [id, s] of expectedAt(vectorWeightAt(qs, coverage))) expect(weak.get(id)).toBeCloseTo(s, 9);
    // the vector-only hit gains as the lexical match weakens
    expect(weak.get("v1")! - weak.get("l1")!).toBeGreaterThan(strong.get("v1")! - strong.get("l1")!);
  });

  it("keeps the fixed weights for a profile without adaptive weights and for fixed collection weights", async () => {
    const fixed = expectedAt(DEFAULT_ENGINE_SETTINGS.fusion.vectorWeight);
    for (const got of [
      await fusedScores("default", weakDf),
      await fusedScores("quarry-static", weakDf, { ...DEFAULT_ENGINE_SETTINGS, fixedWeights: true }),
    ]) {
      for (const [id, s] of fixed) expect(got.get(id)).toBeCloseTo(s, 9);
    }
  });
});
