// Issue 28 item 5 over HTTP, on both stores (pg-suites.ts): a collection's language decides how its
// text and its queries are analysed. A German plural finds its singular, French and Spanish
// inflections find their documents, Chinese and Japanese words are found inside sentences, "auto"
// detects each document's language, a misspelt word is corrected in the collection's language (under
// auto in the languages present), highlights match in the hit's language, English collections keep
// the English analysis, a bad value
// answers 422 naming the supported ones, a source shared across languages 409, and a new language
// reindexes the collection's documents.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, createSource, upload, waitIndexed } from "../kit/index.js";

const DOCS = {
  de: { name: "haus.md", content: "# Wohnen\n\nDas Haus am See hat einen großen Garten.\n" },
  fr: { name: "cheval.md", content: "# Écurie\n\nLe cheval blanc mange dans la prairie.\n" },
  es: { name: "cancion.md", content: "# Música\n\nLa canción popular suena en la radio.\n" },
  zh: { name: "shujuku.md", content: "# 系统\n\n我们的数据库存储所有客户的订单信息。\n" },
  ja: { name: "deta.md", content: "# システム\n\nデータベースはすべての顧客と注文を保存します。\n" },
  en: { name: "runner.md", content: "# Training\n\nShe runs every morning before work.\n" },
};

describe("collection languages", () => {
  let s: TestServer;
  let key: string;
  // a second workspace for the mixed and plain collections (a free plan holds 5 data sources)
  let key2: string;
  const sources: Record<string, string> = {};
  const collections: Record<string, string> = {};

  const titles = async (collection: string, query: string, more: Record<string, unknown> = {}): Promise<string[]> => {
    const k = collection === collections.auto || collection === collections.plain ? key2 : key;
    const r = await s.call("POST", "/search", { key: k, json: { collection_id: collection, query, hybrid: { semantic_ratio: 0 }, ...more } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.results.map((h: any) => h.title as string);
  };
  /** the top hit's highlights */
  const highlights = async (collection: string, query: string, k: string): Promise<string[]> => {
    const r = await s.call("POST", "/search", { key: k, json: { collection_id: collection, query, hybrid: { semantic_ratio: 0 } } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.results[0]?.highlights ?? [];
  };
  const create = (json: Record<string, unknown>, k = key) => s.call("POST", "/collections", { key: k, json });

  beforeAll(async () => {
    s = await startServer({}, { listen: false });
    key = (await s.tenant()).adminKey;
    key2 = (await s.tenant()).adminKey;
    // one source per language, its collection created with the language before the upload
    for (const lang of ["de", "fr", "es", "zh", "ja"] as const) {
      sources[lang] = await createSource(s, key, lang);
      const r = await create({ name: lang, data_source_ids: [sources[lang]], language: lang });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.language).toBe(lang);
      collections[lang] = r.body.id;
      expect((await upload(s, key, sources[lang]!, [DOCS[lang]])).status).toBe(202);
    }
    sources.auto = await createSource(s, key2, "mixed");
    const auto = await create({ name: "mixed", data_source_ids: [sources.auto], language: "auto" }, key2);
    collections.auto = auto.body.id;
    expect((await upload(s, key2, sources.auto, [DOCS.de, DOCS.fr, DOCS.en])).status).toBe(202);
    // the same German text in a collection created without a language: English analysis
    sources.plain = await createSource(s, key2, "plain");
    const plain = await create({ name: "plain", data_source_ids: [sources.plain] }, key2);
    expect(plain.body.language).toBe("en");
    collections.plain = plain.body.id;
    expect((await upload(s, key2, sources.plain, [DOCS.de, DOCS.en])).status).toBe(202);
    for (const [lang, id] of Object.entries(sources)) {
      const k = lang === "auto" || lang === "plain" ? key2 : key;
      for (const d of await waitIndexed(s, k, id, 60_000, { vectors: false })) expect(d.status).toBe("indexed");
    }
  }, 120_000);
  afterAll(async () => s?.close());

  it("finds a German singular by its plural, French and Spanish documents by inflected forms", async () => {
    expect(await titles(collections.de!, "Häuser")).toEqual(["Wohnen"]);
    expect(await titles(collections.de!, "Gärten")).toEqual(["Wohnen"]);
    expect(await titles(collections.fr!, "chevaux blancs")).toEqual(["Écurie"]);
    expect(await titles(collections.es!, "canciones populares")).toEqual(["Música"]);
    // a quoted phrase is verified in the collection's analysis (inflected words, stop word between)
    expect(await titles(collections.de!, '"großen Gärten"')).toEqual(["Wohnen"]);
    expect(await titles(collections.fr!, '"chevaux blancs"')).toEqual(["Écurie"]);
    // stop words alone find nothing
    expect(await titles(collections.de!, "das am")).toEqual([]);
  });

  it("finds Chinese and Japanese text by a word inside a sentence", async () => {
    expect(await titles(collections.zh!, "数据库")).toEqual(["系统"]);
    expect(await titles(collections.zh!, "客户")).toEqual(["系统"]);
    expect(await titles(collections.ja!, "顧客")).toEqual(["システム"]);
    expect(await titles(collections.ja!, "注文")).toEqual(["システム"]);
  });

  it("corrects a misspelt word in the collection's language, and under auto in the German of a German document", async () => {
    expect(await titles(collections.de!, "Gartne")).toEqual(["Wohnen"]);
    expect(await titles(collections.de!, "Gartne", { typo_tolerance: false })).toEqual([]);
    expect(await titles(collections.auto!, "Gartne")).toEqual(["Wohnen"]);
    expect(await titles(collections.auto!, "chevall")).toEqual(["Écurie"]);
    // a word of the query shows the language: German ("der" is its stop word) alone is corrected in
    expect(await titles(collections.auto!, "der Gartne")).toEqual(["Wohnen"]);
    expect(await titles(collections.auto!, "runnign")).toEqual(["Training"]);
  });

  it("highlights the words that matched in the hit's language, inside a sentence without spaces too", async () => {
    expect(await highlights(collections.de!, "Häuser Gärten", key)).toEqual(["Haus", "Garten"]);
    expect(await highlights(collections.zh!, "数据库", key)).toEqual(["数据库"]);
    expect(await highlights(collections.ja!, "顧客", key)).toEqual(["顧客"]);
    // auto: as the language detected for the hit; English as before
    expect(await highlights(collections.auto!, "Häuser", key2)).toEqual(["Haus"]);
    expect(await highlights(collections.auto!, "Gartne", key2)).toEqual(["Garten"]);
    expect(await highlights(collections.auto!, "running", key2)).toEqual(["runs"]);
    expect(await highlights(collections.plain!, "running", key2)).toEqual(["runs"]);
  });

  it("keeps the English analysis where no language is set, and detects each document's language under auto", async () => {
    expect(await titles(collections.plain!, "Häuser")).toEqual([]);
    expect(await titles(collections.plain!, "running")).toEqual(["Training"]);
    expect(await titles(collections.auto!, "Häuser")).toEqual(["Wohnen"]);
    expect(await titles(collections.auto!, "chevaux")).toEqual(["Écurie"]);
    expect(await titles(collections.auto!, "running")).toEqual(["Training"]);
  });

  it("answers 422 naming a bad language and the supported ones, 409 for a source shared across languages", async () => {
    const bad = await create({ name: "bad", language: "xx" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body", "language"], input: "xx" });
    expect(bad.body.detail[0].msg).toMatch(/'xx'.*'de'.*'auto'/);
    const patch = await s.call("PATCH", `/collections/${collections.de}`, { key, json: { language: "klingon" } });
    expect(patch.status).toBe(422);
    expect((await create({ name: "shared", data_source_ids: [sources.de], language: "fr" })).status).toBe(409);
    const both = await s.call("POST", "/data-sources", { key, json: { name: "both", source_type: "upload", collection_ids: [collections.de, collections.fr] } });
    expect(both.status).toBe(409);
    expect(both.body.detail).toMatch(/'de'.*'fr'/);
    const attach = await s.call("PUT", `/collections/${collections.plain}/data-sources/${sources.auto}`, { key: key2 });
    expect(attach.status).toBe(409);
    expect(attach.body.detail).toMatch(new RegExp(`'${sources.auto}'.*'auto'`));
  });

  it("reindexes a collection's documents when its language changes", async () => {
    const r = await s.call("PATCH", `/collections/${collections.plain}`, { key: key2, json: { language: "de" } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ language: "de", reindex: { status: "queued", documents: 2 } });
    expect((await s.call("GET", `/collections/${collections.plain}`, { key: key2 })).body.language).toBe("de");
    const deadline = Date.now() + 60_000;
    while ((await titles(collections.plain!, "Häuser")).length === 0) {
      if (Date.now() > deadline) throw new Error("the German analysis never reached the index");
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(await titles(collections.plain!, "Häuser")).toEqual(["Wohnen"]);
  });
});
