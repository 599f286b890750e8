// Uploads over real HTTP: the mixed batch (202 at once, statuses, heading paths, PDF page
// numbers), documents listing/reading/chunks, re-upload replacing, progress, and reindexing.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  chunkIdsOf,
  chunksOf,
  createCollection,
  createSource,
  expect422,
  expectDetail,
  indexRows,
  settle,
  sleep,
  startWithTenant,
  storedFile,
  tableCounts,
  upload,
  uploadAndSettle,
  waitFor,
  type Ctx,
} from "./helpers.js";
import { MARKDOWN, MARKDOWN_PATHS, makeDocx, makePdf, mixedBatch } from "./fixtures.js";

let c: Ctx;
beforeAll(async () => {
  c = await startWithTenant();
});
afterAll(async () => {
  await c?.s.close();
});

const byName = (docs: any[]) => new Map(docs.map((d) => [d.source, d]));

describe("the mixed batch", () => {
  let source: any;
  let accepted: any[];
  let settled: Map<string, any>;

  beforeAll(async () => {
    source = await createSource(c, "mixed");
    const files = await mixedBatch();
    const t0 = Date.now();
    const r = await upload(c, source.id, files);
    const answeredMs = Date.now() - t0;
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    accepted = r.body;
    // the answer does not wait for parsing or embedding
    expect(answeredMs).toBeLessThan(5000);
    expect(accepted).toHaveLength(files.length);
    const done = await settle(
      c,
      accepted.map((d) => d.id),
    );
    settled = byName([...done.values()]);
  });

  test("answers 202 at once with a DocumentOut per file; good files are queued", () => {
    for (const d of accepted) {
      expect(d).toMatchObject({ data_source_id: source.id, source_type: "upload" });
      expect(typeof d.id).toBe("string");
      expect(typeof d.title).toBe("string");
      expect(new Date(d.created_at).toISOString()).toBe(d.created_at);
      expect(d).toHaveProperty("error");
    }
    const status = Object.fromEntries(accepted.map((d) => [d.source, d.status]));
    for (const n of ["notes.txt", "guide.md", "volcano.html", "report.pdf", "handbook.docx", "animals.csv", "product.json"]) {
      expect(status[n], n).toBe("queued");
    }
    // the unsupported file is refused at once, with the 415 wording, without failing the batch
    const png = accepted.find((d) => d.source === "photo.png");
    expect(png.status).toBe("failed");
    expect(png.error).toMatch(/not a supported file type/);
    expect(png.error).toMatch(/Supported: .*PDF.*Word.*HTML.*Markdown.*text.*CSV.*JSON/);
  });

  test("every good file ends indexed; the corrupt DOCX ends failed with an actionable error", () => {
    for (const n of ["notes.txt", "guide.md", "volcano.html", "report.pdf", "handbook.docx", "animals.csv", "product.json"]) {
      const d = settled.get(n);
      expect(d.status, `${n}: ${d.error}`).toBe("indexed");
      expect(d.error).toBeNull();
      expect(d.chunk_count).toBeGreaterThan(0);
    }
    const broken = settled.get("broken.docx");
    expect(broken.status).toBe("failed");
    expect(broken.error).toMatch(/docx/i);
    expect(broken.error).toMatch(/corrupt|damaged|invalid|not a valid/i);
    expect(broken.error).toMatch(/upload|save/i);
    expect(settled.get("photo.png").status).toBe("failed");
  });

  test("titles come from the content where it has one", () => {
    expect(settled.get("guide.md").title).toBe("Field Guide");
    expect(settled.get("volcano.html").title).toBe("Volcano Notes");
    expect(settled.get("report.pdf").title).toBe("Ocean Report");
    expect(settled.get("handbook.docx").title).toBe("Harbor Handbook");
    expect(settled.get("notes.txt").title).toBe("notes");
  });

  test("Markdown chunks carry the exact nested heading paths, positions 0..n-1, text and token counts", async () => {
    const d = settled.get("guide.md");
    const list = await chunksOf(c, d.id);
    expect(list.document_id).toBe(d.id);
    expect(list.total).toBe(MARKDOWN_PATHS.length);
    expect(list.chunks.map((ch: any) => ch.heading_path)).toEqual(MARKDOWN_PATHS);
    expect(list.chunks.map((ch: any) => ch.position)).toEqual(MARKDOWN_PATHS.map((_, i) => i));
    expect(list.chunks[2].text).toBe("Herons stand still in shallow water and strike fast.");
    expect(list.chunks[5].text).toBe("Beavers build dams from branches and mud.");
    for (const ch of list.chunks) {
      expect(ch.document_id).toBe(d.id);
      expect(ch.token_count).toBeGreaterThan(0);
      expect(ch.token_count).toBeLessThan(40);
      expect(ch.text).not.toMatch(/^#/m); // headings are in heading_path, not in the text
      expect(typeof ch.id).toBe("string");
    }
    expect(d.chunk_count).toBe(list.total);
  });

  test("PDF chunks carry page numbers in metadata; DOCX and HTML keep their headings", async () => {
    const pdf = await chunksOf(c, settled.get("report.pdf").id);
    expect(pdf.chunks.length).toBeGreaterThanOrEqual(2);
    const tides = pdf.chunks.find((ch: any) => ch.text.includes("Tides rise"));
    const currents = pdf.chunks.find((ch: any) => ch.text.includes("Ocean currents"));
    expect(tides.metadata.pages).toEqual([1]);
    expect(currents.metadata.pages).toEqual([2]);
    expect(currents.heading_path).toEqual(["Currents"]);
    const docx = await chunksOf(c, settled.get("handbook.docx").id);
    expect(docx.chunks.find((ch: any) => ch.text.includes("life jacket")).heading_path).toEqual(["Safety"]);
    const html = await chunksOf(c, settled.get("volcano.html").id);
    expect(html.chunks.find((ch: any) => ch.text.includes("Shield volcanoes")).heading_path).toEqual(["Types"]);
    const csv = await chunksOf(c, settled.get("animals.csv").id);
    expect(csv.chunks.map((ch: any) => ch.text).join("\n")).toMatch(/otter/);
    const json = await chunksOf(c, settled.get("product.json").id);
    expect(json.chunks.map((ch: any) => ch.text).join("\n")).toMatch(/lantern/);
  });

  test("every indexed chunk has exactly one lexical row and one vector row", async () => {
    const ids = await chunkIdsOf(c, [...settled.values()].map((d) => d.id));
    const total = [...settled.values()].reduce((n, d) => n + d.chunk_count, 0);
    expect(ids.length).toBe(total);
    expect(await indexRows(c, ids)).toEqual({ chunks: total, fts: total, vec: total });
  });

  test("the source reports indexed vs total, ready, and when it last synced", async () => {
    const s = (await c.call("GET", `/data-sources/${source.id}`)).body;
    expect(s).toMatchObject({ document_count: 9, indexed_count: 7, status: "ready" });
    expect(s.failed_count).toBe(2);
    expect(Date.parse(s.last_synced_at)).toBeGreaterThanOrEqual(Date.parse(s.created_at));
  });
});

describe("documents", () => {
  test("GET /documents: most recent first, filters by source and collection, 404 for unknown filters", async () => {
    const s1 = await createSource(c, "list-a");
    const s2 = await createSource(c, "list-b");
    const col = await createCollection(c, "list-col", [s2.id]);
    const [a] = await uploadAndSettle(c, s1.id, [{ name: "first.txt", data: "first file" }]);
    await sleep(5);
    const [b] = await uploadAndSettle(c, s2.id, [{ name: "second.txt", data: "second file" }]);
    const all = (await c.call("GET", "/documents")).body;
    const ia = all.findIndex((d: any) => d.id === a.id);
    const ib = all.findIndex((d: any) => d.id === b.id);
    expect(ia).toBeGreaterThan(ib);
    expect(ib).toBeGreaterThanOrEqual(0);
    expect((await c.call("GET", `/documents?data_source_id=${s1.id}`)).body.map((d: any) => d.id)).toEqual([a.id]);
    expect((await c.call("GET", `/documents?collection_id=${col.id}`)).body.map((d: any) => d.id)).toEqual([b.id]);
    expect((await c.call("GET", `/documents?collection_id=${col.id}&data_source_id=${s1.id}`)).body).toEqual([]);
    expectDetail(await c.call("GET", "/documents?data_source_id=src_missing"), 404, "src_missing");
    expectDetail(await c.call("GET", "/documents?collection_id=col_missing"), 404, "col_missing");
    const one = await c.call("GET", `/documents/${a.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: a.id, data_source_id: s1.id, title: "first", source: "first.txt", source_type: "upload", status: "indexed", error: null });
    expectDetail(await c.call("GET", "/documents/doc_missing"), 404, "doc_missing");
  });

  test("GET /documents answers the 200 most recent only", async () => {
    const s = await createSource(c, "many");
    // unsupported files become failed documents at once (no ingest work), one good file per batch
    const batch = (tag: string, n: number) => [
      { name: `${tag}-good.txt`, data: `good ${tag}` },
      ...Array.from({ length: n }, (_, i) => ({ name: `${tag}-${i}.xlsx`, data: "not really a sheet" })),
    ];
    const r1 = await upload(c, s.id, batch("old", 99));
    expect(r1.status).toBe(202);
    await sleep(5);
    const r2 = await upload(c, s.id, batch("mid", 99));
    await sleep(5);
    const r3 = await upload(c, s.id, batch("new", 9));
    expect(r2.status).toBe(202);
    expect(r3.status).toBe(202);
    const list = (await c.call("GET", `/documents?data_source_id=${s.id}`)).body;
    expect(list).toHaveLength(200);
    const ids = new Set(list.map((d: any) => d.id));
    for (const d of [...r3.body, ...r2.body]) expect(ids.has(d.id)).toBe(true);
    expect(r1.body.filter((d: any) => ids.has(d.id))).toHaveLength(200 - r3.body.length - r2.body.length);
    expect((await c.call("GET", "/documents")).body).toHaveLength(200);
    expect((await c.call("GET", `/data-sources/${s.id}`)).body.document_count).toBe(210);
    await settle(c, [r1.body[0].id, r2.body[0].id, r3.body[0].id]);
    expect((await c.call("DELETE", `/data-sources/${s.id}`)).status).toBe(204);
  });

  test("GET /documents/{id}/chunks: limit defaults to 20, total is the full count, limit is validated", async () => {
    const s = await createSource(c, "long");
    const md = ["# Long", ...Array.from({ length: 25 }, (_, i) => `## Section ${i}\n\nParagraph number ${i} of the long document.`)].join("\n\n");
    const [d] = await uploadAndSettle(c, s.id, [{ name: "long.md", data: md }]);
    expect(d.status).toBe("indexed");
    const dflt = await c.call("GET", `/documents/${d.id}/chunks`);
    expect(dflt.status).toBe(200);
    expect(dflt.body.total).toBe(25);
    expect(dflt.body.chunks).toHaveLength(20);
    expect(dflt.body.chunks.map((ch: any) => ch.position)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(dflt.body.chunks[7].heading_path).toEqual(["Section 7"]);
    const five = await c.call("GET", `/documents/${d.id}/chunks?limit=5`);
    expect(five.body.chunks).toHaveLength(5);
    expect((await c.call("GET", `/documents/${d.id}/chunks?limit=100`)).body.chunks).toHaveLength(25);
    expect422(await c.call("GET", `/documents/${d.id}/chunks?limit=0`), "query", "limit");
    expect422(await c.call("GET", `/documents/${d.id}/chunks?limit=abc`), "query", "limit");
    // a document that is not indexed has no chunks yet (or any more)
    const [f] = await uploadAndSettle(c, s.id, [
      { name: "bad.docx", data: "plain words" },
      { name: "companion.txt", data: "a good file keeps the batch accepted" },
    ]);
    expect(f.status).toBe("failed");
    expect((await c.call("GET", `/documents/${f.id}/chunks`)).body).toMatchObject({ total: 0, chunks: [] });
  });

  test("re-uploading the same file name into the same source replaces the document (same id, no duplicate, new chunks)", async () => {
    const s = await createSource(c, "replace");
    const other = await createSource(c, "replace-elsewhere");
    const [first] = await uploadAndSettle(c, s.id, [{ name: "guide.md", data: MARKDOWN }]);
    const oldChunks = await chunkIdsOf(c, [first.id]);
    const r = await upload(c, s.id, [{ name: "guide.md", data: "# Field Guide\n\n## Reptiles\n\nLizards bask on warm rocks." }]);
    expect(r.status).toBe(202);
    expect(r.body).toHaveLength(1);
    expect(r.body[0].id).toBe(first.id);
    expect(r.body[0].status).toBe("queued");
    expect(r.body[0].created_at).toBe(first.created_at);
    const done = (await settle(c, [first.id])).get(first.id);
    expect(done.status).toBe("indexed");
    const docs = (await c.call("GET", `/documents?data_source_id=${s.id}`)).body;
    expect(docs.map((d: any) => d.id)).toEqual([first.id]);
    const ch = await chunksOf(c, first.id);
    expect(ch.chunks.map((x: any) => [x.heading_path, x.text])).toEqual([[["Reptiles"], "Lizards bask on warm rocks."]]);
    expect(await indexRows(c, oldChunks)).toEqual({ chunks: 0, fts: 0, vec: 0 });
    const newChunks = await chunkIdsOf(c, [first.id]);
    expect(await indexRows(c, newChunks)).toEqual({ chunks: 1, fts: 1, vec: 1 });
    // same name in another source is another document
    const [elsewhere] = await uploadAndSettle(c, other.id, [{ name: "guide.md", data: MARKDOWN }]);
    expect(elsewhere.id).not.toBe(first.id);
    expect((await c.call("GET", `/data-sources/${s.id}`)).body.document_count).toBe(1);
  });

  test("a re-upload that fails replaces the old content too: no stale chunks, index rows or file stay behind", async () => {
    const s = await createSource(c, "replace-bad");
    const col = await createCollection(c, "replace-bad", [s.id]);
    const good = await makeDocx();
    const [docx, md] = await uploadAndSettle(c, s.id, [
      { name: "handbook.docx", data: good },
      { name: "guide.md", data: MARKDOWN },
    ]);
    expect([docx.status, md.status]).toEqual(["indexed", "indexed"]);
    const oldChunks = await chunkIdsOf(c, [docx.id, md.id]);
    const search = async (q: string) =>
      (await c.call("POST", "/search", { collection_id: col.id, query: q })).body.results.map((h: any) => h.document_id);
    expect(await search("life jacket pontoons")).toContain(docx.id);
    // the new handbook.docx is corrupt (fails while parsing); the new guide.md is not a text file at all (fails at once)
    const r = await upload(c, s.id, [
      { name: "handbook.docx", data: good.subarray(0, Math.floor(good.length / 2)) },
      { name: "guide.md", data: Buffer.alloc(512, 0) },
    ]);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.map((d: any) => d.id)).toEqual([docx.id, md.id]);
    const done = await settle(c, [docx.id, md.id]);
    for (const d of done.values()) {
      expect(d.status, d.source).toBe("failed");
      expect(d.error, d.source).toBeTruthy();
      expect((await chunksOf(c, d.id)).total, d.source).toBe(0);
    }
    expect(await indexRows(c, oldChunks)).toEqual({ chunks: 0, fts: 0, vec: 0 });
    expect(await search("life jacket pontoons")).not.toContain(docx.id);
    expect(await search("kingfishers dive for fish")).not.toContain(md.id);
    // the old bytes of the refused guide.md are not kept either
    expect(await storedFile(c.s, c.tenantId, md.id)).toBeNull();
    expect((await c.call("GET", `/collections/${col.id}`)).body).toMatchObject({ document_count: 2, indexed_count: 0 });
  });

  test("a re-upload while the earlier version is still being indexed: the newer file wins", async () => {
    const s = await createSource(c, "replace-racing");
    // a slow first version: many sections, so parsing, chunking and embedding take a while. The
    // re-upload must land while it is processing; when a fast machine indexed it between two polls,
    // a version ten times larger is uploaded (it replaces the indexed one) until one is caught.
    let id = "";
    for (const sections of [40, 400, 4000]) {
      const slow = Array.from({ length: sections }, (_, i) => `## Old section ${i}\n\nThe old version says ${"stale words again ".repeat(20)}${i}.`).join("\n\n");
      const r1 = await upload(c, s.id, [{ name: "race.md", data: `# Race\n\n${slow}` }]);
      expect(r1.status).toBe(202);
      id = r1.body[0].id;
      let status = "";
      const seen = await waitFor(
        async () => {
          status = (await c.call("GET", `/documents/${id}`)).body.status;
          return status === "processing" || status === "indexed" ? status : false;
        },
        "the first version to be processing or indexed",
        30_000,
        10,
      ).catch(async (err: Error) => {
        throw new Error(`${err.message}; its status stayed ${status}, with ${await c.s.rt.queue.pending()} jobs pending`);
      });
      if (seen === "processing") break;
      expect(sections, "the first version was indexed between two polls even at 4,000 sections").toBeLessThan(4000);
    }
    const r2 = await upload(c, s.id, [{ name: "race.md", data: "# Race\n\nThe new version is short and fresh." }]);
    expect(r2.status).toBe(202);
    expect(r2.body[0].id).toBe(id);
    // wait until no job for the document is left, whichever order they ran in
    await waitFor(
      async () => {
        // the queue's own count: its jobs live in the database or in Redis
        return (await c.s.rt.queue.pending()) === 0 && (await c.call("GET", `/documents/${id}`)).body.status === "indexed";
      },
      "both versions to be processed",
      60_000,
      100,
    );
    const ch = await chunksOf(c, id);
    expect(ch.chunks.map((x: any) => x.text)).toEqual(["The new version is short and fresh."]);
    const t = await tableCounts(c);
    expect(t.fts).toBe(t.chunks);
  });

  test("the same file name twice in one batch: one document, the later file wins", async () => {
    const s = await createSource(c, "twins");
    const r = await upload(c, s.id, [
      { name: "twin.txt", data: "the earlier twin talks about apples" },
      { name: "twin.txt", data: "the later twin talks about oranges" },
      { name: "single.txt", data: "a single file" },
    ]);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const ids = [...new Set<string>(r.body.map((d: any) => d.id))];
    expect(r.body).toHaveLength(2);
    await settle(c, ids);
    const docs = (await c.call("GET", `/documents?data_source_id=${s.id}`)).body;
    expect(docs.map((d: any) => d.source).sort()).toEqual(["single.txt", "twin.txt"]);
    const twin = docs.find((d: any) => d.source === "twin.txt");
    expect(twin.status).toBe("indexed");
    expect((await chunksOf(c, twin.id)).chunks.map((x: any) => x.text).join(" ")).toContain("oranges");
  });
});

describe("progress", () => {
  test("statuses move queued -> processing -> indexed; the source shows syncing, then ready with last_synced_at", async () => {
    const s = await createSource(c, "progress");
    const topics = ["rivers", "mountains", "deserts", "forests", "oceans", "glaciers", "islands", "valleys"];
    const files = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => ({
        name: `book-${i}.pdf`,
        data: await makePdf(
          topics.map((t, p) => ({ heading: `About ${t}`, body: `Book ${"abcdef"[i]} describes ${t} with ${topics[(p + i) % topics.length]} nearby.` })),
          `Book ${i}`,
        ),
      })),
    );
    const r = await upload(c, s.id, files);
    expect(r.status).toBe(202);
    const seen = new Map<string, string[]>(r.body.map((d: any) => [d.id, [d.status]]));
    const sourceStates: { status: string; indexed: number; total: number; synced: string | null }[] = [];
    await waitFor(
      async () => {
        const [docs, src] = await Promise.all([c.call("GET", `/documents?data_source_id=${s.id}`), c.call("GET", `/data-sources/${s.id}`)]);
        for (const d of docs.body) {
          const trail = seen.get(d.id)!;
          if (trail[trail.length - 1] !== d.status) trail.push(d.status);
        }
        sourceStates.push({ status: src.body.status, indexed: src.body.indexed_count, total: src.body.document_count, synced: src.body.last_synced_at });
        // on PostgreSQL the sync's end is written just after the last document's status (a
        // separate statement), so `ready` can be seen a moment before last_synced_at
        return docs.body.every((d: any) => d.status === "indexed") && src.body.status === "ready" && src.body.last_synced_at !== null;
      },
      "the batch to finish",
      60_000,
      15,
    );
    const order = ["queued", "processing", "indexed"];
    for (const [id, trail] of seen) {
      // each trail moves forward only
      const idx = trail.map((st) => order.indexOf(st));
      expect(idx.every((v, i) => v >= 0 && (i === 0 || v > idx[i - 1])), `${id}: ${trail.join(" -> ")}`).toBe(true);
      expect(trail[0]).toBe("queued");
      expect(trail[trail.length - 1]).toBe("indexed");
    }
    expect([...seen.values()].some((t) => t.includes("processing"))).toBe(true);
    // the source: syncing while documents are pending, counts grow, ready at the end
    expect(sourceStates[0].status).toBe("syncing");
    expect(sourceStates.every((st) => st.total === 6)).toBe(true);
    const indexedSeq = sourceStates.map((st) => st.indexed);
    expect(indexedSeq.every((v, i) => i === 0 || v >= indexedSeq[i - 1])).toBe(true);
    expect(sourceStates.some((st) => st.indexed > 0 && st.indexed < 6)).toBe(true);
    for (const st of sourceStates) if (st.indexed < st.total) expect(st.status).toBe("syncing");
    const last = sourceStates[sourceStates.length - 1];
    expect(last).toMatchObject({ status: "ready", indexed: 6, total: 6 });
    expect(last.synced).toBeTypeOf("string");
  });

  test("a batch whose only file fails to parse still ends the sync: ready, with last_synced_at set", async () => {
    const s = await createSource(c, "only-broken");
    const [d] = await uploadAndSettle(c, s.id, [{ name: "truncated.pdf", data: Buffer.from("%PDF-1.7\n1 0 obj\n<<") }]);
    expect(d.status).toBe("failed");
    expect(d.error).toMatch(/pdf/i);
    const src = (await c.call("GET", `/data-sources/${s.id}`)).body;
    expect(src).toMatchObject({ status: "ready", document_count: 1, indexed_count: 0 });
    expect(src.last_synced_at).toBeTypeOf("string");
  });
});

describe("reindex", () => {
  test("POST /data-sources/{id}/reindex and POST /reindex answer 202 with a count; documents return to indexed with the same chunks", async () => {
    const s = await createSource(c, "reindex");
    const docs = await uploadAndSettle(c, s.id, [
      { name: "guide.md", data: MARKDOWN },
      { name: "notes.txt", data: "Reindexing keeps the same words in the same order." },
    ]);
    const snapshot = async () =>
      Promise.all(docs.map(async (d) => (await chunksOf(c, d.id)).chunks.map((x: any) => ({ position: x.position, heading_path: x.heading_path, text: x.text, token_count: x.token_count, metadata: x.metadata }))));
    const before = await snapshot();
    const beforeIds = await chunkIdsOf(c, docs.map((d) => d.id));
    const updated = async () => Promise.all(docs.map(async (d) => (await c.call("GET", `/documents/${d.id}`)).body));
    const stamp = (await updated()).map((d) => d.updated_at);

    const r = await c.call("POST", `/data-sources/${s.id}/reindex`);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({ documents: 2 });
    expect(typeof r.body.status).toBe("string");
    expect(typeof r.body.embedding_profile).toBe("string");
    await waitFor(
      async () => {
        const now = await updated();
        // indexed lexically first, then embedded by the backfill
        return now.every((d, i) => d.status === "indexed" && d.updated_at > stamp[i] && d.chunks_pending_vectors === 0);
      },
      "the reindex to finish",
      30_000,
      50,
    );
    expect(await snapshot()).toEqual(before);
    const afterIds = await chunkIdsOf(c, docs.map((d) => d.id));
    expect(afterIds.length).toBe(beforeIds.length);
    expect(await indexRows(c, beforeIds)).toEqual({ chunks: 0, fts: 0, vec: 0 });
    expect(await indexRows(c, afterIds)).toEqual({ chunks: afterIds.length, fts: afterIds.length, vec: afterIds.length });

    const all = await c.call("POST", "/reindex");
    expect(all.status).toBe(202);
    const total = (await c.call("GET", "/data-sources")).body.reduce((n: number, x: any) => n + x.document_count, 0);
    expect(all.body.documents).toBe(total);
    const stamp2 = (await updated()).map((d) => d.updated_at);
    await waitFor(
      async () => (await updated()).every((d, i) => d.status === "indexed" && d.updated_at > stamp2[i] && d.chunks_pending_vectors === 0),
      "the workspace reindex to reach these documents",
      60_000,
      100,
    );
    // let the rest of the workspace settle, then everything is indexed once
    await waitFor(
      async () => (await c.call("GET", "/data-sources")).body.every((x: any) => x.status === "ready" && x.chunks_pending_vectors === 0),
      "all sources ready and embedded",
      60_000,
      100,
    );
    expect(await snapshot()).toEqual(before);
    const t = await tableCounts(c);
    expect(t.fts).toBe(t.chunks);
    expect(t.vec).toBe(t.chunks);
    expect(t.jobs).toBe(0);
  });
});
