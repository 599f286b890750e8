import { describe, expect, it } from "vitest";
import { DEFAULT_FUSION_OPTIONS, Z_BOUND, fuse, type Candidate } from "../../src/search/fusion.js";

const lex: Candidate[] = [
  { id: "a", score: 10 },
  { id: "b", score: 5 },
  { id: "c", score: 1 },
];
const vec: Candidate[] = [
  { id: "b", score: 0.9 },
  { id: "d", score: 0.8 },
];
const ids = (hits: { id: string }[]): string[] => hits.map((h) => h.id);

describe("fuse: reciprocal rank fusion", () => {
  const rrf = { method: "rrf", lexicalWeight: 1, vectorWeight: 1, rrfK: 60 } as const;

  it("sums w / (k + rank) over the lists a hit appears in", () => {
    const hits = fuse(lex, vec, rrf);
    // b: 1/62 + 1/61 = 0.032522; a: 1/61 = 0.016393; d: 1/62 = 0.016129; c: 1/63 = 0.015873
    expect(ids(hits)).toEqual(["b", "a", "d", "c"]);
    expect(hits[0]?.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(hits[3]?.score).toBeCloseTo(1 / 63, 12);
  });

  it("reports ranks and input scores, null where a list did not return the hit", () => {
    const byId = new Map(fuse(lex, vec, rrf).map((h) => [h.id, h]));
    expect(byId.get("b")).toMatchObject({ lexicalRank: 2, vectorRank: 1, lexicalScore: 5, vectorScore: 0.9 });
    expect(byId.get("a")).toMatchObject({ lexicalRank: 1, vectorRank: null, lexicalScore: 10, vectorScore: null });
    expect(byId.get("d")).toMatchObject({ lexicalRank: null, vectorRank: 2, lexicalScore: null, vectorScore: 0.8 });
  });

  it("applies list weights", () => {
    const hits = fuse(lex, vec, { ...rrf, lexicalWeight: 2 });
    // b: 2/62 + 1/61 = 0.048652; a: 2/61 = 0.032787; c: 2/63 = 0.031746; d: 1/62 = 0.016129
    expect(ids(hits)).toEqual(["b", "a", "c", "d"]);
    expect(hits[1]?.score).toBeCloseTo(2 / 61, 12);
  });

  it("respects rrfK", () => {
    const hits = fuse(lex, vec, { ...rrf, rrfK: 0 });
    // b: 1/2 + 1/1 = 1.5; a: 1; d: 1/2; c: 1/3
    expect(hits.map((h) => [h.id, h.score])).toEqual([["b", 1.5], ["a", 1], ["d", 0.5], ["c", 1 / 3]]);
  });
});

describe("fuse: weighted (normalised scores)", () => {
  it("min-max normalises each list and mixes with the weights", () => {
    const hits = fuse(lex, vec, { method: "weighted", lexicalWeight: 0.7, vectorWeight: 0.3, rrfK: 60, normalization: "minmax" });
    // lexical: a 1, b 4/9, c 0; vector: b 1, d 0 (absent = 0)
    // a 0.7; b 0.7*4/9 + 0.3 = 0.61111; c 0; d 0 -> tie broken by RRF: c (0.7/63) > d (0.3/62)
    expect(ids(hits)).toEqual(["a", "b", "c", "d"]);
    expect(hits[0]?.score).toBeCloseTo(0.7, 12);
    expect(hits[1]?.score).toBeCloseTo(0.7 * (4 / 9) + 0.3, 12);
    expect(hits[2]?.score).toBe(0);
  });

  it("z-score normalisation: absent hits get the list's lowest z", () => {
    const hits = fuse(lex, vec, { method: "weighted", lexicalWeight: 0.7, vectorWeight: 0.3, rrfK: 60, normalization: "zscore" });
    // lexical mean 16/3, sd 3.681787: z(a) 1.267500, z(b) -0.090536, z(c) -1.176965
    // vector mean 0.85, sd 0.05: z(b) 1, z(d) -1
    const byId = new Map(hits.map((h) => [h.id, h.score]));
    expect(byId.get("a")).toBeCloseTo(0.7 * 1.2675 - 0.3, 3);
    expect(byId.get("b")).toBeCloseTo(0.7 * -0.090536 + 0.3, 3);
    expect(byId.get("c")).toBeCloseTo(0.7 * -1.176965 - 0.3, 3);
    expect(byId.get("d")).toBeCloseTo(0.7 * -1.176965 - 0.3, 3);
    expect(ids(hits)).toEqual(["a", "b", "c", "d"]);
  });

  it("a single candidate or equal scores normalise to 1 (min-max)", () => {
    const hits = fuse([{ id: "x", score: -3 }], [], { method: "weighted", lexicalWeight: 1, vectorWeight: 1, rrfK: 60, normalization: "minmax" });
    expect(hits).toEqual([{ id: "x", score: 1, lexicalRank: 1, vectorRank: null, lexicalScore: -3, vectorScore: null }]);
  });

  it("treats non-finite scores as the list's worst", () => {
    const hits = fuse([{ id: "a", score: 2 }, { id: "b", score: Number.NaN }, { id: "c", score: 1 }], [], {
      method: "weighted", lexicalWeight: 1, vectorWeight: 0, rrfK: 60, normalization: "minmax",
    });
    expect(hits.map((h) => [h.id, h.score])).toEqual([["a", 1], ["b", 0], ["c", 0]]);
  });
});

describe("fuse: shared behaviour", () => {
  for (const method of ["rrf", "weighted"] as const) {
    const base = { method, rrfK: 60 };

    it(`${method}: weight 1/0 reproduces the lexical order, 0/1 the vector order`, () => {
      const vecLong: Candidate[] = [{ id: "d", score: 0.95 }, { id: "c", score: 0.5 }, { id: "a", score: 0.1 }];
      expect(ids(fuse(lex, vecLong, { ...base, lexicalWeight: 1, vectorWeight: 0 }))).toEqual(["a", "b", "c", "d"]);
      expect(ids(fuse(lex, vecLong, { ...base, lexicalWeight: 0, vectorWeight: 1 }))).toEqual(["d", "c", "a", "b"]);
    });

    it(`${method}: a lexical-only or vector-only input still yields hits`, () => {
      expect(ids(fuse(lex, [], { ...base, lexicalWeight: 0.5, vectorWeight: 0.5 }))).toEqual(["a", "b", "c"]);
      expect(ids(fuse([], vec, { ...base, lexicalWeight: 0.5, vectorWeight: 0.5 }))).toEqual(["b", "d"]);
      expect(fuse([], [], { ...base, lexicalWeight: 1, vectorWeight: 1 })).toEqual([]);
    });

    it(`${method}: ties keep a stable order (lexical order, then vector-only order)`, () => {
      const l: Candidate[] = [{ id: "p", score: 1 }];
      const v: Candidate[] = [{ id: "q", score: 0.5 }];
      // Symmetric weights: p and q tie exactly; p came first.
      expect(ids(fuse(l, v, { ...base, lexicalWeight: 1, vectorWeight: 1 }))).toEqual(["p", "q"]);
      expect(ids(fuse(v, l, { ...base, lexicalWeight: 1, vectorWeight: 1 }))).toEqual(["q", "p"]);
    });

    it(`${method}: duplicate ids in a list count once, at their best rank`, () => {
      const hits = fuse([{ id: "a", score: 3 }, { id: "a", score: 2 }, { id: "b", score: 1 }], [], {
        ...base, lexicalWeight: 1, vectorWeight: 1,
      });
      expect(hits.map((h) => [h.id, h.lexicalRank])).toEqual([["a", 1], ["b", 2]]);
    });
  }

  it("z-score: a lone lexical hit still outranks vector-only candidates it beats on weight", () => {
    // one lexical candidate has no spread; it must not be scored like an absent one
    const hits = fuse([{ id: "exact", score: 7 }], [{ id: "near", score: 0.9 }, { id: "exact", score: 0.2 }, { id: "far", score: 0.1 }], {
      method: "weighted", lexicalWeight: 0.7, vectorWeight: 0.3, rrfK: 60, normalization: "zscore",
    });
    expect(hits[0].id).toBe("exact");
  });

  it("z-score: vector-only outliers never pass the only exact match of a complete lexical list", () => {
    // 99 vector neighbours of similar score and one far outlier (z ~ 9.9 unbounded), the lexical
    // match itself at the bottom of the vector list
    const vector: Candidate[] = [{ id: "outlier", score: 0.99 }];
    for (let i = 0; i < 98; i++) vector.push({ id: `n${i}`, score: 0.3 - i * 1e-4 });
    vector.push({ id: "exact", score: -0.5 });
    const hits = fuse([{ id: "exact", score: 12.5 }], vector, DEFAULT_FUSION_OPTIONS, { lexicalComplete: true });
    expect(hits[0]!.id).toBe("exact");
    // the same when the match is not among the vector candidates at all
    expect(fuse([{ id: "exact", score: 12.5 }], vector.slice(0, 99), DEFAULT_FUSION_OPTIONS, { lexicalComplete: true })[0]!.id).toBe("exact");
    // a few exact matches all come before every vector-only chunk
    const few = fuse([{ id: "x1", score: 9 }, { id: "x2", score: 4 }, { id: "x3", score: 3.9 }], vector.slice(0, 99), DEFAULT_FUSION_OPTIONS, {
      lexicalComplete: true,
    });
    expect(few.slice(0, 3).map((h) => h.id).sort()).toEqual(["x1", "x2", "x3"]);
  });

  it("z-score: with a complete lexical list scores are bounded by Z_BOUND; full lists keep their outliers", () => {
    const vector: Candidate[] = [{ id: "o", score: 1 }, ...Array.from({ length: 99 }, (_, i) => ({ id: `v${i}`, score: 0 }))];
    const only = { ...DEFAULT_FUSION_OPTIONS, lexicalWeight: 0, vectorWeight: 1 };
    expect(fuse([{ id: "x", score: 1 }], vector, only, { lexicalComplete: true })[0]).toMatchObject({ id: "o", score: Z_BOUND });
    expect(fuse([{ id: "x", score: 1 }], vector, only)[0]!.score).toBeCloseTo(Math.sqrt(99), 9);
  });

  it("defaults: weighted z-score 0.7 / 0.3, k = 60", () => {
    expect(DEFAULT_FUSION_OPTIONS).toEqual({ method: "weighted", lexicalWeight: 0.7, vectorWeight: 0.3, rrfK: 60, normalization: "zscore" });
    expect(ids(fuse(lex, vec))).toEqual(["a", "b", "c", "d"]);
  });

  it("rejects negative or non-finite weights", () => {
    expect(() => fuse(lex, vec, { lexicalWeight: -1 })).toThrow(RangeError);
    expect(() => fuse(lex, vec, { vectorWeight: Number.NaN })).toThrow(RangeError);
  });
});
