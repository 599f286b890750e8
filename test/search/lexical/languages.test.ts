// Issue 28 item 5, the analyzers: English stays today's Porter analysis term for term, other
// languages' terms carry their prefix (so they never meet another analyzer's), stop words and
// inflections are handled, Chinese/Japanese/Thai are segmented, detection picks the language, and
// the language bench sets find their documents first.
import { describe, expect, it } from "vitest";
import { DEFAULT_ANALYZER } from "../../../src/search/lexical/analyze.js";
import { lexicalQueryOf } from "../../../src/search/lexical/analyze-query.js";
import { analyzerFor, analyzerOfTerms, documentAnalyzer, queryAnalyzer, LANGUAGES } from "../../../src/search/lexical/languages.js";
import { detectLanguage } from "../../../src/search/lexical/detect-language.js";
import { sourcesToReanalyse } from "../../../src/services/collections/language.js";
import { evaluateLanguages } from "../../../src/evaluation/bench/languages/evaluate.js";
import { EUROPEAN_SETS } from "../../../src/evaluation/bench/languages/sets-europe.js";
import { UNSPACED_SETS } from "../../../src/evaluation/bench/languages/sets-asia.js";

describe("language analyzers", () => {
  it("keeps English (and no language) the default Porter analyzer, unprefixed", () => {
    expect(analyzerFor("en")).toBe(DEFAULT_ANALYZER);
    expect(queryAnalyzer(undefined)).toBe(DEFAULT_ANALYZER);
    expect(queryAnalyzer("en")).toBe(DEFAULT_ANALYZER);
    expect(DEFAULT_ANALYZER.analyze("The runners were running databases")).toEqual(["the", "runner", "were", "run", "databas"]);
    expect(lexicalQueryOf('running "the databases"', DEFAULT_ANALYZER).lexical).toEqual({
      terms: [
        { term: "run", count: 1 },
        { term: "databas", count: 1 },
      ],
      phrases: [["the", "databas"]],
    });
  });

  it("stems each language with its prefix and drops its stop words", () => {
    const de = analyzerFor("de");
    expect(de.analyze("Die Häuser der Hunde")).toEqual(["de:haus", "de:hund"]);
    expect(de.terms("haus")).toEqual(de.terms("hauser"));
    expect(de.terms("der")).toEqual([]);
    expect(analyzerFor("fr").terms("chevaux")).toEqual(analyzerFor("fr").terms("cheval"));
    expect(analyzerFor("es").terms("canciones")).toEqual(analyzerFor("es").terms("cancion"));
    expect(analyzerFor("ru").analyze("базы данных")).toEqual(analyzerFor("ru").analyze("база данные"));
    for (const l of LANGUAGES.filter((x) => x !== "en")) expect(analyzerFor(l).terms("12345")).toEqual([`${l}:12345`]);
  });

  it("segments Chinese, Japanese and Thai so a word meets the same word inside a sentence", () => {
    const zh = analyzerFor("zh");
    expect(zh.analyze("我们的数据库存储所有客户的订单信息。")).toEqual(expect.arrayContaining(zh.terms("数据库")));
    expect(zh.terms("客户")).toEqual(["zh:客户"]);
    const ja = analyzerFor("ja");
    expect(ja.analyze("データベースはすべての顧客と注文を保存します。")).toEqual(expect.arrayContaining(["ja:顧客", "ja:注文"]));
    expect(analyzerFor("th").analyze("ฐานข้อมูลจัดเก็บลูกค้าทั้งหมด")).toContain("th:ลูกค้า");
    // a Latin word inside Chinese text is stemmed as English is
    expect(zh.terms("databases")).toEqual(["zh:databas"]);
  });

  it("detects a document's language for auto, English when it cannot tell", () => {
    expect(detectLanguage("Die Datenbank speichert alle Kunden und ihre Bestellungen.")).toBe("de");
    expect(detectLanguage("La base de données enregistre tous les clients et leurs commandes.")).toBe("fr");
    expect(detectLanguage("データベースはすべての顧客と注文を保存します。")).toBe("ja");
    expect(detectLanguage("ok")).toBeNull();
    expect(documentAnalyzer("auto", () => "ok")).toBe(DEFAULT_ANALYZER);
    expect(documentAnalyzer("auto", () => "Die Datenbank speichert alle Kunden und ihre Bestellungen.")).toBe(analyzerFor("de"));
    expect(documentAnalyzer("fr", () => "Die Datenbank speichert alle Kunden.")).toBe(analyzerFor("fr"));
  });

  it("asks an auto collection for every language's terms, and verifies phrases with the analyzer their prefix names", () => {
    const terms = queryAnalyzer("auto").terms("hunde");
    expect(terms).toEqual(expect.arrayContaining(["hund", "de:hund"]));
    expect(new Set(terms).size).toBe(terms.length);
    expect(analyzerOfTerms([["de:haus", "de:hund"]])).toBe(analyzerFor("de"));
    expect(analyzerOfTerms([["haus", "hund"]])).toBe(DEFAULT_ANALYZER);
    expect(analyzerOfTerms([])).toBe(DEFAULT_ANALYZER);
  });

  it("reanalyses the sources whose language changes", () => {
    expect(sourcesToReanalyse({ language: "en", ids: ["a"] }, { language: "de", ids: ["a", "b"] })).toEqual(["a", "b"]);
    expect(sourcesToReanalyse({ language: "en", ids: ["a"] }, { language: "en", ids: ["a", "b"] })).toEqual([]);
    expect(sourcesToReanalyse({ language: "de", ids: ["a", "b"] }, { language: "de", ids: ["a", "c"] })).toEqual(["c", "b"]);
  });

  it("finds the document of each bench question first in its own language, where English analysis misses some", () => {
    const rows = evaluateLanguages([...EUROPEAN_SETS, ...UNSPACED_SETS]);
    for (const r of rows) expect(r.own, r.language).toBeGreaterThanOrEqual(0.9);
    for (const l of ["de", "it", "ru", "zh", "ja", "th"]) expect(rows.find((r) => r.language === l)!.english, l).toBeLessThan(0.9);
  });
});
