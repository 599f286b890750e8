import { describe, expect, it } from "vitest";
import { calibratedList, fuseCandidates, withDocumentEvidence, DEFAULT_ENGINE_SETTINGS } from "../../src/search/engine.js";
import { calibrate } from "../../src/search/calibration.js";
import { settingsFor } from "../../src/services/search/search.js";
import type { FusedHit } from "../../src/search/fusion.js";
import { rankDocuments, type TuningCase } from "../../src/evaluation/tuning/fusion-search.js";

const hit = (id: string, score: number): FusedHit => ({ id, score, lexicalRank: null, vectorRank: null, lexicalScore: score, vectorScore: null });
// chunk "a1" belongs to document "a", and so on
const docOf = (id: string) => (id === "orphan" ? undefined : id[0]);
// a BM25 list: x1 best alone, then three chunks of document a, then a tail of 20 weak ones (document z)
const SUPPORTED_LIST = [
  { id: "x1", score: 10 },
  { id: "a1", score: 9.5 },
  { id: "a2", score: 9 },
  { id: "a3", score: 8.8 },
  ...Array.from({ length: 20 }, (_, i) => ({ id: `z${i}`, score: 1 })),
];

describe("document evidence (EngineSettings.documentEvidence)", () => {
  // mean of the scores below: 1
  const fused = [hit("x1", 3), hit("a1", 2.8), hit("a2", 2.5), hit("a3", 2.2), hit("b1", 0.5), hit("b2", 0), hit("c1", 0), hit("c2", -0.5), hit("c3", -1.5)];

  it("raises a document that several good chunks come from above one lucky chunk", () => {
    const out = withDocumentEvidence(fused, docOf, { weight: 0.2, others: 10 });
    // a: 2.8 + 0.2 * ((2.5 - 1) + (2.2 - 1)) = 3.34 > x: 3 (every chunk of a gains 0.54)
    expect(out.map((h) => h.id).slice(0, 4)).toEqual(["a1", "a2", "x1", "a3"]);
    expect(out[0]!.score).toBeCloseTo(3.34, 10);
    // the document's best chunk stays first among its own
    expect(out.findIndex((h) => h.id === "a1")).toBeLessThan(out.findIndex((h) => h.id === "a2"));
  });

  it("counts only chunks above the candidates' mean, and at most `others` of them", () => {
    const out = withDocumentEvidence(fused, docOf, { weight: 0.2, others: 1 });
    // a: 2.8 + 0.2 * 1.5 = 3.1; b's second chunk and all of c are below the mean: no bonus
    expect(out.find((h) => h.id === "a1")!.score).toBeCloseTo(3.1, 10);
    expect(out.find((h) => h.id === "b1")!.score).toBe(0.5);
    expect(out.find((h) => h.id === "c1")!.score).toBe(0);
  });

  it("leaves the order alone at weight 0 and keeps chunks without a document", () => {
    const withOrphan = [...fused, hit("orphan", -3)];
    expect(withDocumentEvidence(withOrphan, docOf, { weight: 0, others: 10 }).map((h) => h.id)).toEqual(withOrphan.map((h) => h.id));
    expect(withDocumentEvidence([], docOf, { weight: 0.2, others: 10 })).toEqual([]);
  });

  it("is off by default and on for a collection that sets document_evidence", () => {
    expect(DEFAULT_ENGINE_SETTINGS.documentEvidence).toEqual({ weight: 0, others: 10 });
    expect(settingsFor(DEFAULT_ENGINE_SETTINGS, { document_evidence: 0.2 }).documentEvidence).toEqual({ weight: 0.2, others: 10 });
    expect(settingsFor(DEFAULT_ENGINE_SETTINGS, {}).documentEvidence).toEqual({ weight: 0, others: 10 });
  });
});

describe("tuning ranks with the same document evidence as search", () => {
  it("orders documents as withDocumentEvidence does", () => {
    const lexical = SUPPORTED_LIST;
    const documentOf = new Map([...lexical.map((c) => [c.id, c.id[0]!] as const)]);
    const c: TuningCase = { id: "q", relevant: new Set(["a"]), candidates: { mode: "lexical", lexical: [lexical], vector: [], documentOf } };
    const off = { ...DEFAULT_ENGINE_SETTINGS, documentEvidence: undefined };
    expect(rankDocuments(c, off, 0).slice(0, 2)).toEqual(["x", "a"]);
    const on = { ...DEFAULT_ENGINE_SETTINGS, documentEvidence: { weight: 0.2, others: 10 } };
    expect(rankDocuments(c, on, 0).slice(0, 2)).toEqual(["a", "a"]);
  });
});

describe("calibrated relevance with document evidence (calibratedList)", () => {
  const lists = fuseCandidates(SUPPORTED_LIST, [], "lexical", DEFAULT_ENGINE_SETTINGS);
  const settings = (weight: number) => ({ ...DEFAULT_ENGINE_SETTINGS, documentEvidence: { weight, others: 10 } });
  const relevanceOf = (r: ReturnType<typeof calibratedList>, id: string) => r.relevance[r.fused.findIndex((f) => f.id === id)]!;

  it("is plain calibration of the fused list without evidence", () => {
    const off = calibratedList(lists, "lexical", settings(0), docOf);
    expect(off.fused.map((f) => f.id).slice(0, 2)).toEqual(["x1", "a1"]);
    expect(off.relevance).toEqual(calibrate(lists.fused, "lexical"));
  });

  it("scores a chunk promoted by its page's support with that support, not below its own estimate without it", () => {
    const off = calibratedList(lists, "lexical", settings(0), docOf);
    const on = calibratedList(lists, "lexical", settings(0.2), docOf);
    expect(on.fused.map((f) => f.id).slice(0, 2)).toEqual(["a1", "a2"]);
    // in [0, 1] and non-increasing down the new order
    for (let i = 0; i < on.relevance.length; i++) {
      expect(on.relevance[i]).toBeGreaterThanOrEqual(0);
      expect(on.relevance[i]).toBeLessThanOrEqual(1);
      if (i) expect(on.relevance[i]).toBeLessThanOrEqual(on.relevance[i - 1]!);
    }
    // the page's support raises its chunks' relevance; the chunk they passed keeps its own estimate
    expect(relevanceOf(on, "a1")).toBeGreaterThan(relevanceOf(off, "a1"));
    expect(relevanceOf(on, "a2")).toBeGreaterThan(relevanceOf(off, "a2"));
    const x = on.fused.findIndex((f) => f.id === "x1");
    expect(on.relevance[x]).toBeCloseTo(Math.min(relevanceOf(off, "x1"), on.relevance[x - 1]!), 10);
  });
});

