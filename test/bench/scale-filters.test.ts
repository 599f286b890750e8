// The filter bench's metadata (src/evaluation/bench/scale/filters.ts): dealt over documents of
// skewed sizes, each filter selects its target share of the chunks, and the predicate the bench's
// exact rankings use agrees with the filter's JSON as the API reads it (the filter tests' reference).
import { describe, expect, it } from "vitest";
import { BENCH_FILTERS, dealMetadata, dealShares, filterShares } from "../../src/evaluation/bench/scale/filters.js";
import { parseFilter } from "../../src/search/filter/parse.js";
import { holds } from "../helpers/filter-reference.js";
import { prng } from "../../src/evaluation/bench/scale/rng.js";

/** document sizes like the scale corpus's: mostly 1-3 chunks, some long ones */
function sizes(n: number, seed: number): number[] {
  const rnd = prng(seed);
  return Array.from({ length: n }, () => (rnd() < 0.05 ? 20 + Math.floor(rnd() * 180) : 1 + Math.floor(rnd() * 3)));
}

describe("filter bench metadata", () => {
  it("each filter selects its target share of the chunks, within a tenth of it", () => {
    const s = sizes(20_000, 7);
    const docs = dealMetadata(s).map((metadata, i) => ({ metadata, count: s[i] }));
    const shares = filterShares(docs);
    BENCH_FILTERS.forEach((f, i) => expect(Math.abs(shares[i] - f.target)).toBeLessThan(f.target * 0.1));
  });

  it("deals by size, not by count, and spreads items too big for any value", () => {
    const out = dealShares([100, 100, 1, 1, 1, 1], { a: 0.5, b: 0.25, c: 0.25 });
    const held = (v: string) => out.reduce((n, x, i) => n + (x === v ? [100, 100, 1, 1, 1, 1][i] : 0), 0);
    expect(held("a")).toBeGreaterThanOrEqual(100);
    expect(out[0]).not.toBe(out[1]); // the two big ones do not pile onto one value
  });

  it("the predicates agree with the filters' JSON as the API reads it", () => {
    const s = sizes(2_000, 3);
    for (const f of BENCH_FILTERS) {
      expect(() => parseFilter(f.json)).not.toThrow();
      for (const m of dealMetadata(s)) {
        const doc = { id: "d", data_source_id: "s", kind: "text", created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z", metadata: m };
        expect(f.holds(m)).toBe(holds(f.json, doc));
      }
    }
  });
});
