import { describe, expect, it } from "vitest";
import { isEmptyQuery, parseQuery, MAX_QUERY_TERMS } from "../../../src/search/lexical/parse-query.js";
import { memoryLexicalSearch } from "./lexical-helpers.js";

// The parsed query shown compactly: words, then phrases, each quoted, joined by OR (how every
// store treats them: words OR-ed, phrases as boosts).
function shown(query: string): string | null {
  const p = parseQuery(query);
  if (isEmptyQuery(p)) return null;
  return [...p.terms, ...p.phrases.map((x) => x.join(" "))].map((t) => `"${t}"`).join(" OR ");
}

// Ranked through the embedded store's lexical index (same analysis, BM25 and phrase boosts).
const search = memoryLexicalSearch([
  [1, "Errors", "The client failed with ERR_CONN_RESET after the proxy restarted."],
  [2, "Network", "Reset the connection: conn err handling is described here."],
  [3, "Running", "She runs every morning; running is healthy."],
  [4, "Café", "A café serves crème brûlée and coffee."],
  [5, "Machine learning", "Machine learning models learn from data."],
  [6, "Learning machines", "A learning machine is not the same as machine learning? data"],
  [7, "Release notes", "Version v2.3.1 fixes foo.bar() returning null."],
  [8, "Shakespeare", "To be, or not to be, that is the question."],
  [9, "Pets", "Cats and dogs living together."],
]);

describe("parseQuery as the stores see it", () => {
  it("quotes and ORs the terms of natural language, dropping stop words", () => {
    expect(shown("hello world")).toBe('"hello" OR "world"');
    expect(shown("What is the role of p53 in cancer?")).toBe('"role" OR "p53" OR "cancer"');
  });

  it("keeps stop words when the query has nothing else", () => {
    expect(shown("to be or not to be")).toBe('"to" OR "be" OR "or" OR "not"');
    expect(search("to be or not to be")).toContain(8);
  });

  it("adds user-quoted phrases as boost terms beside their words", () => {
    expect(shown('"machine learning" models')).toBe('"machine" OR "learning" OR "models" OR "machine learning"');
    expect(shown("“smart quoted phrase” here")).toBe('"smart" OR "quoted" OR "phrase" OR "here" OR "smart quoted phrase"');
  });

  it("ranks an exact phrase above the same words scattered", () => {
    const ranked = search('"machine learning"');
    expect(ranked[0]).toBe(5);
    expect(ranked).toContain(6);
  });

  it("splits code identifiers like FTS5 and boosts the identifier as a phrase", () => {
    expect(shown("ERR_CONN_RESET")).toBe('"err" OR "conn" OR "reset" OR "err conn reset"');
    expect(shown("foo.bar()")).toBe('"foo" OR "bar" OR "foo bar"');
    expect(shown("v2.3.1")).toBe('"v2" OR "3" OR "1" OR "v2 3 1"');
    expect(search("ERR_CONN_RESET")[0]).toBe(1);
    expect(search("v2.3.1")).toEqual([7]);
  });

  it("treats an unbalanced quote as plain text", () => {
    expect(shown('"unclosed phrase')).toBe('"unclosed" OR "phrase"');
    expect(shown('a "b c" "d')).toBe('"b" OR "c" OR "d" OR "b c"');
  });

  it("neutralises FTS5 operators and syntax characters", () => {
    expect(shown("cats NOT dogs")).toBe('"cats" OR "dogs"');
    expect(shown("title:cats AND -dogs*")).toBe('"title" OR "cats" OR "dogs" OR "title cats"');
    expect(shown("NEAR(cats dogs, 2)")).toBe('"near" OR "cats" OR "dogs" OR "2" OR "near cats"');
    expect(search("cats NOT dogs")).toEqual([9]);
  });

  it("folds case and diacritics; porter stemming still applies inside quotes", () => {
    expect(shown("CAFÉ Crème")).toBe('"cafe" OR "creme"');
    expect(search("cafe")).toEqual([4]);
    expect(search("run")).toEqual([3]);
  });

  it("returns null when nothing is searchable", () => {
    for (const q of ["", "   ", "!!! *** ???", "😀🔥👍", '""', "()", "-", "\u0301"]) expect(shown(q)).toBeNull();
  });

  it("caps very long queries", () => {
    const words = Array.from({ length: 500 }, (_, i) => `w${i}`).join(" ");
    expect(parseQuery(words).terms).toHaveLength(MAX_QUERY_TERMS);
    expect(() => search(words)).not.toThrow();
  });

  it("never makes the index throw, whatever the input (fuzz)", () => {
    const pieces = [
      '"', "'", "“", "”", "«", "»", "*", "-", "+", ":", "^", "(", ")", "{", "}", "[", "]", "\\", "/", ",", ".", ";",
      "AND", "OR", "NOT", "NEAR", "NEAR/3", "and", "or", "not", "near", "title:", "body:", "{title body}:", "^start",
      "ERR_CONN_RESET", "foo.bar()", "v2.3.1", "x=y&&z||w", "#hash", "@user", "$var", "%", "~", "`code`",
      "😀", "👨‍👩‍👧", "🇫🇷", "\u200d", "\u200b", "\u0301", "e\u0301", "\uD800", "\uDFFF", "\u0000", "\n", "\t", "\r\n",
      "日本語", "한국어", "नमस्ते", "مرحبا", "שלום", "Straße", "İ", "ǅ", "ﬁ", "x²", "½", "0", "123", "-1", "1e10",
      "the", "of", "a", "running", "café", "   ",
    ];
    // Deterministic PRNG (mulberry32) so a failure reproduces.
    let seed = 0x5eed;
    const rand = (): number => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const inputs: string[] = [...pieces];
    for (let n = 0; n < 600; n++) {
      const len = 1 + Math.floor(rand() * 12);
      let s = "";
      for (let i = 0; i < len; i++) {
        s += pieces[Math.floor(rand() * pieces.length)];
        if (rand() < 0.5) s += " ";
      }
      inputs.push(s);
    }
    // Random code units, including lone surrogates and control characters.
    for (let n = 0; n < 200; n++) {
      inputs.push(String.fromCharCode(...Array.from({ length: 1 + Math.floor(rand() * 20) }, () => Math.floor(rand() * 0x10000))));
    }
    let searched = 0;
    for (const input of inputs) {
      if (shown(input) === null) continue;
      searched++;
      expect(() => search(input), `input ${JSON.stringify(input)}`).not.toThrow();
    }
    expect(searched).toBeGreaterThan(500);
  });
});
