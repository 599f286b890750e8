// Conformance of the content store on both backends: collections, sources, documents, chunks,
// plan limits, tenant scoping and tenant deletion.
import { afterEach, expect, it } from "vitest";
import { LimitReached, type IncomingDocument, type NewChunk } from "../../src/store/content-types.js";
import { describeEachContentStore, incomingDoc as doc, type ContentBackend } from "./content-backends.js";
import { analyzeQuery } from "../../src/search/lexical/analyze-query.js";
import { DEFAULT_ANALYZER } from "../../src/search/lexical/analyze.js";

const cleanup: ContentBackend[] = [];
afterEach(async () => {
  for (const b of cleanup.splice(0).reverse()) await b.close();
});

const iso = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
const chunk = (position: number, text: string, heading_path: string[] = []): NewChunk => ({ position, text, heading_path, token_count: text.split(" ").length, metadata: { p: position } });

describeEachContentStore("content store: documents", (open) => {
  async function setup(): Promise<ContentBackend> {
    const b = await open();
    cleanup.push(b);
    await b.addTenants("t1", "t2");
    await b.content.createSource({ id: "s1", tenant_id: "t1", name: "S1", source_type: "upload", configuration: { a: 1 }, error: null, last_synced_at: null, created_at: iso(1) }, [], null);
    await b.content.createSource({ id: "s2", tenant_id: "t1", name: "S2", source_type: "upload", configuration: {}, error: null, last_synced_at: null, created_at: iso(2) }, [], null);
    await b.content.createSource({ id: "u1", tenant_id: "t2", name: "U1", source_type: "upload", configuration: {}, error: null, last_synced_at: null, created_at: iso(3) }, [], null);
    return b;
  }

  it("collections list their sources and counts, and never show another tenant's", async () => {
    const b = await setup();
    const c = b.content;
    await c.createCollection({ id: "c1", tenant_id: "t1", name: "C", description: "d", settings: { x: true }, created_at: iso(5) }, ["s2", "s1"]);
    await c.upsertDocuments("t1", "s1", [doc("d1", "a.txt"), doc("d2", "b.txt")], null);
    await c.replaceDocumentIndex("t1", "d1", { title: "A", metadata: {} }, [chunk(0, "alpha beta")], null);
    const v = await c.getCollection("t1", "c1");
    expect(v).toMatchObject({ data_source_ids: ["s1", "s2"], data_source_count: 2, document_count: 2, indexed_count: 1, settings: { x: true } });
    expect(await c.getCollection("t2", "c1")).toBeNull();
    expect(await c.collectionScope("t1", "c1")).toEqual({ settings: { x: true }, data_source_ids: expect.arrayContaining(["s1", "s2"]), language: null });
    expect(await c.updateCollection("t2", "c1", { name: "stolen" })).toBe(false);
    expect(await c.updateCollection("t1", "c1", { name: "C2", data_source_ids: ["s1"] })).toBe(true);
    expect(await c.getCollection("t1", "c1")).toMatchObject({ name: "C2", description: "d", data_source_ids: ["s1"] });
    // a language is kept, read back per source, and decides how the source's chunks are analysed
    expect(await c.updateCollection("t1", "c1", { language: "de" })).toBe(true);
    expect(await c.getCollection("t1", "c1")).toMatchObject({ name: "C2", language: "de" });
    expect(await c.sourceLanguages("t1", ["s1", "s2"])).toEqual([{ collection_id: "c1", data_source_id: "s1", language: "de" }]);
    expect(await c.sourceLanguages("t2", ["s1"])).toEqual([]);
    await c.replaceDocumentIndex("t1", "d2", { title: "B", metadata: {} }, [chunk(0, "Die Häuser am See")], null);
    const german = (term: string) => c.lexicalSearch("t1", ["s1"], { terms: [{ term, count: 1 }], phrases: [] }, 5, { title: 1, headings: 1, body: 1 });
    expect(await german("de:haus")).toHaveLength(1);
    expect(await german("hauser")).toEqual([]);
    expect(await c.detachSource("t1", "c1", "s1")).toBe(true);
    await c.attachSource("t1", "c1", "s2");
    expect((await c.listCollections("t1")).map((x) => x.data_source_ids)).toEqual([["s2"]]);
    expect(await c.existingSourceIds("t1", ["s1", "u1", "nope"])).toEqual(["s1"]);
    expect(await c.existingCollectionIds("t2", ["c1"])).toEqual([]);
    expect(await c.deleteCollection("t2", "c1")).toBe(false);
    expect(await c.deleteCollection("t1", "c1")).toBe(true);
  });

  it("source limits are exact, also for creations racing each other", async () => {
    const b = await setup();
    const make = (i: number) =>
      b.content.createSource({ id: `x${i}`, tenant_id: "t2", name: `X${i}`, source_type: "upload", configuration: {}, error: null, last_synced_at: null, created_at: iso(10 + i) }, [], 4);
    const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map(make));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3); // u1 + 3 = 4
    const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(LimitReached);
    expect((await b.content.listSources("t2")).length).toBe(4);
  });

  it("upsert inserts new documents, replaces same-named ones, and refuses to pass the limit", async () => {
    const b = await setup();
    const c = b.content;
    const first = await c.upsertDocuments("t1", "s1", [doc("d1", "a.txt"), doc("d2", "b.txt")], 3);
    expect(first.map((d) => [d.id, d.status, d.chunk_count])).toEqual([["d1", "queued", 0], ["d2", "queued", 0]]);
    await c.setDocumentStatus("t1", "d1", "indexed");
    const again = await c.upsertDocuments("t1", "s1", [doc("new-id", "a.txt", { title: "A2", metadata: { v: 2 } })], 3);
    expect(again[0]).toMatchObject({ id: "d1", title: "A2", status: "queued", metadata: { v: 2 } });
    await expect(c.upsertDocuments("t1", "s2", [doc("d3", "c.txt"), doc("d4", "d.txt")], 3)).rejects.toMatchObject({
      what: "documents",
      used: 2,
      limit: 3,
      adding: 2,
    });
    expect(await c.findDocumentBySource("t1", "s2", "c.txt")).toBeNull();
    // concurrent uploads: exactly the limit's worth get in
    const racing = await Promise.allSettled([0, 1, 2, 3].map((i) => c.upsertDocuments("t1", "s2", [doc(`r${i}`, `r${i}.txt`)], 4)));
    expect(racing.filter((r) => r.status === "fulfilled")).toHaveLength(2);
    expect((await c.documentIds("t1")).length).toBe(4);
    expect(await c.getDocument("t2", "d1")).toBeNull();
  });

  it("replaceDocumentIndex replaces chunks; lists page newest first; failed documents lose their chunks", async () => {
    const b = await setup();
    const c = b.content;
    await c.upsertDocuments("t1", "s1", [doc("d1", "a.txt")], null);
    await c.replaceDocumentIndex("t1", "d1", { title: "T", metadata: { m: 1 } }, [chunk(0, "one two"), chunk(1, "three", ["H1", "H2"])], null);
    let d = await c.getDocument("t1", "d1");
    expect(d).toMatchObject({ status: "indexed", chunk_count: 2, chunks_pending_vectors: 2, metadata: { m: 1 }, title: "T" });
    const first = await c.listChunks("t1", "d1", 10);
    expect(first.total).toBe(2);
    expect(first.chunks[1]).toMatchObject({ position: 1, heading_path: ["H1", "H2"], text: "three", metadata: { p: 1 }, embedded_in: null });
    await c.replaceDocumentIndex("t1", "d1", { title: "T", metadata: {} }, [chunk(0, "four")], null);
    const second = await c.listChunks("t1", "d1", 10);
    expect(second.chunks.map((x) => x.text)).toEqual(["four"]);
    expect(second.chunks[0]!.id).not.toBe(first.chunks[0]!.id); // ids are never reused
    expect((await c.hydrateChunks("t1", [first.chunks[0]!.id, second.chunks[0]!.id, "garbage"])).size).toBe(1);
    expect((await c.hydrateChunks("t2", [second.chunks[0]!.id])).size).toBe(0);
    // documents of ranked ids: replaced, malformed and other tenants' ids are left out
    expect(await c.chunkDocuments("t1", [first.chunks[0]!.id, second.chunks[0]!.id, "garbage"])).toEqual(new Map([[second.chunks[0]!.id, "d1"]]));
    expect((await c.chunkDocuments("t2", [second.chunks[0]!.id])).size).toBe(0);
    expect((await c.chunkDocuments("t1", [])).size).toBe(0);
    expect((await c.chunksInRanges("t1", [{ documentId: "d1", fromPosition: 0, toPosition: 5 }])).map((h) => [h.text, h.title])).toEqual([["four", "T"]]);
    await c.setDocumentStatus("t1", "d1", "failed", "bad pdf");
    d = await c.getDocument("t1", "d1");
    expect(d).toMatchObject({ status: "failed", error: "bad pdf", chunk_count: 0 });
    expect((await c.listChunks("t1", "d1", 10)).total).toBe(0);
    // a document deleted while processing: nothing is indexed
    await c.replaceDocumentIndex("t1", "gone", { title: "x", metadata: {} }, [chunk(0, "x")], null);
    expect((await c.listChunks("t1", "gone", 10)).total).toBe(0);

    for (let i = 0; i < 5; i++) await c.upsertDocuments("t1", "s2", [doc(`p${i}`, `p${i}.txt`)], null);
    const page1 = await c.listDocuments("t1", { sourceId: "s2", limit: 3 });
    const last = page1[2]!;
    const page2 = await c.listDocuments("t1", { sourceId: "s2", limit: 3, before: { created_at: last.created_at, id: last.id } });
    expect([...page1, ...page2].map((x) => x.id).sort()).toEqual(["p0", "p1", "p2", "p3", "p4"]);
    expect(await c.listDocuments("t1", { status: "failed", limit: 10 })).toHaveLength(1);
    expect(await c.listDocuments("t2", { limit: 10 })).toHaveLength(0);
  });

  it("sources count their documents; deleting a source or a tenant removes everything under it", async () => {
    const b = await setup();
    const c = b.content;
    await c.upsertDocuments("t1", "s1", [doc("d1", "a.txt"), doc("d2", "b.txt"), doc("d3", "c.txt")], null);
    await c.replaceDocumentIndex("t1", "d1", { title: "T", metadata: {} }, [chunk(0, "one"), chunk(1, "two")], null);
    await c.setDocumentStatus("t1", "d2", "failed", "x");
    await c.enqueueJob({ tenant_id: "t1", kind: "ingest", subject: "d3" });
    expect(await c.getSource("t1", "s1")).toMatchObject({ document_count: 3, indexed_count: 1, failed_count: 1, pending_count: 1, chunks_pending_vectors: 2, configuration: { a: 1 } });
    await c.updateSource("t1", "s1", { error: "boom", last_synced_at: iso(9) });
    expect(await c.getSource("t1", "s1")).toMatchObject({ error: "boom", last_synced_at: iso(9) });
    expect(await c.getSource("t2", "s1")).toBeNull();
    expect(await c.documentsAwaitingIngest(new Date(Date.now() + 1000), 10)).toEqual([{ tenant_id: "t1", id: "d3" }]);
    expect((await c.deleteSource("t1", "s1"))?.sort()).toEqual(["d1", "d2", "d3"]);
    expect(await c.pendingJobCount()).toBe(0);
    expect(await c.deleteSource("t1", "s1")).toBeNull();
    expect(await c.countUnembedded("any", "t1")).toBe(0);

    await c.upsertDocuments("t2", "u1", [doc("e1", "e.txt")], null);
    await c.replaceDocumentIndex("t2", "e1", { title: "E", metadata: {} }, [chunk(0, "alpha")], null);
    await c.enqueueJob({ tenant_id: "t2", kind: "ingest", subject: "e1" });
    await b.deleteTenant("t2");
    expect(await c.listSources("t2")).toEqual([]);
    expect(await c.getDocument("t2", "e1")).toBeNull();
    expect(await c.countUnembedded("any")).toBe(0);
    expect(await c.pendingJobCount()).toBe(0);
    expect(await c.lexicalSearch("t2", ["u1"], analyzeQuery({ terms: ["alpha"], phrases: [] }, DEFAULT_ANALYZER), 10, { title: 1, headings: 1, body: 1 })).toEqual([]);
  });
});
