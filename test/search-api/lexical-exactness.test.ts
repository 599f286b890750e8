// Issue 12 item 1 over HTTP (inject): BM25 statistics are each tenant's own and hold only live chunks.
// - Tenant B's scores for a fixed query are identical before, during and after tenant A uploads
//   and deletes 150 documents full of the query's words.
// - Load, delete, reload scores exactly like a fresh load, also after a restart (the in-memory
//   index is rebuilt from the database).
// The server runs without an embedding model (a profile whose model is absent, downloads off), so
// search answers lexically and the scores are BM25 itself; the engine is the one the API uses.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, createCollection, createSource, upload } from "../kit/index.js";

const LEXICAL_ONLY = { EMBEDDING_PROFILE: "bge-small-en-v1.5", ALLOW_MODEL_DOWNLOAD: "false", DEFAULT_PLAN: "enterprise" };
const QUERY = "glacier moraine erosion";

const WORDS = ["ice", "valley", "sediment", "rock", "melt", "flow", "snow", "summit", "ridge", "river", "basin", "climate"];
/** Deterministic small documents: some with the query's words, all with filler of varying length. */
function docs(prefix: string, n: number, seed: number, queryWords: boolean): { name: string; content: string }[] {
  let x = seed;
  const rand = () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  return Array.from({ length: n }, (_, i) => {
    const words: string[] = [];
    const len = 8 + Math.floor(rand() * 40);
    for (let k = 0; k < len; k++) words.push(WORDS[Math.floor(rand() * WORDS.length)]!);
    if (queryWords || i % 3 === 0) words.splice(Math.floor(rand() * words.length), 0, "glacier");
    if (queryWords || i % 4 === 0) words.push("moraine", "moraine");
    if (queryWords && i % 2) words.unshift("erosion");
    return { name: `${prefix}-${i}.md`, content: `# ${prefix} note ${i}\n\n${words.join(" ")}.\n` };
  });
}

/** Uploads in batches of 100 (the request limit); returns the document ids once all are indexed. */
async function uploadAll(s: TestServer, key: string, sourceId: string, files: { name: string; content: string }[]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < files.length; i += 100) {
    const r = await upload(s, key, sourceId, files.slice(i, i + 100));
    expect(r.status).toBe(202);
    ids.push(...(r.body as { id: string }[]).map((d) => d.id));
  }
  // the source's counts cover all its documents (GET /documents lists only the latest 200)
  const deadline = Date.now() + 120_000;
  for (;;) {
    const src = (await s.call("GET", `/data-sources/${sourceId}`, { key })).body;
    if (src.indexed_count + src.failed_count === src.document_count && src.status === "ready") {
      expect(src.indexed_count).toBe(files.length);
      return ids;
    }
    if (Date.now() > deadline) throw new Error(`still pending: ${JSON.stringify(src)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Every matching chunk as [file name, score], best first (ids differ between tenants; names do not). */
async function ranking(s: TestServer, key: string, collectionId: string): Promise<[string, number][]> {
  const r = await s.call("POST", "/search", { key, json: { collection_id: collectionId, query: QUERY, top_k: 50, collapse_documents: false } });
  expect(r.status).toBe(200);
  expect(r.body.mode).toBe("lexical");
  const docs = (await s.call("GET", "/documents", { key })).body as { id: string; source: string }[];
  const nameOf = new Map(docs.map((d) => [d.id, d.source]));
  return r.body.results.map((h: { document_id: string; score: number }) => [nameOf.get(h.document_id) ?? h.document_id, h.score]);
}

describe("per-tenant, exact BM25 statistics over HTTP", () => {
  let s: TestServer;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-lexical-"));
  beforeAll(async () => {
    s = await startServer(LEXICAL_ONLY, { dataDir, listen: false });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("tenant B's scores do not move while tenant A uploads and deletes 150 documents with the query's words", async () => {
    const b = await s.tenant("B");
    const srcB = await createSource(s, b.adminKey, "B notes");
    const colB = await createCollection(s, b.adminKey, [srcB]);
    await uploadAll(s, b.adminKey, srcB, docs("b", 30, 11, false));
    const before = await ranking(s, b.adminKey, colB);
    expect(before.length).toBeGreaterThan(10);

    const a = await s.tenant("A");
    const srcA = await createSource(s, a.adminKey, "A notes");
    const aDocs = await uploadAll(s, a.adminKey, srcA, docs("a", 150, 7, true));
    expect(aDocs).toHaveLength(150);
    expect(await ranking(s, b.adminKey, colB)).toEqual(before);
    // A's own search sees its 150 documents (the writes really reached the index)
    const colA = await createCollection(s, a.adminKey, [srcA]);
    expect((await ranking(s, a.adminKey, colA)).length).toBe(50);

    for (const id of aDocs) expect((await s.call("DELETE", `/documents/${id}`, { key: a.adminKey })).status).toBe(204);
    expect(await ranking(s, b.adminKey, colB)).toEqual(before);
  }, 90_000);

  it("load, delete, reload scores exactly like a fresh load, before and after a restart", async () => {
    const keep = docs("k", 25, 3, false);
    const extra = docs("x", 60, 5, true);
    // C: load keep + extra, delete everything, load keep again
    const c = await s.tenant("C");
    const srcC = await createSource(s, c.adminKey, "C first");
    await uploadAll(s, c.adminKey, srcC, [...keep, ...extra]);
    expect((await s.call("DELETE", `/data-sources/${srcC}`, { key: c.adminKey })).status).toBe(204);
    const srcC2 = await createSource(s, c.adminKey, "C again");
    const colC = await createCollection(s, c.adminKey, [srcC2]);
    await uploadAll(s, c.adminKey, srcC2, keep);
    // D: keep only, fresh
    const d = await s.tenant("D");
    const srcD = await createSource(s, d.adminKey, "D");
    const colD = await createCollection(s, d.adminKey, [srcD]);
    await uploadAll(s, d.adminKey, srcD, keep);

    const fresh = await ranking(s, d.adminKey, colD);
    expect(fresh.length).toBeGreaterThan(5);
    expect(await ranking(s, c.adminKey, colC)).toEqual(fresh);

    // a restart rebuilds the in-memory index from the database: same scores
    await s.close();
    s = await startServer(LEXICAL_ONLY, { dataDir, listen: false });
    expect(await ranking(s, c.adminKey, colC)).toEqual(fresh);
    expect(await ranking(s, d.adminKey, colD)).toEqual(fresh);
  }, 90_000);
});
