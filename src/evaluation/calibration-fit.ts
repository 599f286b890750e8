// Fitting a calibration (calibration.ts's Platt models) from labelled hits, and measuring one:
// used by src/evaluation/labs/fit-calibration.ts for the shipped SciFact fit and by per-collection tuning
// (tuning-calibration.ts) for a fit on a collection's own benchmark suite. Pure.
import type { PlattModel } from "../search/calibration.js";

/** One labelled hit: its features (calibration.ts features() order) and whether it is relevant. */
export interface LabelledHit {
  x: readonly number[];
  y: number;
}

// --- logistic regression (Newton / IRLS with L2 on the weights) -------------------------------------
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    const d = m[c]![c]! || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / d;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / (row[i]! || 1e-12));
}

export function fitLogistic(rows: readonly LabelledHit[], use: boolean[], lambda = 1e-2): PlattModel {
  const idx = use.map((u, i) => (u ? i : -1)).filter((i) => i >= 0);
  const d = idx.length + 1;
  let beta = new Array<number>(d).fill(0);
  for (let iter = 0; iter < 50; iter++) {
    const g = new Array<number>(d).fill(0);
    const h = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (const r of rows) {
      const z = [1, ...idx.map((i) => r.x[i]!)];
      const p = 1 / (1 + Math.exp(-z.reduce((s, v, k) => s + v * beta[k]!, 0)));
      const w = Math.max(p * (1 - p), 1e-9);
      for (let a = 0; a < d; a++) {
        g[a]! += (r.y - p) * z[a]!;
        for (let b = 0; b < d; b++) h[a]![b]! += w * z[a]! * z[b]!;
      }
    }
    for (let a = 1; a < d; a++) {
      g[a]! -= lambda * beta[a]!;
      h[a]![a]! += lambda;
    }
    const step = solve(h, g);
    beta = beta.map((b, k) => b + step[k]!);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  // one weight per entry of `use`: FEATURES for a collection's own model, MODEL_FEATURES for the shipped one
  const weights = use.map((_, i) => {
    const k = idx.indexOf(i);
    return k >= 0 ? beta[k + 1]! : 0;
  });
  return { intercept: beta[0]!, weights };
}

/**
 * A fit whose weights are all >= 0: relevance never falls as a signal gets stronger (a negative
 * weight is a correlation artefact between features, and it would reward weak matches, e.g. raise
 * a question whose cosines are all low). The most negative feature is dropped and the rest refitted.
 */
export function fitNonNegative(rows: readonly LabelledHit[], use: boolean[]): PlattModel {
  const u = [...use];
  for (;;) {
    const m = fitLogistic(rows, u);
    let worst = -1;
    m.weights.forEach((w, i) => {
      if (u[i] && w < 0 && (worst < 0 || w < m.weights[worst]!)) worst = i;
    });
    if (worst < 0) return m;
    u[worst] = false;
  }
}

// --- metrics --------------------------------------------------------------------------------------
export function auc(scores: number[], labels: number[]): number {
  const order = scores.map((s, i) => ({ s, y: labels[i]! })).sort((a, b) => a.s - b.s);
  let rankSum = 0;
  let pos = 0;
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j < order.length && order[j]!.s === order[i]!.s) j++;
    const avg = (i + j + 1) / 2; // 1-based average rank of the tie group
    for (let k = i; k < j; k++) if (order[k]!.y === 1) (rankSum += avg), pos++;
    i = j;
  }
  const neg = order.length - pos;
  return pos === 0 || neg === 0 ? NaN : (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}

export function calibrationStats(p: number[], y: number[]) {
  const eps = 1e-12;
  let ll = 0;
  let brier = 0;
  for (let i = 0; i < p.length; i++) {
    ll -= y[i]! * Math.log(p[i]! + eps) + (1 - y[i]!) * Math.log(1 - p[i]! + eps);
    brier += (p[i]! - y[i]!) ** 2;
  }
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, y: 0 }));
  p.forEach((v, i) => {
    const b = bins[Math.min(9, Math.floor(v * 10))]!;
    b.n++;
    b.p += v;
    b.y += y[i]!;
  });
  const ece = bins.reduce((s, b) => s + (b.n ? Math.abs(b.p / b.n - b.y / b.n) * b.n : 0), 0) / p.length;
  return { logloss: ll / p.length, brier: brier / p.length, ece, auc: auc(p, y), bins };
}
