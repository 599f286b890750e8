// A collection's own calibration fitted from tuning cases (tuning-calibration.ts), on built lexical
// candidate lists: it scores held-out cases better than the shipped calibration, and its /retrieve
// floor sits above every used probe's second hit, so a question without an answer keeps one hit.
import { describe, expect, it } from "vitest";
import { fitSuiteCalibration } from "../../src/evaluation/tuning/tuning-calibration.js";
import { DEFAULT_ENGINE_SETTINGS } from "../../src/search/engine.js";
import type { TuningCase } from "../../src/evaluation/tuning/fusion-search.js";

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** one query's 20 lexical candidates (one chunk per document), BM25 scores falling from `top`, for a query of 6 terms */
function lexicalCase(id: string, top: number, relevantFirst: number, next: () => number): TuningCase {
  const lexical = Array.from({ length: 20 }, (_, i) => ({ id: `${id}-c${i}`, score: top * (1 - i / 25) * (0.9 + 0.2 * next()) })).sort((a, b) => b.score - a.score);
  const documentOf = new Map(lexical.map((c) => [c.id, `${c.id}-doc`]));
  const relevant = new Set(lexical.slice(0, relevantFirst).map((c) => `${c.id}-doc`));
  return { id, relevant, candidates: { mode: "lexical", lexical: [lexical], vector: [], documentOf, queryTerms: 6 } };
}

describe("a collection's own calibration from its suite", () => {
  const next = random(5);
  // documentation-like: strong matches, and half of the first ten hits relevant
  const cases = Array.from({ length: 40 }, (_, i) => lexicalCase(`q${i}`, 12 + 6 * next(), 5 + Math.floor(next() * 5), next));
  // questions the collection does not answer: weak matches, nothing relevant
  const probes = Array.from({ length: 10 }, (_, i) => lexicalCase(`off${i}`, 3 + 2 * next(), 0, next));
  const split = { tuning: cases.slice(0, 28), heldOut: cases.slice(28) };

  it("fits a model that scores the held-out cases better than the shipped one, weights >= 0", () => {
    const c = fitSuiteCalibration(split, probes, DEFAULT_ENGINE_SETTINGS, 0, "lexical");
    expect(c.probes).toEqual({ asked: 10, used: 10 });
    expect(c.fitted).not.toBeNull();
    expect(c.fitted!.calibration.model.weights.every((w) => w >= 0)).toBe(true);
    expect(c.fitted!.held_out_brier).toBeLessThan(c.current.held_out_brier);
    // the shipped fit (SciFact: one relevant abstract) rates these hits far too low, so it keeps fewer
    expect(c.fitted!.held_out_kept).toBeGreaterThan(c.current.held_out_kept);
  });

  it("puts the /retrieve floor above every probe's second hit: a probe keeps one hit", () => {
    const c = fitSuiteCalibration(split, probes, DEFAULT_ENGINE_SETTINGS, 0, "lexical");
    expect(c.fitted!.calibration.retrieveFloor).toBeGreaterThanOrEqual(0.15);
    expect(c.fitted!.most_kept).toBe(1);
    // without its floor the same model keeps a probe's tail
    const { retrieveFloor: _, ...noFloor } = c.fitted!.calibration;
    const again = fitSuiteCalibration(split, probes, { ...DEFAULT_ENGINE_SETTINGS, calibration: noFloor }, 0, "lexical");
    expect(again.current.most_kept).toBeGreaterThan(1);
  });

  it("does not fit from too few relevant hits", () => {
    const few = { tuning: cases.slice(0, 1), heldOut: cases.slice(1, 2) };
    expect(fitSuiteCalibration(few, probes, DEFAULT_ENGINE_SETTINGS, 0, "lexical").fitted).toBeNull();
  });
});
