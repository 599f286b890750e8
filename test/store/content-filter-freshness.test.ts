// A filter and a facet count see every document write at once, on both stores: the SQLite store
// answers them from in-memory columns kept current through document_log (filter-table.ts), so a
// metadata update, a re-index with new chunks, a delete, a new document, a source deletion and a
// write by another process must each change the very next filtered search and facet count.
import { afterEach, expect, it } from "vitest";
import type { ContentStore } from "../../src/store/content-store.js";
import type { LexicalWeights } from "../../src/search/lexical/types.js";
import { analyzeQuery } from "../../src/search/lexical/analyze-query.js";
import { DEFAULT_ANALYZER } from "../../src/search/lexical/analyze.js";
import { parseFilter } from "../../src/search/filter/parse.js";
import { facetAnswer, parseFacets } from "../../src/search/filter/facets.js";
import { describeEachContentStore, type ContentBackend } from "./content-backends.js";

const cleanup: ContentBackend[] = [];
afterEach(async () => {
  for (const b of cleanup.splice(0).reverse()) await b.close();
});

const W: LexicalWeights = { title: 2, headings: 1.5, body: 1 };
const QUERY = analyzeQuery({ terms: ["common"], phrases: [] }, DEFAULT_ANALYZER);
const SOURCES = ["t-a", "t-b"];
const DIM = 4;
const vec = (i: number) => new Float32Array([1, i / 10, 0.5, -0.25]);

async function setUp(b: ContentBackend): Promise<void> {
  await b.addTenants("t");
  for (const s of SOURCES) {
    await b.content.createSource({ id: s, tenant_id: "t", name: s, source_type: "upload", configuration: {}, error: null, last_synced_at: null, created_at: "2026-01-01T00:00:00.000Z" }, [], null);
  }
  await b.content.ensureVectorIndex("fresh_vec", DIM);
}

/** adds (or re-uploads, same source name) a document and indexes `chunks` chunks of it */
async function put(c: ContentStore, source: string, id: string, metadata: Record<string, unknown>, chunks = 2): Promise<string> {
  const [row] = await c.upsertDocuments("t", source, [{ id, source: `${id}.txt`, title: id, source_type: "upload", kind: "text", content_type: null, size_bytes: 1, content_hash: JSON.stringify(metadata), metadata }], null);
  const texts = Array.from({ length: chunks }, (_, i) => `common words ${id} part ${i}`);
  await c.replaceDocumentIndex("t", row!.id, { title: id, metadata }, texts.map((text, position) => ({ position, text, heading_path: [], token_count: 3, metadata: {} })), {
    indexName: "fresh_vec",
    values: texts.map((_, i) => vec(i)),
  });
  return row!.id;
}

/** the documents a filtered lexical and a filtered vector search return, each sorted */
async function found(c: ContentStore, json: Record<string, unknown>): Promise<{ lexical: string[]; vector: string[] }> {
  const filter = parseFilter(json);
  const lexical = await c.lexicalSearch("t", SOURCES, QUERY, 100, W, filter);
  const vector = await c.vectorSearch("fresh_vec", "t", SOURCES, vec(0), 100, filter);
  const docOf = await c.chunkDocuments("t", [...lexical, ...vector].map((h) => h.chunkId));
  const docs = (hits: { chunkId: string }[]) => [...new Set(hits.map((h) => docOf.get(h.chunkId)!))].sort();
  return { lexical: docs(lexical), vector: docs(vector) };
}

const both = (...ids: string[]) => ({ lexical: [...ids].sort(), vector: [...ids].sort() });

async function facets(c: ContentStore): Promise<Record<string, Record<string, number>>> {
  const fields = parseFacets(["metadata.product"]);
  return facetAnswer(fields, await c.facetCounts("t", SOURCES, { query: QUERY, documentIds: [] }, fields.map((f) => f.field), 100));
}

describeEachContentStore("content store: filters and facets follow writes at once", (open) => {
  for (const vectors of ["exact", "hnsw"] as const) {
    it(`updates, re-indexes, deletes and new documents change the next filtered search (${vectors} vectors)`, async () => {
      const b = await open({ sqliteVectors: vectors, sqliteFilterExactBelow: vectors === "exact" ? 1_000_000 : 0, pg: { vectors: { exactBelow: vectors === "exact" ? 1_000_000 : 0, graphFrom: 0 } } });
      cleanup.push(b);
      const c = b.content;
      await setUp(b);
      const one = await put(c, "t-a", "one", { product: "cli", rank: 1 });
      const two = await put(c, "t-a", "two", { product: "api", rank: 2 });
      const cli = { "metadata.product": "cli" };
      expect(await found(c, cli)).toEqual(both(one));
      expect(await facets(c)).toEqual({ "metadata.product": { cli: 1, api: 1 } });

      // a re-upload with new metadata: the filter sees it before the document is re-indexed
      await c.upsertDocuments("t", "t-a", [{ id: "ignored", source: "two.txt", title: "two", source_type: "upload", kind: "text", content_type: null, size_bytes: 1, content_hash: "x", metadata: { product: "cli", rank: 5 } }], null);
      expect(await found(c, cli)).toEqual(both(one, two));
      expect(await found(c, { "metadata.rank": { $gte: 5 } })).toEqual(both(two));
      expect(await facets(c)).toEqual({ "metadata.product": { cli: 2 } });

      // re-indexed with other chunks (new chunk ids) and other metadata
      await put(c, "t-a", "one", { product: "web" }, 3);
      expect(await found(c, cli)).toEqual(both(two));
      expect(await found(c, { "metadata.product": "web" })).toEqual(both(one));
      expect((await c.lexicalSearch("t", SOURCES, QUERY, 100, W, parseFilter({ "metadata.product": "web" }))).length).toBe(3);

      // a new document, then a deleted one
      const three = await put(c, "t-b", "three", { product: "cli" });
      expect(await found(c, cli)).toEqual(both(two, three));
      expect(await c.deleteDocument("t", two)).toBe(true);
      expect(await found(c, cli)).toEqual(both(three));
      expect(await found(c, { "metadata.rank": { $exists: true } })).toEqual(both());
      expect(await facets(c)).toEqual({ "metadata.product": { web: 1, cli: 1 } });

      // a failed document leaves search with its chunks
      await c.setDocumentStatus("t", three, "failed", "broken");
      expect(await found(c, cli)).toEqual(both());

      // a data source deleted takes its documents along (by cascade)
      const four = await put(c, "t-b", "four", { product: "web" });
      expect(await found(c, { "metadata.product": "web" })).toEqual(both(one, four));
      await b.sql("DELETE FROM data_sources WHERE id = ?", ["t-b"]);
      expect(await found(c, { "metadata.product": "web" })).toEqual(both(one));
      expect(await found(c, { data_source_id: "t-b" })).toEqual(both());
    }, 60_000);
  }

  it("sees another process's writes at once", async () => {
    const b = await open({ sqliteVectors: "exact" });
    cleanup.push(b);
    await setUp(b);
    const other = await b.reopen();
    cleanup.push(other);
    const one = await put(b.content, "t-a", "one", { product: "cli" });
    expect(await found(b.content, { "metadata.product": "cli" })).toEqual(both(one));
    expect(await found(other.content, { "metadata.product": "cli" })).toEqual(both(one));
    // the other process changes the metadata and adds a document
    await put(other.content, "t-a", "one", { product: "api" });
    const two = await put(other.content, "t-b", "two", { product: "cli" });
    expect(await found(b.content, { "metadata.product": "cli" })).toEqual(both(two));
    expect(await found(b.content, { "metadata.product": "api" })).toEqual(both(one));
    expect(await facets(b.content)).toEqual({ "metadata.product": { api: 1, cli: 1 } });
  }, 60_000);
});
