// The console's filter builder, synonym boxes and language names as data (console/src/search-filter.ts,
// console/src/synonym-text.ts, console/src/languages.ts): every filter the builder makes is one the API's parser accepts,
// and it selects the documents the rows describe, judged by the filter tests' brute-force
// reference (test/helpers/filter-reference.ts) rather than by the shape of the JSON.
import { describe, expect, it } from "vitest";
import { parseFilter } from "../../src/search/filter/parse.js";
import { holds, type FilterDoc } from "../helpers/filter-reference.js";
import { facetClause, requestFilter, rowClause, rowProblem, rowsFilter, toggleFacet, type FilterRow } from "../../console/src/search-filter.js";
import { AUTO, LANGUAGES } from "../../src/search/lexical/languages.js";
import { LANGUAGE_CHOICES, languageLabel, reindexText, withNames } from "../../console/src/languages.js";
import { addSynonym, badMappingLine, groupsText, mappingsText, parseSynonyms } from "../../console/src/synonym-text.js";

const doc = (id: string, metadata: Record<string, unknown>, over: Partial<FilterDoc> = {}): FilterDoc => ({
  id,
  data_source_id: "src-a",
  kind: "markdown",
  created_at: "2026-03-10T00:00:00.000Z",
  updated_at: "2026-03-10T00:00:00.000Z",
  metadata,
  ...over,
});

const DOCS: FilterDoc[] = [
  doc("d1", { product: "cli", price: 12.5, in_stock: true }),
  doc("d2", { product: "api", price: "12.5", in_stock: "true" }),
  doc("d3", { product: "web", price: 40, specs: { size: 4 } }, { data_source_id: "src-b", kind: "pdf", created_at: "2026-01-02T00:00:00.000Z" }),
  doc("d4", { product: "12" }),
  doc("d5", {}, { data_source_id: "src-b" }),
];

const row = (field: FilterRow["field"], key: string, op: FilterRow["op"], value: string): FilterRow => ({ field, key, op, value });

/** ids of the documents a filter keeps, after the API's parser has accepted it */
function kept(filter: Record<string, unknown> | undefined): string[] {
  if (!filter) return DOCS.map((d) => d.id);
  expect(() => parseFilter(filter)).not.toThrow();
  return DOCS.filter((d) => holds(filter, d)).map((d) => d.id);
}

describe("console filter builder", () => {
  it("equality on metadata matches a value both as text and as the typed value; quotes ask for the text", () => {
    expect(kept(rowClause(row("metadata", "price", "$eq", "12.5")))).toEqual(["d1", "d2"]);
    expect(kept(rowClause(row("metadata", "price", "$eq", '"12.5"')))).toEqual(["d2"]);
    expect(kept(rowClause(row("metadata", "in_stock", "$eq", "true")))).toEqual(["d1", "d2"]);
    expect(kept(rowClause(row("metadata", "product", "$eq", "cli")))).toEqual(["d1"]);
    expect(rowClause(row("metadata", "product", "$eq", "cli"))).toEqual({ "metadata.product": "cli" });
    expect(kept(rowClause(row("metadata", "price", "$ne", "12.5")))).toEqual(["d3", "d4", "d5"]);
  });

  it("lists, ranges, existence and the built-in fields", () => {
    expect(kept(rowClause(row("metadata", "product", "$in", "cli, web")))).toEqual(["d1", "d3"]);
    expect(kept(rowClause(row("metadata", "product", "$nin", "cli, web , ")))).toEqual(["d2", "d4", "d5"]);
    expect(kept(rowClause(row("metadata", "price", "$gte", "12.5")))).toEqual(["d1", "d3"]);
    expect(kept(rowClause(row("metadata", "specs.size", "$lt", "5")))).toEqual(["d3"]);
    expect(kept(rowClause(row("metadata", "specs", "$exists", "false")))).toEqual(["d1", "d2", "d4", "d5"]);
    expect(kept(rowClause(row("data_source_id", "", "$eq", "src-b")))).toEqual(["d3", "d5"]);
    expect(kept(rowClause(row("file_type", "", "$eq", "pdf")))).toEqual(["d3"]);
    expect(kept(rowClause(row("created_at", "", "$lt", "2026-02-01")))).toEqual(["d3"]);
    // ids and file types are text even when they look like numbers
    expect(rowClause(row("document_id", "", "$eq", "12"))).toEqual({ document_id: "12" });
  });

  it("joins rows with AND, OR or NOT, and checked facets always narrow", () => {
    const rows = [row("metadata", "product", "$eq", "cli"), row("data_source_id", "", "$eq", "src-b")];
    expect(kept(rowsFilter(rows, "and"))).toEqual([]);
    expect(kept(rowsFilter(rows, "or"))).toEqual(["d1", "d3", "d5"]);
    expect(kept(rowsFilter(rows, "not"))).toEqual(["d2", "d4"]);
    expect(rowsFilter([], "and")).toBeUndefined();
    // a facet check under an OR builder still narrows: (cli OR src-b) AND product in {web, 12}
    let checks = toggleFacet({}, "metadata.product", "web", true);
    checks = toggleFacet(checks, "metadata.product", "12", true);
    expect(kept(requestFilter(rows, "or", checks))).toEqual(["d3"]);
    expect(kept(facetClause("metadata.product", ["12"]))).toEqual(["d4"]);
    expect(toggleFacet(checks, "metadata.product", "web", false)).toEqual({ "metadata.product": ["12"] });
    expect(toggleFacet({ "metadata.product": ["12"] }, "metadata.product", "12", false)).toEqual({});
    expect(requestFilter([], "and", {})).toBeUndefined();
  });

  it("names what a row is missing", () => {
    expect(rowProblem(row("metadata", " ", "$eq", "x"))).toMatch(/metadata key/);
    expect(rowProblem(row("file_type", "", "$eq", " "))).toMatch(/value/);
    expect(rowProblem(row("file_type", "", "$in", " , "))).toMatch(/at least one/);
    expect(rowProblem(row("metadata", "specs", "$exists", ""))).toBeNull();
  });
});

describe("console synonym boxes", () => {
  it("reads and writes the lines of groups and one-way mappings", () => {
    const set = parseSynonyms("k8s, kubernetes\n\n auto-increment , serial ", "pg => postgresql, postgres\npg => psql\n");
    expect(set).toEqual({ groups: [["k8s", "kubernetes"], ["auto-increment", "serial"]], mappings: { pg: ["postgresql", "postgres", "psql"] } });
    expect(parseSynonyms(groupsText(set), mappingsText(set))).toEqual(set);
    expect(badMappingLine("pg => postgresql\nk8s kubernetes")).toBe(2);
    expect(badMappingLine("pg => postgresql\n")).toBeNull();
  });

  it("adds a query's alternatives one way or into the group that holds it", () => {
    const set = { groups: [["yaw", "azimuth"]], mappings: { pg: ["postgresql"] } };
    expect(addSynonym(set, "pg", ["postgres", "PG"], false)).toEqual({ groups: set.groups, mappings: { pg: ["postgresql", "postgres"] } });
    expect(addSynonym(set, "Yaw", ["azimuth", "heading"], true).groups).toEqual([["yaw", "azimuth", "heading"]]);
    expect(addSynonym(set, "yaw brake", ["nacelle brake"], true).groups).toEqual([["yaw", "azimuth"], ["yaw brake", "nacelle brake"]]);
  });
});

describe("console languages", () => {
  it("offers exactly the server's languages and auto, each named with its code", () => {
    expect([...LANGUAGE_CHOICES].sort()).toEqual([...LANGUAGES, AUTO].sort());
    expect(LANGUAGE_CHOICES[0]).toBe("en");
    for (const code of LANGUAGE_CHOICES) expect(languageLabel(code)).toMatch(new RegExp(`^[A-Z][a-z ]+ \\(${code}\\)$`));
    expect(languageLabel("de")).toBe("German (de)");
    expect(languageLabel("auto")).toBe("Detect per document (auto)");
  });

  it("says what a save re-indexes and names the ids of a conflict", () => {
    expect(reindexText({ documents: 1 })).toBe("re-indexing 1 document");
    expect(reindexText({ documents: 12 })).toBe("re-indexing 12 documents");
    expect(reindexText({ documents: 0 })).toBeNull();
    expect(reindexText(undefined)).toBeNull();
    const detail = "Data source 'ds1' is also in collection 'c2', whose language is 'de'; a data source is indexed in one language.";
    expect(withNames(detail, new Map([["ds1", "Uploads"], ["c2", "Teile"]]))).toBe(
      "Data source “Uploads” is also in collection “Teile”, whose language is 'de'; a data source is indexed in one language.",
    );
  });
});
