// The embedded term dictionary (search/lexical/term-dictionary.ts): a band's rules (prefix,
// lengths, the most frequent first, ties by term) and its ranking kept per index only until the
// index changes, so typo and prefix candidates never come from an older dictionary.
import { describe, expect, it } from "vitest";
import { analyzeChunk, DEFAULT_ANALYZER } from "../../../src/search/lexical/analyze.js";
import { indexBand } from "../../../src/search/lexical/term-dictionary.js";
import { memoryIndex } from "./lexical-helpers.js";

const band = (prefix: string, minLength: number, maxLength: number, limit = 100) => ({ prefix, minLength, maxLength, limit });

describe("term bands of an in-memory index", () => {
  it("keeps the prefix's terms within the lengths, the most frequent first, ties by term, up to the limit", () => {
    const { index } = memoryIndex([
      [1, "", "stand stand? stack store"],
      [2, "", "stack store sum"],
      [3, "", "store storm"],
      [4, "", "table"],
    ]);
    expect(indexBand(index, band("st", 4, 5))).toEqual([
      { term: "store", df: 3 },
      { term: "stack", df: 2 },
      { term: "stand", df: 1 },
      { term: "storm", df: 1 },
    ]);
    expect(indexBand(index, band("st", 5, 5, 2)).map((t) => t.term)).toEqual(["store", "stack"]);
    expect(indexBand(index, band("sto", 1, 10)).map((t) => t.term)).toEqual(["store", "storm"]);
    expect(indexBand(index, band("x", 1, 10))).toEqual([]);
  });

  it("answers from the index as it is now after chunks are added and removed", () => {
    const { index } = memoryIndex([
      [1, "", "store"],
      [2, "", "storm"],
    ]);
    expect(indexBand(index, band("s", 1, 10)).map((t) => [t.term, t.df])).toEqual([["store", 1], ["storm", 1]]);
    const added = analyzeChunk({ title: "", headings: "", body: "storm stump" }, DEFAULT_ANALYZER);
    index.add(3, 0, added);
    expect(indexBand(index, band("s", 1, 10)).map((t) => [t.term, t.df])).toEqual([["storm", 2], ["store", 1], ["stump", 1]]);
    index.remove(3, added.terms);
    index.remove(1, ["store"]);
    expect(indexBand(index, band("s", 1, 10)).map((t) => [t.term, t.df])).toEqual([["storm", 1]]);
    index.merge();
    expect(indexBand(index, band("s", 1, 10)).map((t) => [t.term, t.df])).toEqual([["storm", 1]]);
  });
});
