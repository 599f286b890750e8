// Snippet highlights in a collection's language (snippet.ts SnippetOptions.analyzer): words match
// by the analyzer the text was indexed with, a Chinese or Japanese word is found inside a sentence
// written without spaces, and the English analyzer gives exactly the English highlights.
import { describe, expect, it } from "vitest";
import { DEFAULT_ANALYZER } from "../../src/search/lexical/analyze.js";
import { analyzerFor, documentAnalyzer } from "../../src/search/lexical/languages.js";
import { parseQuery } from "../../src/search/lexical/parse-query.js";
import { expandedWords } from "../../src/search/lexical/query-rules.js";
import { highlightTerms, makeSnippet } from "../../src/search/snippet.js";

const termsOf = (query: string): string[] => highlightTerms(parseQuery(query));

const GERMAN = "Das Haus am See hat einen großen Garten mit alten Bäumen.";
const CHINESE = "我们的数据库存储所有客户的订单信息。";
const JAPANESE = "データベースはすべての顧客と注文を保存します。";

describe("highlights in a collection's language", () => {
  it("match German inflections by the German stems", () => {
    const de = analyzerFor("de");
    expect(makeSnippet(GERMAN, termsOf("Häuser Gärten Baum"), { analyzer: de }).highlights).toEqual(["Haus", "Garten", "Bäumen"]);
    // the English rule finds only the word that folds to the same letters
    expect(makeSnippet(GERMAN, termsOf("Häuser Gärten Baum")).highlights).toEqual(["Garten"]);
    // a phrase (a stop word, an inflected word) is one span
    expect(makeSnippet(GERMAN, termsOf('"großen Gärten"'), { analyzer: de }).highlights).toEqual(["großen Garten"]);
    // a stop word has no stem: it matches only itself, not another stop word
    expect(makeSnippet(GERMAN, ["einen"], { analyzer: de }).highlights).toEqual(["einen"]);
    expect(makeSnippet(GERMAN, ["einer"], { analyzer: de }).highlights).toEqual([]);
  });

  it("find a Chinese or Japanese word inside a sentence without spaces", () => {
    const zh = analyzerFor("zh");
    expect(makeSnippet(CHINESE, termsOf("数据库"), { analyzer: zh }).highlights).toEqual(["数据库"]);
    // the sentence is one token to the English rule
    expect(makeSnippet(CHINESE, termsOf("数据库")).highlights).toEqual([]);
    // a query word the segmenter cuts in two: each word where it stands, both in a row as one span
    expect(makeSnippet(CHINESE, termsOf("客户订单"), { analyzer: zh }).highlights).toEqual(["客户", "订单"]);
    expect(makeSnippet(CHINESE, termsOf("订单信息"), { analyzer: zh }).highlights).toEqual(["订单信息"]);
    expect(makeSnippet(JAPANESE, termsOf("顧客 注文"), { analyzer: analyzerFor("ja") }).highlights).toEqual(["顧客", "注文"]);
  });

  it("keeps the match in a long unspaced text's window", () => {
    const text = "的".repeat(300) + "数据库" + "的".repeat(300);
    const r = makeSnippet(text, ["数据库"], { analyzer: analyzerFor("zh"), maxChars: 40 });
    expect(r.highlights).toEqual(["数据库"]);
    expect(r.snippet.replace(/…/g, "").length).toBeLessThanOrEqual(40);
  });

  it("under auto, match as the language detected for the text", () => {
    const detected = documentAnalyzer("auto", () => GERMAN);
    expect(detected).toBe(analyzerFor("de"));
    expect(makeSnippet(GERMAN, termsOf("Häuser"), { analyzer: detected }).highlights).toEqual(["Haus"]);
  });

  it("give the English analyzer exactly the English highlights and snippet", () => {
    const texts = [
      "Running runs ran; the runner studies studied studying. Make making makes.",
      "ERR_CONN_RESET after the machine learning job; café crème at Zürich",
      `${"filler ".repeat(80)}streaming replication keeps a standby ${"filler ".repeat(80)}`,
      "東京 タワー and 数据库 text",
    ];
    const queries = ["running study", '"machine learning" err_conn_reset cafe', "replicated standbys", "東京 数据库", "make"];
    for (const t of texts)
      for (const q of queries) for (const maxChars of [40, 240]) expect(makeSnippet(t, termsOf(q), { analyzer: DEFAULT_ANALYZER, maxChars })).toEqual(makeSnippet(t, termsOf(q), { maxChars }));
  });
});

describe("words a typo or prefix rule matched", () => {
  it("are the analyzer's words of an unspaced sentence, not the sentence", () => {
    const lexical = { terms: [{ term: "zh:客户", count: 1, weight: 0.6, rule: "prefix" as const }], phrases: [] };
    expect(expandedWords(CHINESE, lexical, analyzerFor("zh"))).toEqual(["客户"]);
    const german = { terms: [{ term: "de:gart", count: 1, weight: 0.9, rule: "typo" as const }], phrases: [] };
    expect(expandedWords(GERMAN, german, analyzerFor("de"))).toEqual(["garten"]);
  });

  it("are the text's words, in order and once each, whose English term a rule added (words of other first letters never are)", () => {
    const lexical = {
      terms: [
        { term: "replic", count: 1, weight: 1 },
        { term: "standbi", count: 1, weight: 0.9, rule: "typo" as const },
        { term: "stream", count: 1, weight: 0.6, rule: "prefix" as const },
      ],
      phrases: [],
    };
    const text = "Streaming replication keeps a standby; replicated standbys stream. Streams, not sandbox.";
    expect(expandedWords(text, lexical, DEFAULT_ANALYZER)).toEqual(["streaming", "standby", "standbys", "stream", "streams"]);
    expect(expandedWords(text, lexical, { ...DEFAULT_ANALYZER, keepsFirstCharacter: false })).toEqual(["streaming", "standby", "standbys", "stream", "streams"]);
  });
});
