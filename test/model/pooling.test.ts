// Pooling and its gradient: the analytic backward pass agrees with finite differences, so the
// trainer follows the loss it reports.
import { describe, expect, it } from "vitest";
import { pool, poolBackward, type PoolGradients, type PoolParams, type Shape, type TokenBag } from "../../src/model/pooling.js";
import { addIdentity, dotIdentity, tokenHash } from "../../src/model/identity.js";
import { Random } from "../../src/model/random.js";

const shape: Shape = { dim: 8, identityDim: 32 };

function setup(): { p: PoolParams & { table: Float32Array }; bag: TokenBag } {
  const rnd = new Random(7);
  const table = Float32Array.from({ length: 3 * shape.dim }, () => rnd.normal() * 0.3);
  const p = { table, weights: Float32Array.from([1.5, 0.7, 2.0]), oovWeight: 3, gamma: 0.8 };
  const bag: TokenBag = { rows: Int32Array.from([0, 2, -1]), hashes: Uint32Array.from([11, 22, 33]), counts: Uint16Array.from([1, 3, 2]), length: 3 };
  return { p, bag };
}

/** loss = c . f for a fixed direction c */
function loss(p: PoolParams, bag: TokenBag, c: Float32Array): number {
  const f = new Float32Array(shape.dim + shape.identityDim);
  pool(shape, p, bag, f);
  return f.reduce((s, x, i) => s + x * c[i]!, 0);
}

describe("pooling", () => {
  it("returns a unit vector and its norm", () => {
    const { p, bag } = setup();
    const f = new Float32Array(shape.dim + shape.identityDim);
    expect(pool(shape, p, bag, f)).toBeGreaterThan(0);
    expect(Math.hypot(...f)).toBeCloseTo(1, 6);
  });

  it("identity vectors are unit length, deterministic and differ between tokens", () => {
    const a = new Float32Array(64);
    const b = new Float32Array(64);
    addIdentity(a, 0, 64, tokenHash("retry", 1), 1);
    addIdentity(b, 0, 64, tokenHash("retry", 1), 1);
    expect(Math.hypot(...a)).toBeCloseTo(1, 6);
    expect([...a]).toEqual([...b]);
    expect(dotIdentity(a, 0, 64, tokenHash("retry", 1))).toBeCloseTo(1, 6);
    expect(Math.abs(dotIdentity(a, 0, 64, tokenHash("timeout", 1)))).toBeLessThan(0.5);
  });

  it("backward matches finite differences for rows, weights and gamma", () => {
    const { p, bag } = setup();
    const rnd = new Random(3);
    const c = Float32Array.from({ length: shape.dim + shape.identityDim }, () => rnd.normal());
    const f = new Float32Array(shape.dim + shape.identityDim);
    const norm = pool(shape, p, bag, f);
    const grad: PoolGradients = { table: new Float32Array(p.table.length), touched: new Set(), logWeights: new Float32Array(3), logOov: 0, logGamma: 0 };
    poolBackward(shape, p, bag, f, norm, c, grad, new Float32Array(f.length));
    const h = 1e-3;
    const numeric = (set: (d: number) => void) => {
      set(h);
      const up = loss(p, bag, c);
      set(-2 * h);
      const down = loss(p, bag, c);
      set(h);
      return (up - down) / (2 * h);
    };
    for (const i of [0, 5, 2 * shape.dim + 3]) expect(grad.table[i]).toBeCloseTo(numeric((d) => (p.table[i] += d)), 3);
    expect(grad.table[shape.dim + 1]).toBe(0); // row 1 is not in the bag
    expect([...grad.touched].sort()).toEqual([0, 2]);
    for (const r of [0, 2]) expect(grad.logWeights[r]).toBeCloseTo(numeric((d) => (p.weights[r] *= Math.exp(d))), 3);
    expect(grad.logGamma).toBeCloseTo(numeric((d) => (p.gamma *= Math.exp(d))), 3);
    expect(grad.logOov).toBeCloseTo(numeric((d) => (p.oovWeight *= Math.exp(d))), 3);
  });
});
