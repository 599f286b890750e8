// Typo tolerance and prefix search in other languages (search/lexical/expand.ts,
// query-languages.ts) through the embedded store's term dictionary (term-dictionary.ts): a
// collection of one language corrects in its vocabulary; an "auto" collection corrects in the
// languages its query's other words show, or in every language present when none is shown.
import { describe, expect, it } from "vitest";
import { analyzeChunk, DEFAULT_ANALYZER, type Analyzer, type ChunkFields } from "../../../src/search/lexical/analyze.js";
import { Bm25Index } from "../../../src/search/lexical/bm25-index.js";
import { analyzerFor, documentAnalyzer, queryAnalyzer } from "../../../src/search/lexical/languages.js";
import { lexicalQueryWithRules } from "../../../src/search/lexical/query-rules.js";
import { queryLanguages } from "../../../src/search/lexical/query-languages.js";
import { rankLexical } from "../../../src/search/lexical/rank.js";
import { answerLookup } from "../../../src/search/lexical/term-dictionary.js";
import { typoBudget } from "../../../src/search/lexical/typos.js";
import { EQUAL_WEIGHTS } from "./lexical-helpers.js";

const DOCS = [
  "Das Haus am See hat einen großen Garten mit alten Bäumen.",
  "Der Zug verlässt den Bahnhof pünktlich am Mittag.",
  "Le cheval blanc mange tranquillement dans la prairie.",
  "Streaming replication keeps a standby server in step with the primary.",
  "Take a base backup before every upgrade of the database.",
  "Собака бежит через зелёное поле к реке.",
];

/** The documents indexed as a collection of `language` would index them (auto: each detected), and a search over them. */
function collection(language: string, docs = DOCS) {
  const index = new Bm25Index();
  const fields = docs.map((body): ChunkFields => ({ title: "", headings: "", body }));
  fields.forEach((f, i) => index.add(i, 0, analyzeChunk(f, documentAnalyzer(language, () => f.body))));
  const fieldsOf = (keys: number[]) => new Map(keys.map((k) => [k, fields[k]!]));
  const analyzer = queryAnalyzer(language);
  return async (query: string, rules: { typos?: boolean; prefix?: boolean } = {}) => {
    const { lexical } = await lexicalQueryWithRules(query, analyzer, { typos: rules.typos ?? true, prefix: rules.prefix ?? false }, async (l) => answerLookup(index, l));
    const hits = lexical ? rankLexical(index, new Uint8Array([1]), lexical, 10, EQUAL_WEIGHTS, fieldsOf, DEFAULT_ANALYZER) : [];
    return { keys: hits.map((h) => h.key), added: lexical?.terms.filter((t) => t.rule).map((t) => t.term) ?? [] };
  };
}

describe("typo tolerance in a collection's language", () => {
  it("corrects a German word to the German stem in a German collection", async () => {
    const search = collection("de");
    expect((await search("Gartne")).keys).toEqual([0]);
    expect((await search("Gartne")).added).toEqual(["de:gart"]);
    expect((await search("Bahnhfo")).keys).toEqual([1]);
    expect((await search("Gartne", { typos: false })).keys).toEqual([]);
  });

  it("corrects a Russian word in its stem, and one whose suffix typo hid it from the stemmer", async () => {
    const search = collection("ru");
    expect((await search("собкаа")).keys).toEqual([5]);
    // "ббжит" stems to itself, three edits from "беж"; "бежит" (with a letter the word lacks) stems to it
    expect((await search("ббжит")).keys).toEqual([5]);
  });

  it("gives no budget to words of scripts written without spaces", () => {
    expect([typoBudget("数据库存储系统"), typoBudget("データベース"), typoBudget("gartne")]).toEqual([0, 0, 1]);
  });
});

describe("typo tolerance and prefixes in an auto collection", () => {
  const search = collection("auto");

  it("corrects a misspelt German word to the German term, an English one to the English", async () => {
    // before: the English vocabulary only, nothing found
    expect((await search("Gartne")).keys).toEqual([0]);
    expect((await search("Gartne")).added).toContain("de:gart");
    expect((await search("Bahnhfo")).keys).toEqual([1]);
    expect((await search("replicaton")).keys).toEqual([3]);
    expect((await search("chevall")).keys).toEqual([2]);
  });

  it("corrects in the language the other words show", async () => {
    // "der" is a German stop word: German alone is corrected in
    const { added } = await search("der Gartne");
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((t) => t.startsWith("de:"))).toBe(true);
    // "standby" is in the English vocabulary
    const english = await search("standby replicaton");
    expect(english.keys[0]).toBe(3);
    expect(english.added.every((t) => !t.includes(":"))).toBe(true);
  });

  it("completes the typed word in each present language", async () => {
    expect((await search("Bahnh", { prefix: true })).keys).toEqual([1]);
    expect((await search("replicat", { prefix: true })).keys).toEqual([3]);
    expect((await search("Bahnh")).keys).toEqual([]);
  });
});

describe("the query's languages", () => {
  const parts = queryAnalyzer("auto").parts!;
  const lang = (as: Analyzer[]) => as.map((a) => a.language).sort();
  const answer = (terms: Record<string, number>, present: string[]) => ({ docCount: 100, df: new Map(Object.entries(terms)), ranges: [], present });

  it("are the present languages most words show, all present ones when none shows", () => {
    expect(lang(queryLanguages(["gartne"], parts, answer({}, ["de:", "fr:"])))).toEqual(["de", "en", "fr"]);
    expect(lang(queryLanguages(["haus", "gartne"], parts, answer({ "de:haus": 3 }, ["de:", "fr:"])))).toEqual(["de"]);
    // a language without terms in the dictionary is not present, whatever its stop words
    expect(lang(queryLanguages(["le", "chevall"], parts, answer({}, ["de:"])))).toEqual(["de", "en"]);
    expect(lang(queryLanguages(["le", "chevall"], parts, answer({}, ["de:", "fr:"])))).toEqual(["fr"]);
  });

  it("are at most three, the likeliest by franc's ranking of the words", () => {
    const all = ["de:", "fr:", "es:", "it:", "pt:", "nl:", "sv:", "ru:"];
    const chosen = lang(queryLanguages(["katzen", "schlafen", "fensterbank"], parts, answer({}, all)));
    expect(chosen).toHaveLength(3);
    expect(chosen).toContain("de");
    // Danish, Finnish and Norwegian are never detected for a document: never a query language of auto
    expect(lang(queryLanguages(["hunden"], parts, answer({}, ["da:", "fi:", "no:"])))).toEqual(["en"]);
  });

  it("are the collection's one language otherwise", () => {
    expect(queryLanguages(["gartne"], [analyzerFor("de")], answer({}, []))).toEqual([analyzerFor("de")]);
  });
});
