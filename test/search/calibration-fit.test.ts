// The Platt fitter behind the shipped calibration and a collection's own (calibration-fit.ts):
// it recovers known coefficients from labels drawn from them, and the non-negative fit drops a
// feature whose weight would be negative instead of rewarding a weaker signal.
import { describe, expect, it } from "vitest";
import { brierScore } from "../../src/evaluation/tuning/tuning-calibration.js";
import { calibrationStats, fitLogistic, fitNonNegative, type LabelledHit } from "../../src/evaluation/calibration-fit.js";

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** hits with five features in [0, 1) labelled by a known model */
function drawn(intercept: number, weights: number[], n: number, seed: number): LabelledHit[] {
  const next = random(seed);
  return Array.from({ length: n }, () => {
    const x = weights.map(() => next());
    const z = intercept + x.reduce((s, v, i) => s + v * weights[i]!, 0);
    return { x, y: next() < 1 / (1 + Math.exp(-z)) ? 1 : 0 };
  });
}

const ALL = [true, true, true, true, true];

describe("calibration fit", () => {
  it("recovers the coefficients the labels were drawn from", () => {
    const truth = { intercept: -2, weights: [3, 1, 0, 0, 2] };
    const m = fitLogistic(drawn(truth.intercept, truth.weights, 20_000, 7), ALL);
    expect(m.intercept).toBeCloseTo(truth.intercept, 0);
    m.weights.forEach((w, i) => expect(Math.abs(w - truth.weights[i]!), `weight ${i}`).toBeLessThan(0.3));
  });

  it("drops a feature with a negative weight and refits the rest (weights >= 0)", () => {
    const hits = drawn(-1, [2, 0, -2, 0, 1], 20_000, 11);
    expect(fitLogistic(hits, ALL).weights[2]).toBeLessThan(-1);
    const m = fitNonNegative(hits, ALL);
    expect(m.weights[2]).toBe(0);
    expect(m.weights.every((w) => w >= 0)).toBe(true);
    expect(m.weights[0]).toBeGreaterThan(1.5);
  });

  it("scores a fitted model better than a wrong one by Brier score and calibration error", () => {
    const hits = drawn(-2, [3, 1, 0, 0, 2], 5_000, 3);
    const fitted = fitNonNegative(hits, ALL);
    const wrong = { intercept: 2, weights: [0, 0, 0, 0, 0] };
    // one hit per "case", so the running cap never binds
    const asCases = hits.map((h) => [h]);
    expect(brierScore(asCases, fitted)).toBeLessThan(brierScore(asCases, wrong) - 0.05);
    const p = hits.map((h) => 1 / (1 + Math.exp(-(fitted.intercept + h.x.reduce((s, v, i) => s + v * fitted.weights[i]!, 0)))));
    expect(calibrationStats(p, hits.map((h) => h.y)).ece).toBeLessThan(0.03);
  });
});
