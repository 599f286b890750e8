// The parsed query through the analyzer: what both stores score (search/lexical/analyze-query.ts).
import { describe, expect, it } from "vitest";
import { analyzeQuery, lexicalQueryOf } from "../../../src/search/lexical/analyze-query.js";
import { analyzeChunk, DEFAULT_ANALYZER } from "../../../src/search/lexical/analyze.js";
import { parseQuery } from "../../../src/search/lexical/parse-query.js";

describe("analyzeQuery", () => {
  it("turns words into index terms, each distinct term once with how many words gave it", () => {
    const q = analyzeQuery({ terms: ["running", "runs", "connection", "run"], phrases: [] }, DEFAULT_ANALYZER);
    expect(q.terms).toEqual([
      { term: "run", count: 3 },
      { term: "connect", count: 1 },
    ]);
  });

  it("cuts phrases into index terms, as the chunks' text was cut", () => {
    const q = analyzeQuery(parseQuery('"Machine Learning" ERR_CONN_RESET'), DEFAULT_ANALYZER);
    expect(q.phrases).toEqual([
      ["machin", "learn"],
      ["err", "conn", "reset"],
    ]);
    // every phrase term is an index term of a chunk that holds the phrase
    const chunk = analyzeChunk({ title: "", headings: "", body: "machine learning fails with ERR_CONN_RESET" }, DEFAULT_ANALYZER);
    for (const t of q.phrases.flat()) expect(chunk.terms).toContain(t);
  });
});

describe("lexicalQueryOf", () => {
  it("parses once: the parse (for highlights) and the lexical query come from the same text", () => {
    const { parsed, lexical } = lexicalQueryOf('The "replication slots" of PostgreSQL', DEFAULT_ANALYZER);
    expect(parsed).toEqual(parseQuery('The "replication slots" of PostgreSQL'));
    expect(lexical).toEqual(analyzeQuery(parsed, DEFAULT_ANALYZER));
  });

  it("gives no lexical query when nothing in the text is searchable", () => {
    expect(lexicalQueryOf("?! -- ***", DEFAULT_ANALYZER)).toEqual({ parsed: { terms: [], phrases: [] }, lexical: null, synonymsApplied: false });
  });
});
