import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { normalizeWord, tokenizeWords, wordNorms } from "../../../src/search/lexical/tokenize.js";

describe("tokenizeWords", () => {
  it("gives offsets into the original string and folded forms", () => {
    expect(tokenizeWords("Café, ERR_CONN_RESET!")).toEqual([
      { raw: "Café", norm: "cafe", start: 0, end: 4 },
      { raw: "ERR", norm: "err", start: 6, end: 9 },
      { raw: "CONN", norm: "conn", start: 10, end: 14 },
      { raw: "RESET", norm: "reset", start: 15, end: 20 },
    ]);
    expect(tokenizeWords("😀 -- ***")).toEqual([]);
    expect(normalizeWord("한국어")).toBe("한국어"); // NFC after stripping: Hangul recomposes
  });

  it("cuts ASCII text (its fast path) exactly as the Unicode path cuts the same words", () => {
    const ascii = "Hello, World! foo.bar() v2.3.1 ERR_CONN_RESET x-y_z 42abc\tTAB\n~`'\"[]{}";
    // one non-ASCII character sends the whole text down the Unicode path; its tokens must agree
    const unicode = tokenizeWords(`${ascii} é`).slice(0, -1);
    expect(tokenizeWords(ascii)).toEqual(unicode);
    expect(tokenizeWords(ascii).map((t) => t.norm)).toEqual(["hello", "world", "foo", "bar", "v2", "3", "1", "err", "conn", "reset", "x", "y", "z", "42abc", "tab"]);
    expect(normalizeWord("MiXeD42")).toBe("mixed42");
    // every ASCII character, at random: the hand scan and wordNorms against the Unicode path
    let seed = 5;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let k = 0; k < 300; k++) {
      const text = Array.from({ length: next() % 40 }, () => String.fromCharCode(next() % 128)).join("");
      const viaUnicode = tokenizeWords(`${text} é`).slice(0, -1);
      expect(tokenizeWords(text), JSON.stringify(text)).toEqual(viaUnicode);
      expect(wordNorms(text)).toEqual(viaUnicode.map((t) => t.norm));
    }
    expect(wordNorms("Café ERR_x")).toEqual(["cafe", "err", "x"]);
  });

  it("cuts Latin, CJK and code text the way FTS5 unicode61 remove_diacritics 2 does", () => {
    const db = new Database(":memory:");
    try {
      db.exec("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='unicode61 remove_diacritics 2')");
      db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)");
      const samples = [
        "Hello, World! foo.bar() v2.3.1 ERR_CONN_RESET",
        "Crème brûlée à Zürich; naïve coöperation ÉCOLE",
        "日本語テキスト と 한국어 text",
        "x² ½ 3.14 -42 e-mail user@example.com #tag",
        "tab\tnew\nline — dash “quoted” «angle» 😀emoji👍",
      ];
      const insert = db.prepare("INSERT INTO t(rowid, body) VALUES (?, ?)");
      samples.forEach((s, i) => insert.run(i + 1, s));
      const vocab = db.prepare("SELECT term FROM v WHERE doc = ? ORDER BY offset");
      samples.forEach((s, i) => {
        const fts = (vocab.all(i + 1) as { term: string }[]).map((r) => r.term);
        expect(tokenizeWords(s).map((t) => t.norm), s).toEqual(fts);
      });
    } finally {
      db.close();
    }
  });
});
