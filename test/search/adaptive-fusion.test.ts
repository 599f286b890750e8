// Query-adaptive fusion (search/adaptive-fusion.ts): the vector list's weight follows how far the
// best lexical hit stands above its list, for the profiles that have adaptive weights, and only
// when the caller did not fix the weights.
import { describe, expect, it } from "vitest";
import { PROFILE_ADAPTIVE_WEIGHTS, adaptiveWeightsOf, peakOf, vectorWeightAt } from "../../src/search/adaptive-fusion.js";
import { rankIds, DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "../../src/search/engine.js";
import { fuse, type Candidate } from "../../src/search/fusion.js";
import { builtInProfiles } from "../../src/embed/profiles.js";
import type { ChunkSearch } from "../../src/store/content-store.js";
import type { Embedder } from "../../src/embed/types.js";

const list = (...scores: number[]): Candidate[] => scores.map((score, i) => ({ id: `c${i}`, score }));

describe("adaptive weights", () => {
  const w = { strong: 0.3, weak: 0.5, peak: 8 }; // test weights, not the profile's

  it("gives `strong` at or above the peak, `weak` at none, linear between", () => {
    expect(vectorWeightAt(w, 8)).toBeCloseTo(0.3, 12);
    expect(vectorWeightAt(w, Infinity)).toBeCloseTo(0.3, 12);
    expect(vectorWeightAt(w, 0)).toBeCloseTo(0.5, 12);
    expect(vectorWeightAt(w, 4)).toBeCloseTo(0.4, 12);
    expect(vectorWeightAt(w, -2)).toBeCloseTo(0.5, 12);
  });

  it("the peak is the best score's z in its list: high for a clear winner, low for a flat list", () => {
    const clear = peakOf(list(30, 2, 2, 1, 1, 1, 1, 1, 1, 1));
    const flat = peakOf(list(5, 4.9, 4.8, 4.8, 4.7, 4.7, 4.6, 4.6, 4.5, 4.5));
    expect(clear).toBeGreaterThan(2.5);
    expect(flat).toBeLessThan(2);
    expect(vectorWeightAt(w, clear)).toBeLessThan(vectorWeightAt(w, flat));
    expect(peakOf(list(3))).toBe(Infinity); // the only match: sure
    expect(peakOf([])).toBe(0);
  });

  it("quarry-static has adaptive weights that rise as the lexical list flattens, never above the lexical weight; USE lite has none", () => {
    const qs = adaptiveWeightsOf("quarry-static")!;
    expect(qs.weak).toBeGreaterThan(qs.strong);
    // lexical >= vector at every strength keeps an exact match first (fusion.ts Z_BOUND)
    expect(qs.weak).toBeLessThanOrEqual(0.5);
    expect(adaptiveWeightsOf("default")).toBeUndefined();
    expect(Object.keys(PROFILE_ADAPTIVE_WEIGHTS)).toEqual(["quarry-static"]);
  });
});

/** The engine over one fake collection: these lexical and vector lists for any query. */
function engineDeps(profileName: string, lexical: Candidate[], vector: Candidate[]) {
  const content = {
    lexicalSearch: async () => lexical.map((c) => ({ chunkId: c.id, score: c.score })),
    vectorSearch: async () => vector.map((c) => ({ chunkId: c.id, score: c.score })),
    chunkDocuments: async (_t: string, ids: string[]) => new Map(ids.map((id) => [id, `d-${id}`])),
  } as unknown as ChunkSearch;
  const profile = builtInProfiles().find((p) => p.name === profileName)!;
  const embedder = { profile, status: () => ({ state: "ready", detail: null }), embedQuery: async () => new Float32Array(profile.dimension) } as unknown as Embedder;
  return { content, profile, embedder };
}

/** fused scores by id of a hybrid answer */
async function fusedScores(profile: string, lexical: Candidate[], vector: Candidate[], settings: EngineSettings = DEFAULT_ENGINE_SETTINGS) {
  const r = await rankIds(engineDeps(profile, lexical, vector), "t", ["s"], "gearbox", { ...settings, typoTolerance: false });
  expect(r.mode).toBe("hybrid");
  return new Map(r.ranked.map((h) => [h.id, h.fusedScore]));
}

/** what fusion.ts gives the lists at vector weight w */
function expectedAt(lexical: Candidate[], vector: Candidate[], w: number): Map<string, number> {
  const fusion = { ...DEFAULT_ENGINE_SETTINGS.fusion, lexicalWeight: 1 - w, vectorWeight: w };
  return new Map(fuse(lexical, vector, fusion, { lexicalComplete: true }).map((f) => [f.id, f.score]));
}

describe("the engine's hybrid fusion under adaptive weights", () => {
  const qs = adaptiveWeightsOf("quarry-static")!;
  const vector = [
    { id: "v1", score: 0.9 },
    { id: "c1", score: 0.5 },
    { id: "c2", score: 0.4 },
  ];
  // a lexical list with a clear winner (70 candidates, the best 8+ sd above them) and a nearly tied one
  const clear = list(60, 2, 2, ...Array.from({ length: 67 }, () => 1));
  const flat = list(5, 4.9, 4.8, 4.8, 4.7, 4.7, 4.6, 4.6, 4.5, 4.5);

  it("weighs the vector list by the lexical list: more vector weight when the best hit stands out less", async () => {
    expect(peakOf(clear)).toBeGreaterThanOrEqual(qs.peak);
    const strong = await fusedScores("quarry-static", clear, vector);
    const weak = await fusedScores("quarry-static", flat, vector);
    for (const [id, s] of expectedAt(clear, vector, qs.strong)) expect(strong.get(id)).toBeCloseTo(s, 9);
    const w = vectorWeightAt(qs, peakOf(flat));
    expect(w).toBeGreaterThan(qs.strong);
    for (const [id, s] of expectedAt(flat, vector, w)) expect(weak.get(id)).toBeCloseTo(s, 9);
  });

  it("keeps the fixed weights for a profile without adaptive weights and for fixed collection weights", async () => {
    const fixed = expectedAt(flat, vector, DEFAULT_ENGINE_SETTINGS.fusion.vectorWeight);
    for (const got of [
      await fusedScores("default", flat, vector),
      await fusedScores("quarry-static", flat, vector, { ...DEFAULT_ENGINE_SETTINGS, fixedWeights: true }),
    ]) {
      for (const [id, s] of fixed) expect(got.get(id)).toBeCloseTo(s, 9);
    }
  });
});
