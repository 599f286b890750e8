// The PCA behind the teacher's rows: eigenpairs of symmetric matrices, and projection onto them.
import { describe, expect, it } from "vitest";
import { symmetricEigen } from "../../src/model/eigen.js";
import { pcaRows } from "../../src/model/teacher.js";
import { Random } from "../../src/model/random.js";

describe("symmetricEigen", () => {
  it("finds A v = lambda v with unit, orthogonal vectors, largest first", () => {
    const n = 12;
    const rnd = new Random(4);
    const b = Float64Array.from({ length: n * n }, () => rnd.normal());
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) a[i * n + j] += b[i * n + k]! * b[j * n + k]!;
    const { values, vectors } = symmetricEigen(a, n);
    for (let k = 0; k < n; k++) {
      if (k > 0) expect(values[k]!).toBeLessThanOrEqual(values[k - 1]!);
      for (let i = 0; i < n; i++) {
        let av = 0;
        for (let j = 0; j < n; j++) av += a[i * n + j]! * vectors[k * n + j]!;
        expect(av).toBeCloseTo(values[k]! * vectors[k * n + i]!, 8);
      }
      for (let m = 0; m <= k; m++) {
        let d = 0;
        for (let j = 0; j < n; j++) d += vectors[k * n + j]! * vectors[m * n + j]!;
        expect(d).toBeCloseTo(m === k ? 1 : 0, 8);
      }
    }
  });
});

describe("pcaRows", () => {
  it("keeps the directions rows vary along and drops their mean", () => {
    const rnd = new Random(9);
    // 200 points in 3-d that vary along (1,1,0) a lot, (0,0,1) a little, around (5,5,5)
    const rows = new Float32Array(200 * 3);
    for (let i = 0; i < 200; i++) {
      const a = rnd.normal() * 3;
      const b = rnd.normal() * 0.1;
      rows.set([5 + a, 5 + a, 5 + b], i * 3);
    }
    const out = pcaRows(rows, 200, 3, 1);
    for (let i = 0; i < 200; i++) expect(Math.abs(out[i]!)).toBeCloseTo(Math.abs((rows[i * 3]! - 5 + rows[i * 3 + 1]! - 5) / Math.SQRT2), 0);
    expect(out.reduce((s, x) => s + x, 0) / 200).toBeCloseTo(0, 5);
  });
});
