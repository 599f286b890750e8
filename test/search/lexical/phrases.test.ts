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

describe("phrase checks that stem only the words that may be phrase terms", () => {
  // the English analyzer says its terms keep their word's first character (keepsFirstCharacter),
  // so boostPhrases stems only words that start as a phrase term does
  const words = ["relational", "sensibility", "happy", "ies", "yes", "agreed", "generalization", "connection", "connected", "connects", "reset", "resetting", "t", "cell", "cells", "t-cells", "COVID-19", "naïve", "Zürich", "日本語", "a", "b", "by", "say", "spying"];

  it("the English analyzer's term of a word starts with the word's first character", () => {
    for (const w of words) for (const norm of w.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)) expect(DEFAULT_ANALYZER.term(norm)[0], norm).toBe(norm[0]);
  });

  it("scores every candidate as analysing every word does", () => {
    const everyWord = { ...DEFAULT_ANALYZER, keepsFirstCharacter: false };
    let seed = 7;
    const pick = () => words[(seed = (seed * 48271) % 2147483647) % words.length]!;
    const sentence = (n: number) => Array.from({ length: n }, pick).join(" ");
    const text = new Map(Array.from({ length: 40 }, (_, i) => [String(i), { fields: { title: sentence(3), headings: sentence(2), body: sentence(30) }, length: 35 }]));
    const phrases = [["connect", "reset"], ["t", "cell"], ["covid", "19"], ["happi", "relat"]];
    const run = (analyzer: typeof DEFAULT_ANALYZER) => {
      const hits = [...text.keys()].map((id) => ({ id, score: 1 }));
      return boostPhrases(hits, hits, (h) => text.get(h.id), phrases, stats({ connect: 3, reset: 5, t: 4, cell: 4, covid: 2, "19": 2, happi: 3, relat: 3 }), W, analyzer);
    };
    const filtered = run(DEFAULT_ANALYZER);
    expect(filtered.some((h) => h.score > 1)).toBe(true);
    expect(filtered).toEqual(run(everyWord));
  });
});
