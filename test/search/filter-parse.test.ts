// The filter parser alone (search/filter/parse.ts): the tree it builds from MongoDB-style JSON,
// dates normalised to the stored form, and the limits that keep a filter's SQL bounded, each
// refusal naming its path.
import { describe, expect, it } from "vitest";
import { FilterInvalid, MAX_CONDITIONS, MAX_IN_VALUES, MAX_NESTING, parseFilter } from "../../src/search/filter/parse.js";
import { MAX_FACETS, parseFacets, facetAnswer } from "../../src/search/filter/facets.js";

const issuesOf = (f: unknown) => {
  try {
    parseFilter(f);
  } catch (err) {
    if (err instanceof FilterInvalid) return err.issues;
    throw err;
  }
  return [];
};

describe("filter parser", () => {
  it("builds the tree: bare values, several operators, combinators, nested keys", () => {
    expect(parseFilter({})).toEqual({ op: "and", nodes: [] });
    expect(parseFilter({ "metadata.product": "cli" })).toEqual({ op: "cmp", field: { kind: "metadata", path: ["product"] }, cmp: "eq", value: "cli" });
    expect(parseFilter({ "metadata.a.b": { $gte: 1, $lt: 5 } })).toEqual({
      op: "and",
      nodes: [
        { op: "cmp", field: { kind: "metadata", path: ["a", "b"] }, cmp: "gte", value: 1 },
        { op: "cmp", field: { kind: "metadata", path: ["a", "b"] }, cmp: "lt", value: 5 },
      ],
    });
    expect(parseFilter({ $not: { file_type: { $nin: ["pdf"] } } })).toEqual({
      op: "not",
      node: { op: "in", field: { kind: "column", name: "file_type" }, values: ["pdf"], negate: true },
    });
    expect(parseFilter({ $or: [{ "metadata.x": { $exists: false } }, { document_id: "doc_1" }] }).op).toBe("or");
  });

  it("normalises dates to the stored ISO form and refuses what is not one", () => {
    expect(parseFilter({ created_at: { $gte: "2026-01-31" } })).toMatchObject({ value: "2026-01-31T00:00:00.000Z" });
    expect(parseFilter({ updated_at: "2026-01-31T12:00:00+02:00" })).toMatchObject({ value: "2026-01-31T10:00:00.000Z" });
    for (const bad of ["yesterday", "2026-13-45", "31/01/2026", 20260131]) {
      expect(issuesOf({ created_at: { $lt: bad } })[0]!.path).toEqual(["created_at", "$lt"]);
    }
  });

  it("refuses values of the wrong kind, naming each bad part", () => {
    const issues = issuesOf({ $and: [{ document_id: 5 }, { "metadata.x": { $in: "a" } }, { "metadata.y": { $gt: false } }, { "metadata.z": { a: 1 } }] });
    expect(issues.map((i) => i.path)).toEqual([
      ["$and", 0, "document_id"],
      ["$and", 1, "metadata.x", "$in"],
      ["$and", 2, "metadata.y", "$gt"],
      ["$and", 3, "metadata.z", "a"],
    ]);
    expect(issuesOf({ "metadata.x": Number.NaN })[0]!.msg).toMatch(/finite/);
    expect(issuesOf({ 'metadata.a"b': 1 })[0]!.msg).toMatch(/quotes/);
    expect(issuesOf([{ a: 1 }])[0]!.path).toEqual([]);
  });

  it("bounds a filter's size: conditions, nesting and $in values", () => {
    const many = Object.fromEntries(Array.from({ length: MAX_CONDITIONS + 1 }, (_, i) => [`metadata.k${i}`, i]));
    expect(issuesOf(many)[0]!.msg).toMatch(new RegExp(`at most ${MAX_CONDITIONS} conditions`));
    let deep: Record<string, unknown> = { "metadata.x": 1 };
    for (let i = 0; i <= MAX_NESTING; i++) deep = { $not: deep };
    expect(issuesOf(deep)[0]!.msg).toMatch(/nest at most/);
    expect(issuesOf({ "metadata.x": { $in: Array.from({ length: MAX_IN_VALUES + 1 }, (_, i) => i) } })[0]!.path).toEqual(["metadata.x", "$in"]);
  });
});

describe("facet fields", () => {
  it("reads field names once each and refuses unknown ones by index", () => {
    expect(parseFacets(["file_type", "metadata.product", "file_type"]).map((f) => f.name)).toEqual(["file_type", "metadata.product"]);
    expect(() => parseFacets(["file_type", "colour"])).toThrow(FilterInvalid);
    expect(() => parseFacets(Array.from({ length: MAX_FACETS + 1 }, (_, i) => `metadata.k${i}`))).toThrow(/at most/);
  });

  it("answers values as text keys, a string and a number of one text added up, the most frequent kept", () => {
    const fields = parseFacets(["metadata.price", "metadata.flag"]);
    const answer = facetAnswer(fields, [
      [
        { value: 10, count: 2 },
        { value: "10", count: 1 },
        { value: 5, count: 3 },
        { value: "a", count: 3 },
      ],
      [{ value: true, count: 4 }],
    ]);
    expect(answer).toEqual({ "metadata.price": { "10": 3, "5": 3, a: 3 }, "metadata.flag": { true: 4 } });
    const capped = facetAnswer(parseFacets(["metadata.n"]), [Array.from({ length: 150 }, (_, i) => ({ value: `v${i}`, count: i }))]);
    expect(Object.keys(capped["metadata.n"]!).length).toBe(100);
    expect(Math.min(...Object.values(capped["metadata.n"]!))).toBe(50);
  });
});
