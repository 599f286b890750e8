import { describe, expect, it } from "vitest";
import { parseQuery } from "../../src/search/lexical/parse-query.js";
import { highlightTerms, makeSnippet } from "../../src/search/snippet.js";
import { lightStem } from "../../src/search/lexical/tokenize.js";

/** the highlight terms of a user query, as /search takes them from its one parse */
const termsOf = (query: string): string[] => highlightTerms(parseQuery(query));

const filler = (n: number, word = "lorem"): string => Array.from({ length: n }, () => word).join(" ");

/** The snippet without its "…" marks must be a whole-word slice of the whitespace-collapsed text. */
function expectWholeWords(text: string, snippet: string): void {
  const clean = text.replace(/\s+/g, " ").trim();
  const body = snippet.replace(/^…/, "").replace(/…$/, "");
  const at = clean.indexOf(body);
  expect(at, `snippet body not found in text: ${body}`).toBeGreaterThanOrEqual(0);
  if (at > 0) expect(clean[at - 1]).toBe(" ");
  const end = at + body.length;
  if (end < clean.length) expect(clean[end]).toBe(" ");
  expect(snippet.startsWith("…")).toBe(at > 0);
  expect(snippet.endsWith("…")).toBe(end < clean.length);
}

describe("lightStem", () => {
  it("conflates common English inflections", () => {
    for (const [a, b] of [["running", "run"], ["runs", "run"], ["studies", "study"], ["studied", "study"], ["making", "make"], ["makes", "make"], ["stopped", "stop"], ["cells", "cell"], ["processes", "process"], ["called", "call"]]) {
      expect(lightStem(a ?? ""), `${a} ~ ${b}`).toBe(lightStem(b ?? ""));
    }
    expect(lightStem("analysis")).toBe("analysis");
  });

  // makeSnippet passes over a text word that does not start with a term's stem less its last
  // letter (snippet.ts ENGLISH.keyHead): that holds only while lightStem cuts endings this way
  it("keeps a word's beginning: the word starts with its stem less the stem's last letter, or with the whole stem when it has one or two letters", () => {
    const roots = ["a", "an", "bus", "run", "stop", "study", "make", "cell", "process", "call", "tie", "see", "agree", "fly", "passes", "ies", "sses", "xyz", "dye"];
    const endings = ["", "s", "es", "ies", "sses", "ed", "ing", "e", "ied", "ying", "nning", "lled", "ss", "us", "is"];
    for (const r of roots) {
      for (const e of endings) {
        const word = r + e;
        const stem = lightStem(word);
        expect(word.startsWith(stem.length <= 2 ? stem : stem.slice(0, -1)), `${word} -> ${stem}`).toBe(true);
      }
    }
    expect(lightStem("bus")).toBe("bus");
  });
});

describe("makeSnippet", () => {
  it("returns a short text whole, highlighting matches in original case", () => {
    expect(makeSnippet("Fast Search for everyone.", ["search"])).toEqual({ snippet: "Fast Search for everyone.", highlights: ["Search"] });
  });

  it("matches stemmed forms and keeps each surface form once, in order of appearance", () => {
    const r = makeSnippet("She runs. Running daily, she will run again; RUNS", termsOf("running"));
    expect(r.highlights).toEqual(["runs", "Running", "run", "RUNS"]);
  });

  it("term at the start: no leading ellipsis, cut at a word boundary at the end", () => {
    const text = `Quarry indexes documents. ${filler(100)}`;
    const r = makeSnippet(text, ["quarry"], { maxChars: 60 });
    expect(r.snippet.startsWith("Quarry indexes documents.")).toBe(true);
    expect(r.snippet.endsWith("…")).toBe(true);
    expect(r.snippet.length).toBeLessThanOrEqual(61);
    expect(r.highlights).toEqual(["Quarry"]);
    expectWholeWords(text, r.snippet);
  });

  it("term at the end: leading ellipsis, window ends at the text end", () => {
    const text = `${filler(100)} the final answer`;
    const r = makeSnippet(text, ["answer"], { maxChars: 50 });
    expect(r.snippet.startsWith("…")).toBe(true);
    expect(r.snippet.endsWith("the final answer")).toBe(true);
    expect(r.highlights).toEqual(["answer"]);
    expectWholeWords(text, r.snippet);
  });

  it("picks the window with the most distinct terms, not the first match", () => {
    const text = `alpha ${filler(60)} gamma ${filler(60)} alpha beta gamma together ${filler(60)}`;
    const r = makeSnippet(text, ["alpha", "beta", "gamma"], { maxChars: 80 });
    expect(r.snippet).toContain("alpha beta gamma together");
    expect(r.highlights).toEqual(["alpha", "beta", "gamma"]);
    expectWholeWords(text, r.snippet);
  });

  it("on a tie takes the earliest window", () => {
    const text = `${filler(30)} first hit ${filler(60)} second hit ${filler(30)}`;
    const r = makeSnippet(text, ["hit"], { maxChars: 60 });
    expect(r.snippet).toContain("first hit");
    expect(r.snippet).not.toContain("second");
  });

  it("no match (vector-only hit): start of the chunk, cut at a word boundary, no highlights", () => {
    const text = `Embeddings found this passage although no word matches. ${filler(80)}`;
    const r = makeSnippet(text, ["zebra"], { maxChars: 40 });
    expect(r).toEqual({ snippet: "Embeddings found this passage although…", highlights: [] });
    expect(makeSnippet("short text", [])).toEqual({ snippet: "short text", highlights: [] });
    expect(makeSnippet("", ["x"])).toEqual({ snippet: "", highlights: [] });
    expect(makeSnippet("  \n\t ", ["x"])).toEqual({ snippet: "", highlights: [] });
  });

  it("collapses whitespace and newlines", () => {
    expect(makeSnippet("Title\n\n  body   text\there", ["body"]).snippet).toBe("Title body text here");
  });

  it("highlights phrases and code identifiers as one span", () => {
    const text = "The client saw ERR_CONN_RESET twice. Machine Learning helps; machine time, learning curve.";
    const r = makeSnippet(text, [...termsOf("ERR_CONN_RESET"), ...termsOf('"machine learning"')]);
    expect(r.highlights).toEqual(["ERR_CONN_RESET", "Machine Learning", "machine", "learning"]);
  });

  it("matches across diacritics and keeps the text's spelling", () => {
    const r = makeSnippet("Un café crème à Zürich", termsOf("cafe creme zurich"));
    expect(r.highlights).toEqual(["café", "crème", "Zürich"]);
    expect(makeSnippet("Cafe\u0301 au lait", ["cafe"]).highlights).toEqual(["Cafe\u0301"]);
  });

  it("handles non-Latin scripts and emoji without breaking surrogate pairs", () => {
    const text = `${"😀 ".repeat(100)}東京 タワー ${"🔥 ".repeat(100)}`;
    const r = makeSnippet(text, ["東京"], { maxChars: 30 });
    expect(r.highlights).toEqual(["東京"]);
    expect(r.snippet).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expectWholeWords(text, r.snippet);
  });

  it("a word longer than the window is cut inside the word (the only exception)", () => {
    const long = "x".repeat(500);
    // A long word after the match is left out rather than cut.
    expect(makeSnippet(`see ${long} end`, ["see"], { maxChars: 50 })).toEqual({ snippet: "see…", highlights: ["see"] });
    // The match sits inside a long run of non-space characters: cut inside it.
    const inside = makeSnippet(`${long}-needle-${long}`, ["needle"], { maxChars: 50 });
    expect(inside.highlights).toEqual(["needle"]);
    expect(inside.snippet).toMatch(/^…needle-x+…$/);
    expect(inside.snippet.length).toBeLessThanOrEqual(52);
  });

  it("never exceeds maxChars plus the ellipses, and never cuts mid-word (fuzz)", () => {
    const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"];
    let seed = 42;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let n = 0; n < 200; n++) {
      const text = Array.from({ length: 20 + Math.floor(rand() * 200) }, () => words[Math.floor(rand() * words.length)]).join(rand() < 0.5 ? " " : "\n");
      const terms = [words[Math.floor(rand() * words.length)] ?? "mu", words[Math.floor(rand() * words.length)] ?? "mu"];
      const maxChars = 20 + Math.floor(rand() * 200);
      const r = makeSnippet(text, terms, { maxChars });
      expect(r.snippet.replace(/^…/, "").replace(/…$/, "").length).toBeLessThanOrEqual(maxChars);
      expectWholeWords(text, r.snippet);
      expect(r.highlights.length).toBeGreaterThan(0);
      for (const h of r.highlights) expect(r.snippet).toContain(h);
    }
  });
});

describe("highlightTerms", () => {
  it("returns the normalised words, then phrases, without duplicates", () => {
    expect(termsOf('Running "Machine Learning" machine')).toEqual(["running", "machine", "learning", "machine learning"]);
    expect(termsOf("ERR_CONN_RESET")).toEqual(["err", "conn", "reset", "err conn reset"]);
    expect(termsOf("the of")).toEqual(["the", "of"]);
    expect(termsOf("?!")).toEqual([]);
  });
});
