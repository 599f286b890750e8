// Issue 28 item 1 over HTTP (lexical, no model): a filter on /search and /retrieve returns the best
// of the matching documents, never one outside the filter (random filters against a brute-force
// reference over the documents as GET /documents shows them), and a filter that cannot be read
// answers 422 with the path to the bad part. Runs on both stores (test/helpers/pg-suites.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { createCollection, createSource, noModelEnv, upload, useServer, waitIndexed } from "../kit/index.js";
import { fieldValue, holds, type FilterDoc } from "../helpers/filter-reference.js";

const PRODUCTS = ["cli", "api", "web"];
const COLOURS = ["red", "green", "blue", "amber"];

/** 36 records: every one says "item", some say more, with varied metadata */
const RECORDS = Array.from({ length: 36 }, (_, i) => ({
  title: `Item ${i}`,
  body: `item ${COLOURS[i % 4]} ${i % 3 === 0 ? "item spare" : ""}`,
  ...(i % 5 === 4 ? {} : { product: PRODUCTS[i % 3] }),
  price: i % 7 === 0 ? String(i) : i * 2.5,
  in_stock: i % 2 === 0,
  released: `202${5 + (i % 2)}-0${1 + (i % 9)}-15`,
  ...(i % 4 === 0 ? { specs: { size: i % 8 } } : {}),
}));

describe("search filters over HTTP", () => {
  const s = useServer(noModelEnv());
  let key: string;
  let col: string;
  let sources: string[];
  let docs: FilterDoc[];

  beforeAll(async () => {
    key = (await s.tenant()).adminKey;
    const records = await s.call("POST", "/data-sources", { key, json: { name: "Catalogue", source_type: "upload", configuration: { records: true } } });
    expect(records.status).toBe(201);
    const notes = await createSource(s, key, "Notes");
    sources = [records.body.id, notes];
    col = await createCollection(s, key, sources);
    expect((await upload(s, key, sources[0]!, [{ name: "items.json", content: JSON.stringify(RECORDS), type: "application/json" }])).status).toBe(202);
    const files = Array.from({ length: 6 }, (_, i) => ({ name: `note-${i}.md`, content: `# Note ${i}\n\nAn item ${COLOURS[i % 4]} note.\n` }));
    expect((await upload(s, key, notes, files)).status).toBe(202);
    docs = [];
    for (const src of sources) docs.push(...(await waitIndexed(s, key, src)));
    expect(docs.every((d: any) => d.status === "indexed")).toBe(true);
    expect(docs.length).toBe(42);
  }, 120_000);

  const search = (json: Record<string, unknown>) => s.call("POST", "/search", { key, json: { collection_id: col, ...json } });

  function randomFilter(seed: number): Record<string, unknown> {
    let x = seed * 7919 + 13;
    const next = () => ((x = (x * 48271) % 2147483647) % 1000) / 1000;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const leaf = (): Record<string, unknown> =>
      pick([
        () => ({ "metadata.product": pick(PRODUCTS) }),
        () => ({ "metadata.product": { $nin: [pick(PRODUCTS)] } }),
        () => ({ "metadata.price": { [pick(["$gt", "$gte", "$lt", "$lte"])]: Math.floor(next() * 90) } }),
        () => ({ "metadata.in_stock": next() < 0.5 }),
        () => ({ "metadata.released": { $gte: `2025-0${1 + Math.floor(next() * 9)}-01` } }),
        () => ({ "metadata.specs.size": { $in: [0, 4, pick([2, 6])] } }),
        () => ({ "metadata.specs": { $exists: next() < 0.5 } }),
        () => ({ data_source_id: pick(sources) }),
        () => ({ file_type: pick(["json", "markdown"]) }),
        () => ({ document_id: { $ne: pick(docs).id } }),
        () => ({ created_at: { $lte: new Date(Date.now() + 60_000).toISOString() } }),
      ])();
    const roll = next();
    if (roll < 0.4) return leaf();
    if (roll < 0.65) return { $and: [leaf(), leaf()] };
    if (roll < 0.9) return { $or: [leaf(), { $and: [leaf(), leaf()] }] };
    return { $not: { $or: [leaf(), leaf()] } };
  }

  it("returns exactly the matching documents' hits, in the unfiltered order", async () => {
    const all = await search({ query: "item", top_k: 50, collapse_documents: false });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(42); // every chunk matches, fewer than the candidate depth: the list is whole
    const byId = new Map(docs.map((d) => [d.id, d]));
    let kept = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const filter = randomFilter(seed);
      const r = await search({ query: "item", top_k: 50, collapse_documents: false, filter, explain: true });
      expect(r.status, JSON.stringify(filter)).toBe(200);
      const expected = all.body.results.filter((h: any) => holds(filter, byId.get(h.document_id)!)).map((h: any) => h.chunk_id);
      expect(r.body.results.map((h: any) => h.chunk_id), JSON.stringify(filter)).toEqual(expected);
      // ranks in explain are places in the filtered list
      r.body.results.forEach((h: any, i: number) => expect(h.explain.lexical.rank).toBe(i + 1));
      kept += expected.length > 0 ? 1 : 0;
    }
    expect(kept).toBeGreaterThan(20);
  });

  it("gives the top k of the filtered set, not a filtered top k", async () => {
    // "spare" is in 12 records; top_k 3 of the cli ones must still be 3 when they exist
    const r = await search({ query: "item spare", top_k: 3, filter: { "metadata.product": "cli", "metadata.in_stock": true } });
    expect(r.status).toBe(200);
    const expected = docs.filter((d) => holds({ "metadata.product": "cli", "metadata.in_stock": true }, d));
    expect(r.body.results.length).toBe(Math.min(3, expected.length));
    for (const h of r.body.results) expect(h.metadata.product).toBe("cli");
  });

  it("filters /retrieve the same way", async () => {
    const filter = { data_source_id: sources[1] };
    const r = await s.call("POST", "/retrieve", { key, json: { collection_id: col, query: "item note", top_k: 20, relative_cutoff: false, filter } });
    expect(r.status).toBe(200);
    expect(r.body.contexts.length).toBe(6);
    const notes = new Set(docs.filter((d) => d.data_source_id === sources[1]).map((d) => d.id));
    for (const c of r.body.contexts) expect(notes.has(c.document_id)).toBe(true);
  });

  /** the brute-force count of a field's values over these documents */
  function countBy(ids: Iterable<string>, field: string): Record<string, number> {
    const counts = new Map<string, number>();
    for (const id of ids) {
      const v = fieldValue(docs.find((d) => d.id === id)!, field);
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
    }
    return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
  }

  it("counts facets over every matched document, not the page, inside the filter", async () => {
    const fields = ["metadata.product", "metadata.in_stock", "file_type", "data_source_id", "metadata.specs.size"];
    for (const [query, filter] of [
      ["item", undefined],
      ["spare", undefined],
      ["item", { "metadata.in_stock": true }],
      ["red blue", { $or: [{ "metadata.product": "cli" }, { data_source_id: sources[1] }] }],
    ] as [string, Record<string, unknown> | undefined][]) {
      const all = await search({ query, top_k: 50, ...(filter ? { filter } : {}) });
      const r = await search({ query, top_k: 2, facets: fields, ...(filter ? { filter } : {}) });
      expect(r.status).toBe(200);
      expect(r.body.results.length).toBeLessThanOrEqual(2);
      // lexical (no model): the matched documents are the whole (short) ranked list
      const matched = new Set<string>(all.body.results.map((h: any) => h.document_id));
      expect(matched.size).toBe(all.body.total);
      for (const f of fields) {
        expect(r.body.facets[f], `${query} ${f}`).toEqual(countBy(matched, f));
      }
    }
    const plain = await search({ query: "item" });
    expect(plain.body).not.toHaveProperty("facets");
  });

  it("answers 422 naming a bad facet", async () => {
    const r = await search({ query: "item", facets: ["file_type", "colour"] });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["body", "facets", 1]);
    expect(r.body.detail[0].msg).toMatch(/Unknown field/);
    const many = await search({ query: "item", facets: Array.from({ length: 11 }, (_, i) => `metadata.k${i}`) });
    expect(many.status).toBe(422);
    expect(JSON.stringify(many.body.detail)).toContain("facets");
  });

  it("answers 422 naming the bad part of a filter", async () => {
    const cases: [unknown, (string | number)[], RegExp][] = [
      [{ colour: "red" }, ["body", "filter", "colour"], /Unknown field/],
      [{ "metadata.price": { $gt: true } }, ["body", "filter", "metadata.price", "$gt"], /numbers or strings/],
      [{ "metadata.price": { $between: [1, 2] } }, ["body", "filter", "metadata.price", "$between"], /Unknown operator/],
      [{ $and: [{ "metadata.product": "cli" }, { created_at: { $gte: "last tuesday" } }] }, ["body", "filter", "$and", 1, "created_at", "$gte"], /ISO 8601/],
      [{ $or: [] }, ["body", "filter", "$or"], /non-empty array/],
      [{ "metadata.product": null }, ["body", "filter", "metadata.product"], /\$exists/],
      [{ "metadata.product": ["cli", "api"] }, ["body", "filter", "metadata.product"], /\$in/],
      [{ data_source_id: { $exists: true } }, ["body", "filter", "data_source_id", "$exists"], /metadata fields/],
      [{ $nor: [] }, ["body", "filter", "$nor"], /Unknown combinator/],
      [{ "metadata.": 1 }, ["body", "filter", "metadata."], /metadata key/],
    ];
    for (const [filter, loc, msg] of cases) {
      const r = await search({ query: "item", filter });
      expect(r.status, JSON.stringify(filter)).toBe(422);
      expect(r.body.detail[0].loc, JSON.stringify(filter)).toEqual(loc);
      expect(r.body.detail[0].msg).toMatch(msg);
    }
    const notObject = await search({ query: "item", filter: "product = cli" });
    expect(notObject.status).toBe(422);
    expect(JSON.stringify(notObject.body.detail)).toContain("filter");
    const retrieve = await s.call("POST", "/retrieve", { key, json: { collection_id: col, query: "item", filter: { $not: "x" } } });
    expect(retrieve.status).toBe(422);
    expect(retrieve.body.detail[0].loc).toEqual(["body", "filter", "$not"]);
  });
});
