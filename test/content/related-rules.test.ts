// The contract's related rules 1-4 over real HTTP, with the SQLite file checked directly: what the
// API says is gone must be gone from chunks, chunk_terms (lexical) and the vector table, and from DATA_DIR.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  chunkIdsOf,
  chunksOf,
  createCollection,
  createSource,
  expectDetail,
  indexRows,
  upload,
  startWithTenant,
  storedFile,
  tableCounts,
  uploadAndSettle,
  type Ctx,
} from "./helpers.js";
import { storeSql } from "../helpers/store-sql.js";
import { MARKDOWN } from "./fixtures.js";

let c: Ctx;
beforeAll(async () => {
  c = await startWithTenant();
});
afterAll(async () => {
  await c?.s.close();
});

async function searchIds(collectionId: string, query: string): Promise<string[]> {
  const r = await c.call("POST", "/search", { collection_id: collectionId, query, top_k: 10 });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.results.map((h: any) => h.document_id);
}

describe("related rules", () => {
  test("1. detaching a source from one collection keeps its documents indexed and searchable through another", async () => {
    const s = await createSource(c, "shared");
    const a = await createCollection(c, "A", [s.id]);
    const b = await createCollection(c, "B", [s.id]);
    const [doc] = await uploadAndSettle(c, s.id, [{ name: "zebra.txt", data: "Zebras graze on the savanna in large striped herds." }]);
    expect(doc.status).toBe("indexed");
    expect(await searchIds(a.id, "striped zebras")).toContain(doc.id);
    expect(await searchIds(b.id, "striped zebras")).toContain(doc.id);

    expect((await c.call("DELETE", `/collections/${a.id}/data-sources/${s.id}`)).status).toBe(204);
    expect(await searchIds(a.id, "striped zebras")).not.toContain(doc.id);
    expect(await searchIds(b.id, "striped zebras")).toContain(doc.id);
    expect((await c.call("GET", `/documents/${doc.id}`)).body.status).toBe("indexed");
    expect((await c.call("GET", `/collections/${b.id}`)).body).toMatchObject({ document_count: 1, indexed_count: 1 });
    expect((await c.call("GET", `/collections/${a.id}`)).body).toMatchObject({ document_count: 0, indexed_count: 0 });
    const ids = await chunkIdsOf(c, [doc.id]);
    expect(ids.length).toBeGreaterThan(0);
    expect(await indexRows(c, ids)).toEqual({ chunks: ids.length, fts: ids.length, vec: ids.length });
    // even with no collection at all the documents stay
    expect((await c.call("DELETE", `/collections/${b.id}/data-sources/${s.id}`)).status).toBe(204);
    expect((await c.call("GET", `/documents/${doc.id}`)).body.status).toBe("indexed");
    expect(await indexRows(c, ids)).toEqual({ chunks: ids.length, fts: ids.length, vec: ids.length });
    // and re-attaching makes them searchable again, without reindexing
    expect((await c.call("PUT", `/collections/${a.id}/data-sources/${s.id}`)).status).toBe(200);
    expect(await searchIds(a.id, "striped zebras")).toContain(doc.id);
  });

  test("2. deleting a collection keeps its sources and documents", async () => {
    const s = await createSource(c, "survivor");
    const col = await createCollection(c, "Temporary", [s.id]);
    const keep = await createCollection(c, "Keeper", [s.id]);
    const [doc] = await uploadAndSettle(c, s.id, [{ name: "owl.md", data: "# Owls\n\nOwls hunt silently at night." }]);
    const ids = await chunkIdsOf(c, [doc.id]);
    expect((await c.call("DELETE", `/collections/${col.id}`)).status).toBe(204);
    expect((await c.call("GET", `/data-sources/${s.id}`)).body).toMatchObject({ document_count: 1, indexed_count: 1, collection_ids: [keep.id] });
    expect((await c.call("GET", `/documents/${doc.id}`)).body.status).toBe("indexed");
    expect(await indexRows(c, ids)).toEqual({ chunks: ids.length, fts: ids.length, vec: ids.length });
    expect((await storedFile(c.s, c.tenantId, doc.id)) !== null).toBe(true);
    expect(await searchIds(keep.id, "owls hunt at night")).toContain(doc.id);
  });

  test("3. deleting a source removes it, every document, their chunks, FTS and vector rows, jobs and files", async () => {
    const victim = await createSource(c, "victim");
    const bystander = await createSource(c, "bystander");
    const col = await createCollection(c, "Both", [victim.id, bystander.id]);
    const docs = await uploadAndSettle(c, victim.id, [
      { name: "guide.md", data: MARKDOWN },
      { name: "moon.txt", data: "The moon orbits the earth every twenty seven days." },
      { name: "broken.pdf", data: "%PDF-1.7 not really" },
    ]);
    const [other] = await uploadAndSettle(c, bystander.id, [{ name: "sun.txt", data: "The sun is a star at the centre of the solar system." }]);
    const victimChunks = await chunkIdsOf(c, docs.map((d) => d.id));
    const otherChunks = await chunkIdsOf(c, [other.id]);
    expect(victimChunks.length).toBeGreaterThanOrEqual(7);
    expect(await indexRows(c, victimChunks)).toEqual({ chunks: victimChunks.length, fts: victimChunks.length, vec: victimChunks.length });
    const before = await tableCounts(c);
    for (const d of docs) expect((await storedFile(c.s, c.tenantId, d.id)) !== null, d.source).toBe(d.status === "failed" && d.error?.includes("not a supported") ? false : true);

    expect((await c.call("DELETE", `/data-sources/${victim.id}`)).status).toBe(204);

    expectDetail(await c.call("GET", `/data-sources/${victim.id}`), 404);
    for (const d of docs) {
      expectDetail(await c.call("GET", `/documents/${d.id}`), 404);
      expectDetail(await c.call("GET", `/documents/${d.id}/chunks`), 404);
      expect((await storedFile(c.s, c.tenantId, d.id)) !== null, d.source).toBe(false);
    }
    expect(await indexRows(c, victimChunks)).toEqual({ chunks: 0, fts: 0, vec: 0 });
    const after = await tableCounts(c);
    expect(after.chunks).toBe(before.chunks - victimChunks.length);
    expect(after.fts).toBe(before.fts - victimChunks.length);
    expect(after.vec).toBe(before.vec - victimChunks.length);
    expect(after.documents).toBe(before.documents - docs.length);
    // FTS and chunks stay in step overall (no orphaned index rows anywhere)
    expect(after.fts).toBe(after.chunks);
    expect(after.vec).toBe(after.chunks);
    // the other source is untouched
    expect(await indexRows(c, otherChunks)).toEqual({ chunks: otherChunks.length, fts: otherChunks.length, vec: otherChunks.length });
    expect((await c.call("GET", `/collections/${col.id}`)).body).toMatchObject({ data_source_count: 1, document_count: 1, indexed_count: 1 });
    expect(await searchIds(col.id, "moon orbits the earth")).not.toContain(docs[1].id);
    expect(await searchIds(col.id, "sun star solar system")).toContain(other.id);
    const list = (await c.call("GET", "/documents")).body.map((d: any) => d.id);
    for (const d of docs) expect(list).not.toContain(d.id);
  });

  test("4. deleting a document removes it, its stored file and its index entries; its neighbours stay", async () => {
    const s = await createSource(c, "doc-delete");
    const col = await createCollection(c, "DocDelete", [s.id]);
    const [gone, kept] = await uploadAndSettle(c, s.id, [
      { name: "guide.md", data: MARKDOWN },
      { name: "herons.txt", data: "Herons wait patiently by the pond for frogs." },
    ]);
    const goneChunks = await chunkIdsOf(c, [gone.id]);
    const keptChunks = await chunkIdsOf(c, [kept.id]);
    expect(goneChunks.length).toBe((await chunksOf(c, gone.id)).total);
    expect((await storedFile(c.s, c.tenantId, gone.id))?.toString("utf8")).toBe(MARKDOWN);
    expect(await searchIds(col.id, "kingfishers dive for fish")).toContain(gone.id);

    expect((await c.call("DELETE", `/documents/${gone.id}`)).status).toBe(204);

    expectDetail(await c.call("GET", `/documents/${gone.id}`), 404, gone.id);
    expectDetail(await c.call("GET", `/documents/${gone.id}/chunks`), 404);
    expectDetail(await c.call("DELETE", `/documents/${gone.id}`), 404);
    expect(await storedFile(c.s, c.tenantId, gone.id)).toBeNull();
    expect(await indexRows(c, goneChunks)).toEqual({ chunks: 0, fts: 0, vec: 0 });
    expect(await indexRows(c, keptChunks)).toEqual({ chunks: keptChunks.length, fts: keptChunks.length, vec: keptChunks.length });
    expect(await searchIds(col.id, "kingfishers dive for fish")).not.toContain(gone.id);
    expect(await searchIds(col.id, "herons frogs pond")).toContain(kept.id);
    expect((await c.call("GET", `/data-sources/${s.id}`)).body).toMatchObject({ document_count: 1, indexed_count: 1 });
    const t = await tableCounts(c);
    expect(t.fts).toBe(t.chunks);
    expect(t.vec).toBe(t.chunks);
  });

  test("another tenant cannot read, list or delete my documents (404 like a missing one)", async () => {
    const s = await createSource(c, "private");
    const [doc] = await uploadAndSettle(c, s.id, [{ name: "secret.txt", data: "The vault code is hidden here." }]);
    const t = await c.s.tenant();
    const as = (m: string, p: string) => c.s.call(m, p, { key: t.adminKey });
    const missing = "doc_doesnotexist0000";
    for (const [m, p] of [
      ["GET", (id: string) => `/documents/${id}`],
      ["GET", (id: string) => `/documents/${id}/chunks`],
      ["DELETE", (id: string) => `/documents/${id}`],
    ] as const) {
      const a = await as(m, p(doc.id));
      const b = await as(m, p(missing));
      expectDetail(a, 404);
      expect(a.body.detail.replace(doc.id, "ID")).toBe(b.body.detail.replace(missing, "ID"));
    }
    expect((await as("GET", "/documents")).body).toEqual([]);
    expect((await c.call("GET", `/documents/${doc.id}`)).body.status).toBe("indexed");
    expect((await storedFile(c.s, c.tenantId, doc.id)) !== null).toBe(true);
  });
});

describe("deletes while ingest is under way", () => {
  test("deleting a source right after an upload leaves no chunks, index rows, jobs or files behind", async () => {
    const s = await createSource(c, "racy");
    const files = Array.from({ length: 8 }, (_, i) => ({
      name: `race-${i}.md`,
      data: `# Race ${i}\n\n## Part one\n\nWords about racing number ${i} and more words.\n\n## Part two\n\nEven more words for chunk ${i}.`,
    }));
    const r = await upload(c, s.id, files);
    expect(r.status).toBe(202);
    const ids = r.body.map((d: any) => d.id);
    expect((await c.call("DELETE", `/data-sources/${s.id}`)).status).toBe(204);
    // let any job that was already running finish its work
    await new Promise((res) => setTimeout(res, 2500));
    const sql = storeSql(c.s.rt.store);
    expect(await sql.count("SELECT count(*) AS n FROM documents WHERE data_source_id = ?", s.id)).toBe(0);
    expect(await sql.count("SELECT count(*) AS n FROM chunks WHERE data_source_id = ?", s.id)).toBe(0);
    for (const id of ids) expect(await sql.count("SELECT count(*) AS n FROM jobs WHERE subject = ?", id)).toBe(0);
    for (const id of ids) expect((await storedFile(c.s, c.tenantId, id)) !== null).toBe(false);
    const t = await tableCounts(c);
    expect(t.fts).toBe(t.chunks);
    expect(t.vec).toBe(t.chunks);
  });
});
