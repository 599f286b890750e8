// The SQLite store's HNSW graphs below the API: a process that dies before saving leaves its
// changes in the vector_changes log, and the next start replays them onto the saved graphs (no
// rebuild); deleting a source (chunks removed by cascade) takes its vectors out of the graphs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";

const DIM = 16;
const INDEX = "graph_test";
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-graphs-"));
let seed = 11;
const rnd = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 4294967296) * 2 - 1;
const vec = () => Float32Array.from({ length: DIM }, rnd);
const QUERIES = Array.from({ length: 12 }, vec);

async function addDocs(store: SqliteStore, sourceId: string, from: number, n: number): Promise<string[]> {
  const docs = Array.from({ length: n }, (_, i) => ({
    id: `doc_${sourceId}_${from + i}`,
    source: `${from + i}.txt`,
    title: `doc ${from + i}`,
    source_type: "upload",
    kind: "text",
    content_type: "text/plain",
    size_bytes: 1,
    content_hash: "x",
    metadata: {},
  }));
  const rows = await store.content.upsertDocuments("ten_graphs", sourceId, docs, null);
  for (const row of rows) {
    const chunks = Array.from({ length: 3 }, (_, p) => ({ position: p, text: `chunk ${p}`, heading_path: [], token_count: 2, metadata: {} }));
    await store.content.replaceDocumentIndex("ten_graphs", row.id, { title: row.title, metadata: {} }, chunks, { indexName: INDEX, values: chunks.map(vec) });
  }
  return rows.map((r) => r.id);
}

/**
 * The graphs' answers next to sqlite-vec's exact ones for the same queries and sources. HNSW is
 * approximate (random 16-d vectors are its hard case, and graph builds on several threads are
 * not deterministic), so the bar is recall@10 over the queries, not equal lists; vectors lost by
 * a missed replay or a missed delete would take a tenth or more of the answers away.
 */
async function compare(store: SqliteStore, exact: SqliteStore, sources: string[]) {
  let found = 0;
  let wanted = 0;
  for (const q of QUERIES) {
    const got = new Map((await store.content.vectorSearch(INDEX, "ten_graphs", sources, q, 10)).map((h) => [h.chunkId, h.score]));
    const want = await exact.content.vectorSearch(INDEX, "ten_graphs", sources, q, 10);
    wanted += want.length;
    for (const h of want) {
      if (!got.has(h.chunkId)) continue;
      found++;
      // the graphs hold f16 vectors (the default): their distances are within ~1e-4 of the exact ones
      expect(Math.abs(got.get(h.chunkId)! - h.score)).toBeLessThan(5e-4);
    }
  }
  expect(found / wanted).toBeGreaterThanOrEqual(0.95);
}

describe("HNSW graphs of the SQLite store", () => {
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it("replays the change log after a crash, follows cascading deletes, and filters by source inside the search", async () => {
    const first = openSqliteStore(dataDir);
    first.db.prepare("INSERT INTO tenants (id, name, slug, created_at) VALUES ('ten_graphs', 'G', 'g', ?)").run(new Date().toISOString());
    for (const s of ["src_a", "src_b"]) {
      first.db.prepare("INSERT INTO data_sources (id, tenant_id, name, source_type, created_at) VALUES (?, 'ten_graphs', ?, 'upload', ?)").run(s, s, new Date().toISOString());
    }
    await first.content.ensureVectorIndex(INDEX, DIM);
    await addDocs(first, "src_a", 0, 60);
    await addDocs(first, "src_b", 0, 10);
    await first.close(); // saves both graphs

    // a process that adds 40 documents and dies without saving
    const crashed = openSqliteStore(dataDir);
    await crashed.content.ensureVectorIndex(INDEX, DIM);
    expect(await crashed.content.vectorIndexStatus(INDEX)).toMatchObject({ partitions: 2, vectors: 210, building: 0 });
    await addDocs(crashed, "src_a", 60, 40);
    crashed.db.close();

    const next = openSqliteStore(dataDir);
    await next.content.ensureVectorIndex(INDEX, DIM);
    // loaded and replayed at open: nothing to build
    expect(await next.content.vectorIndexStatus(INDEX)).toMatchObject({ partitions: 2, vectors: 330, building: 0, behind: 0 });
    const exact = openSqliteStore(dataDir, { vectorIndex: "exact" });
    await compare(next, exact, ["src_b"]);
    await compare(next, exact, ["src_a", "src_b"]);
    const onlyB = await next.content.vectorSearch(INDEX, "ten_graphs", ["src_b"], QUERIES[0], 100);
    expect(onlyB).toHaveLength(30); // all of src_b, none of src_a's 300 nearer chunks

    // deleting the source (its chunks go by cascade) reaches the graphs through the log
    expect(await next.content.deleteSource("ten_graphs", "src_b")).toHaveLength(10);
    expect(await next.content.vectorSearch(INDEX, "ten_graphs", ["src_b"], QUERIES[0], 10)).toEqual([]);
    expect((await next.content.vectorIndexStatus(INDEX)).vectors).toBe(300);
    await compare(next, exact, ["src_a", "src_b"]);
    await exact.close();
    await next.close();
    expect(fs.existsSync(path.join(dataDir, "vectors", INDEX, "ten_graphs", "src_a.usearch"))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, "vectors", INDEX, "ten_graphs", "src_b.usearch"))).toBe(false);
  });
});
