// The in-memory filter columns' own rules, apart from the stores (whose randomised tests hold the
// whole evaluation to a brute-force reference): strings order as UTF-8 bytes do (SQLite's BINARY),
// metadata paths walk objects only, and a facet's cap cuts where the SQL ORDER BY does.
import { describe, expect, it } from "vitest";
import { ValueColumn, compareText, metadataValue } from "../../src/search/filter/columns.js";
import { evaluateFilter } from "../../src/search/filter/evaluate.js";
import { tallyFacet } from "../../src/search/filter/facet-tally.js";
import { parseFilter } from "../../src/search/filter/parse.js";

describe("compareText", () => {
  it("orders as UTF-8 bytes, not UTF-16 units", () => {
    const words = ["a", "B", "é", "\uffff", "😀", "\ue000", "ab", "", "z\u0000"];
    const bytes = [...words].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect([...words].sort(compareText)).toEqual(bytes);
    // the case JavaScript's own order gets wrong: an astral character above U+FFFF
    expect(compareText("😀", "\uffff")).toBeGreaterThan(0);
    expect("😀" < "\uffff").toBe(true);
  });
});

describe("metadataValue", () => {
  it("walks own keys of objects only", () => {
    const m = JSON.parse('{"a": {"b": [1, 2], "c": null}, "__proto__": 5, "list": [{"x": 1}]}');
    expect(metadataValue(m, ["a", "b"])).toEqual([1, 2]);
    expect(metadataValue(m, ["a", "c"])).toBeNull();
    expect(metadataValue(m, ["a", "d"])).toBeUndefined();
    expect(metadataValue(m, ["__proto__"])).toBe(5);
    expect(metadataValue(m, ["list", "0"])).toBeUndefined();
    expect(metadataValue(m, ["toString"])).toBeUndefined();
    expect(metadataValue([1], ["0"])).toBeUndefined();
  });
});

describe("evaluateFilter over columns", () => {
  it("keeps types apart and negates absent fields in", () => {
    const values: unknown[] = ["10", 10, true, null, undefined, ["x"], "9", 9.5];
    const col = new ValueColumn();
    values.forEach((v, d) => col.set(d, v));
    const cols = { size: values.length, column: () => col };
    const run = (json: unknown) => [...evaluateFilter(parseFilter({ "metadata.v": json }), cols)].flatMap((x, d) => (x ? [d] : []));
    expect(run("10")).toEqual([0]);
    expect(run(10)).toEqual([1]);
    expect(run({ $gt: 9 })).toEqual([1, 7]);
    expect(run({ $gt: "9" })).toEqual([]); // "10" < "9" as text
    expect(run({ $lt: "9" })).toEqual([0]);
    expect(run({ $ne: 10 })).toEqual([0, 2, 3, 4, 5, 6, 7]);
    expect(run({ $in: [true, "9", 9.5] })).toEqual([2, 6, 7]);
    expect(run({ $nin: [] })).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(run({ $exists: true })).toEqual([0, 1, 2, 3, 5, 6, 7]);
  });
});

describe("tallyFacet", () => {
  it("counts strings, numbers and booleans and cuts at the cap by count, then text, then type", () => {
    const col = new ValueColumn();
    const values: unknown[] = ["b", "b", 1, "1", true, "a", null, ["x"], undefined, 2.5, "a"];
    values.forEach((v, d) => col.set(d, v));
    const all = tallyFacet(col, values.keys(), 100);
    expect(all).toEqual([
      { value: "a", count: 2 },
      { value: "b", count: 2 },
      { value: 1, count: 1 }, // "1" as text: integer before text before true
      { value: "1", count: 1 },
      { value: true, count: 1 },
      { value: 2.5, count: 1 },
    ]);
    expect(tallyFacet(col, values.keys(), 3)).toEqual(all.slice(0, 3));
    expect(tallyFacet(col, [0, 5], 100)).toEqual([
      { value: "a", count: 1 },
      { value: "b", count: 1 },
    ]);
  });
});
