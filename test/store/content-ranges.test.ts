// Conformance of chunksInRanges on both backends: the neighbours /retrieve adds come from one call,
// so overlapping ranges must give each chunk once, ranges past a document's end or below 0 must
// simply give less, and another tenant's chunks must never come back.
import { afterEach, expect, it } from "vitest";
import type { IncomingDocument, NewChunk } from "../../src/store/content-types.js";
import { describeEachContentStore, incomingDoc as doc, type ContentBackend } from "./content-backends.js";

const cleanup: ContentBackend[] = [];
afterEach(async () => {
  for (const b of cleanup.splice(0).reverse()) await b.close();
});

const chunks = (n: number, prefix: string): NewChunk[] =>
  Array.from({ length: n }, (_, position) => ({ position, text: `${prefix}${position}`, heading_path: [], token_count: 1, metadata: {} }));

describeEachContentStore("content store: chunks in ranges", (open) => {
  async function setup(): Promise<ContentBackend> {
    const b = await open();
    cleanup.push(b);
    await b.addTenants("t1", "t2");
    const at = new Date(Date.UTC(2026, 0, 1)).toISOString();
    for (const [tenant, source] of [["t1", "s1"], ["t2", "u1"]] as const) {
      await b.content.createSource({ id: source, tenant_id: tenant, name: source, source_type: "upload", configuration: {}, error: null, last_synced_at: null, created_at: at }, [], null);
    }
    await b.content.upsertDocuments("t1", "s1", [doc("d1", "one.txt"), doc("d2", "two.txt")], null);
    await b.content.upsertDocuments("t2", "u1", [doc("x1", "other.txt")], null);
    await b.content.replaceDocumentIndex("t1", "d1", { title: "One", metadata: {} }, chunks(5, "a"), null);
    await b.content.replaceDocumentIndex("t1", "d2", { title: "Two", metadata: {} }, chunks(3, "b"), null);
    await b.content.replaceDocumentIndex("t2", "x1", { title: "Other", metadata: {} }, chunks(2, "x"), null);
    return b;
  }

  it("returns each chunk of the ranges once, by document then position, within the tenant", async () => {
    const { content } = await setup();
    const hits = await content.chunksInRanges("t1", [
      { documentId: "d2", fromPosition: 1, toPosition: 5 }, // past the end: positions 1 and 2 only
      { documentId: "d1", fromPosition: -1, toPosition: 1 }, // below 0: from 0
      { documentId: "d1", fromPosition: 1, toPosition: 2 }, // overlaps the range before
      { documentId: "d1", fromPosition: 4, toPosition: 3 }, // empty
      { documentId: "x1", fromPosition: 0, toPosition: 1 }, // another tenant's document
    ]);
    expect(hits.map((h) => [h.document_id, h.position, h.text, h.title])).toEqual([
      ["d1", 0, "a0", "One"],
      ["d1", 1, "a1", "One"],
      ["d1", 2, "a2", "One"],
      ["d2", 1, "b1", "Two"],
      ["d2", 2, "b2", "Two"],
    ]);
    expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
    expect(await content.chunksInRanges("t1", [])).toEqual([]);
    expect((await content.chunksInRanges("t2", [{ documentId: "x1", fromPosition: 0, toPosition: 9 }])).map((h) => h.text)).toEqual(["x0", "x1"]);
  });
});
