// Phrase scoring shared by both stores (search/lexical/phrases.ts): BM25 of a phrase's occurrences
// with the field weights and the idf of its rarest word, added to the candidates that hold it.
import { describe, expect, it } from "vitest";
import { DEFAULT_ANALYZER, type ChunkFields } from "../../../src/search/lexical/analyze.js";
import { idf, tfFactor } from "../../../src/search/lexical/bm25.js";
import { boostPhrases, countPhrase, type LexicalStatistics } from "../../../src/search/lexical/phrases.js";

const stats = (dfs: Record<string, number>): LexicalStatistics => ({ docCount: 10, avgdl: 6, df: (t) => dfs[t] ?? 0 });
const W = { title: 2, headings: 1.5, body: 1 };
const fields = (title: string, body: string): ChunkFields => ({ title, headings: "", body });

describe("countPhrase", () => {
  it("counts consecutive occurrences, overlapping ones included", () => {
    expect(countPhrase(["a", "b", "a", "b", "a"], ["a", "b"])).toBe(2);
    expect(countPhrase(["a", "a", "a"], ["a", "a"])).toBe(2);
    expect(countPhrase(["a", "c", "b"], ["a", "b"])).toBe(0);
  });
});

describe("boostPhrases", () => {
  it("adds idf(rarest word) x BM25's tf factor of the weighted occurrences, then re-sorts", () => {
    const text = new Map([
      ["x", { fields: fields("Connection reset", "the connection reset twice: connection reset"), length: 9 }],
      ["y", { fields: fields("Other", "reset the connection"), length: 4 }],
    ]);
    const hits = [
      { id: "y", score: 2 },
      { id: "x", score: 1 },
    ];
    const out = boostPhrases(hits, hits, (h) => text.get(h.id), [["connect", "reset"]], stats({ connect: 3, reset: 5 }), W, DEFAULT_ANALYZER);
    // x: once in the title (weight 2), twice in the body (weight 1); y: the words, not the phrase
    const expected = 1 + idf(10, 3) * tfFactor(1 * 2 + 2 * 1, 9, 6);
    expect(out.map((h) => h.id)).toEqual(["x", "y"]);
    expect(out[0]!.score).toBe(expected);
    expect(out[1]!.score).toBe(2);
  });

  it("leaves hits without text, non-candidates and phrases with an absent word as they are; ties keep their order", () => {
    const hits = [
      { id: "a", score: 1 },
      { id: "b", score: 1 },
      { id: "c", score: 1 },
    ];
    const text = { fields: fields("", "connection reset"), length: 2 };
    const out = boostPhrases(hits, [hits[1]!, hits[2]!], (h) => (h.id === "c" ? undefined : text), [["connect", "reset"], ["connect", "absent"]], stats({ connect: 2, reset: 2 }), W, DEFAULT_ANALYZER);
    expect(out.map((h) => h.id)).toEqual(["b", "a", "c"]);
    expect(out.map((h) => h.score)).toEqual([1 + idf(10, 2) * tfFactor(1, 2, 6), 1, 1]);
  });
});
