// The HNSW vector index and lexical-first indexing, over HTTP (inject) with the real model: documents
// are lexically searchable while their vectors are pending (and say so), the graphs answer like
// exact search (sqlite-vec, VECTOR_INDEX=exact) on the same data, with a collection filter inside
// the search, and a restart with the saved graphs behind or missing repairs them.
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, createCollection, createSource, upload, waitIndexed } from "../kit/index.js";
import { DEFAULT_ENGINE_SETTINGS } from "../../src/search/engine.js";
import { GRAPH_BUILD } from "../../src/store/sqlite/content/ann-graph.js";

const SENTENCES = [
  "The lighthouse keeper trimmed the wick every evening before the storm arrived.",
  "Sourdough needs a lively starter, a long cold proof and a very hot oven.",
  "Glaciers carve U-shaped valleys as they grind slowly down the mountainside.",
  "A binary heap keeps the smallest element at the root of the tree.",
  "The violinist tuned the A string first and then the others by fifths.",
  "Tomato seedlings grow leggy when they get too little light indoors.",
  "Interest rates rose again, and mortgage applications fell sharply.",
  "The marathon route follows the river before climbing to the old castle.",
  "Octopuses change colour with chromatophores controlled by their nerves.",
  "Compilers turn source code into machine instructions in several passes.",
  "The museum reopened its gallery of medieval tapestries after restoration.",
  "Bees communicate the direction of flowers through a waggle dance.",
  "A leaking faucet is usually fixed by replacing the worn washer.",
  "The orchestra rehearsed the symphony's slow movement twice on Tuesday.",
  "Volcanic soil is rich in minerals, which is why vineyards thrive there.",
  "Password managers generate long random secrets for every website.",
];

/** a small document about three of the sentences' topics, with a unique marker word */
function doc(i: number): string {
  const s = (k: number) => SENTENCES[(i * 5 + k * 7) % SENTENCES.length];
  return `# Note ${i}\n\n${s(0)} ${s(1)}\n\n## More\n\n${s(2)} Marker word vqmark${i}z.\n`;
}

const QUERIES = ["how do bees tell others where flowers are", "baking bread at home", "fixing a dripping tap", "sorting data structures", "mountain ice and valleys"];

describe("vector index (HNSW) and lexical-first indexing", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-vector-index-"));
  const vectorsDir = path.join(dataDir, "vectors");
  let s: TestServer | null = null;
  let key: string;
  let tenantId: string;
  let srcA: string;
  let srcB: string;
  let colAll: string;
  let colB: string;
  let expected: Awaited<ReturnType<typeof answers>> | null = null;

  async function start(env: Record<string, string> = {}): Promise<TestServer> {
    s = await startServer(env, { dataDir, listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    return s;
  }
  async function stop(): Promise<void> {
    await s?.close();
    s = null;
  }

  /** what a client sees: HTTP hybrid results, plus the engine's vector-only ranking of each collection */
  async function answers(server: TestServer) {
    const out: unknown[] = [];
    for (const q of QUERIES) {
      for (const [col, sources] of [
        [colAll, [srcA, srcB]],
        [colB, [srcB]],
      ] as const) {
        const r = await server.call("POST", "/search", { key, json: { collection_id: col, query: q, top_k: 10, collapse_documents: false } });
        expect(r.status).toBe(200);
        const vec = await server.rt.engine.rank(tenantId, [...sources], q, DEFAULT_ENGINE_SETTINGS, "vector");
        out.push({
          q,
          col,
          http: r.body.results.map((h: any) => [h.chunk_id, h.score]),
          vector: vec.ranked.map((x) => [x.chunk.id, x.score, x.chunk.data_source_id]),
        });
      }
    }
    return out;
  }

  // The graphs hold f16 vectors (VECTOR_QUANTIZATION default): a distance differs from the exact
  // one by ~1e-4, so two chunks whose exact scores are that close may swap places. Anything more is
  // a disagreement.
  const TOLERANCE = 1e-3;

  /** same chunks in the same order up to near-ties, and each chunk's score within the tolerance */
  function expectSameAnswers(got: unknown[], want: unknown[]): void {
    type Answer = { q: string; col: string; http: [string, number][]; vector: [string, number, string][] };
    expect(got.length).toBe(want.length);
    (got as Answer[]).forEach((g, i) => {
      const w = want[i] as Answer;
      expect([g.q, g.col]).toEqual([w.q, w.col]);
      expectSameRanking(g.http, w.http, `${g.q} in ${g.col} over HTTP`);
      expectSameRanking(g.vector, w.vector, `${g.q} in ${g.col}, vector ranking`);
    });
  }

  function expectSameRanking(got: [string, number, ...unknown[]][], want: [string, number, ...unknown[]][], what: string): void {
    expect(got.length, what).toBe(want.length);
    const wanted = new Map(want.map(([id, score]) => [id, score]));
    got.forEach(([id, score], i) => {
      // at each rank: the chunk the exact search put there, or one it scored as good as that one
      const exactScore = wanted.get(id);
      expect(exactScore, `${what}: ${id} at ${i + 1} is not in the exact answer`).toBeDefined();
      expect(Math.abs(exactScore! - want[i][1]), `${what}: ${id} at ${i + 1} instead of ${want[i][0]}`).toBeLessThan(TOLERANCE);
      expect(Math.abs(score - exactScore!), `${what}: score of ${id}`).toBeLessThan(TOLERANCE);
    });
  }

  async function health(server: TestServer) {
    return (await server.call("GET", "/health")).body.vectors as {
      chunks_pending_vectors: number;
      kind: string;
      partitions: number;
      vectors: number;
      building: number;
      behind: number;
    };
  }

  /** the graphs hold every stored vector: nothing building, nothing behind */
  async function waitGraphs(server: TestServer, vectors: number): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const h = await health(server);
      if (h.building === 0 && h.behind === 0 && h.vectors === vectors) return;
      if (Date.now() > deadline) throw new Error(`graphs not ready: ${JSON.stringify(h)}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  async function chunkTotal(server: TestServer): Promise<number> {
    let n = 0;
    for (const src of [srcA, srcB]) for (const d of await waitIndexed(server, key, src)) n += d.chunk_count;
    return n;
  }

  beforeAll(async () => {
    const first = await start();
    const t = await first.tenant();
    key = t.adminKey;
    tenantId = t.id;
    srcA = await createSource(first, key, "A");
    srcB = await createSource(first, key, "B");
    colAll = await createCollection(first, key, [srcA, srcB], "All");
    colB = await createCollection(first, key, [srcB], "Only B");
  }, 120_000);

  afterAll(async () => {
    await stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("finds a document lexically while its vectors are pending, and reports the backlog until it is done", async () => {
    const server = s!;
    await server.rt.backfill.stop(); // no vectors in this process: they come after the restart
    expect((await upload(server, key, srcA, Array.from({ length: 24 }, (_, i) => ({ name: `a${i}.md`, content: doc(i) })))).status).toBe(202);
    expect((await upload(server, key, srcB, Array.from({ length: 6 }, (_, i) => ({ name: `b${i}.md`, content: doc(100 + i) })))).status).toBe(202);
    const docs = await waitIndexed(server, key, srcA, 60_000, { vectors: false });
    await waitIndexed(server, key, srcB, 60_000, { vectors: false });
    const a7 = docs.find((d) => d.source === "a7.md");
    expect(a7.status).toBe("indexed");
    expect(a7.chunks_pending_vectors).toBe(a7.chunk_count);
    expect(a7.chunk_count).toBeGreaterThan(0);
    const source = (await server.call("GET", `/data-sources/${srcA}`, { key })).body;
    expect(source.chunks_pending_vectors).toBe(docs.reduce((n, d) => n + d.chunk_count, 0));
    expect((await health(server)).chunks_pending_vectors).toBeGreaterThanOrEqual(source.chunks_pending_vectors);

    const r = await server.call("POST", "/search", { key, json: { collection_id: colAll, query: "vqmark7z", top_k: 3 } });
    expect(r.status).toBe(200);
    expect(r.body.results[0].document_id).toBe(a7.id);

    // a restart runs the backfill: the same statuses count down to 0
    await stop();
    const second = await start();
    const after = await waitIndexed(second, key, srcA);
    expect(after.every((d) => d.chunks_pending_vectors === 0)).toBe(true);
    expect((await second.call("GET", `/data-sources/${srcA}`, { key })).body.chunks_pending_vectors).toBe(0);
    await waitIndexed(second, key, srcB);
    expect((await health(second)).chunks_pending_vectors).toBe(0);
  }, 240_000);

  it("answers from the graphs like exact search (up to f16 near-ties), with the collection filter inside the search", async () => {
    const server = s!;
    const total = await chunkTotal(server);
    await waitGraphs(server, total);
    const h = await health(server);
    expect(h.kind).toMatch(/^hnsw \(usearch, M 16, ef 256, f16\)/);
    expect(h.partitions).toBe(2); // one graph per data source of the tenant
    const viaGraphs = await answers(server);
    // the filtered collection only ever returns its own source, and all of it (6 small docs)
    for (const a of viaGraphs as { col: string; vector: [string, string, string][] }[]) {
      if (a.col === colB) {
        expect(a.vector.length).toBeGreaterThan(0);
        expect(a.vector.every((v) => v[2] === srcB)).toBe(true);
      }
    }
    await stop();
    expect(fs.readdirSync(path.join(vectorsDir)).length).toBeGreaterThan(0); // saved on close

    const exact = await start({ VECTOR_INDEX: "exact" });
    expect((await health(exact)).kind).toMatch(/^exact/);
    expected = await answers(exact);
    expectSameAnswers(viaGraphs, expected);
    await stop();
  }, 240_000);

  it("repairs graphs that are behind the data, and rebuilds missing ones, answering the same", async () => {
    // keep the current graphs, then change the data: more documents, one deleted
    const old = `${vectorsDir}-old`;
    fs.cpSync(vectorsDir, old, { recursive: true });
    const server = await start();
    expect((await upload(server, key, srcB, Array.from({ length: 4 }, (_, i) => ({ name: `b-new${i}.md`, content: doc(200 + i) })))).status).toBe(202);
    const bDocs = await waitIndexed(server, key, srcB);
    expect((await server.call("DELETE", `/documents/${bDocs.find((d) => d.source === "b0.md").id}`, { key })).status).toBe(204);
    const total = await chunkTotal(server);
    await waitGraphs(server, total);
    const current = await answers(server);
    await stop();
    const exact = await start({ VECTOR_INDEX: "exact" });
    expectSameAnswers(current, await answers(exact));
    await stop();

    // graphs from before the change: repaired at start
    fs.rmSync(vectorsDir, { recursive: true, force: true });
    fs.renameSync(old, vectorsDir);
    // a smaller candidate list (VECTOR_EF_SEARCH) answers a small collection the same: a search
    // always asks for at least the depth it ranks
    const behind = await start({ VECTOR_EF_SEARCH: "40" });
    expect((await health(behind)).kind).toContain("ef 40");
    await waitGraphs(behind, total);
    expectSameAnswers(await answers(behind), current);
    await stop();

    // graphs saved by an older insertion rule (two threads, ann-graph.ts) may hold a stranded
    // vector: rebuilt at start, not trusted, and saved again under the current rule
    const manifests = () => fs.readdirSync(vectorsDir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json")).map((f) => path.join(vectorsDir, f));
    expect(manifests().length).toBe(2);
    const graphFile = (manifest: string) => manifest.replace(/\.json$/, ".usearch");
    const inodes = new Map<string, number>();
    for (const f of manifests()) {
      const { build: _, ...older } = JSON.parse(fs.readFileSync(f, "utf8"));
      fs.writeFileSync(f, JSON.stringify(older));
      inodes.set(f, fs.statSync(graphFile(f)).ino);
    }
    const olderRule = await start();
    await waitGraphs(olderRule, total);
    expectSameAnswers(await answers(olderRule), current);
    await stop();
    for (const f of manifests()) {
      expect(JSON.parse(fs.readFileSync(f, "utf8")).build, f).toBe(GRAPH_BUILD);
      expect(fs.statSync(graphFile(f)).ino, `${f}: graph file written anew`).not.toBe(inodes.get(f));
    }

    // no graphs at all: rebuilt at start
    fs.rmSync(vectorsDir, { recursive: true, force: true });
    const missing = await start();
    await waitGraphs(missing, total);
    expectSameAnswers(await answers(missing), current);
    await stop();
    expect(fs.existsSync(vectorsDir)).toBe(true);
  }, 300_000);
});
