// The scale bench's load and measure path against a real runtime (SQLite store, search service,
// HTTP on loopback) on a tiny corpus: documents go in through the bulk path, queries come out of
// the loaded chunks, and the store's vector search agrees with the bench's exact top 10.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../src/runtime.js";
import { openBenchRuntime } from "../../src/evaluation/bench/load.js";
import { buildCorpus } from "../../src/evaluation/bench/scale/corpus.js";
import { dfSample } from "../../src/evaluation/bench/scale/queries.js";
import { syntheticVectors } from "../../src/evaluation/bench/scale/vector-source.js";
import { loadLayout, type Loaded } from "../../src/evaluation/bench/scale/loader.js";
import { exactTopK, recallAt, type ExactTruth } from "../../src/evaluation/bench/scale/exact.js";
import { benchRuntime, lookupEmbedder, searchInProcess, searchOverHttp, startServer } from "../../src/evaluation/bench/scale/adapter.js";
import { stoneTexts } from "../helpers/stone-texts.js";

/** 60 small documents with varied vocabulary, as if read from disk */
const texts = stoneTexts(60);

let dir: string;
let rt: Runtime;
let loaded: Loaded;
let truth: ExactTruth;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-scale-load-"));
  rt = await openBenchRuntime(dir, () => {});
  const corpus = buildCorpus(texts, 1);
  const df = dfSample(corpus.real.flatMap((d) => d.chunks));
  const vectors = syntheticVectors(rt.activeProfile.dimension, 4, 1);
  loaded = await loadLayout(rt, corpus, { label: "2 x 60", tenants: 2, chunksPerTenant: 60 }, vectors, df, { queries: 20, seed: 1, filters: false });
  truth = exactTopK(loaded.docs, loaded.queries, vectors, loaded.chunks);
});

afterAll(async () => {
  await rt?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("scale bench load and measure path", () => {
  it("loads the layout through the bulk path with queries made from its chunks", async () => {
    expect(loaded.chunks).toBe(120);
    expect(loaded.docs.reduce((n, d) => n + d.count, 0)).toBe(120);
    expect(loaded.queries.length).toBeGreaterThanOrEqual(18);
    for (const t of loaded.tenants) {
      const c = await rt.store.content.getCollection(t.id, t.allCollectionId);
      expect(c!.document_count).toBe(loaded.docs.filter((d) => d.tenant === loaded.tenants.indexOf(t)).length);
    }
  });

  it("the store's vector search finds the exact top 10, in the collection and in the filtered one", async () => {
    const view = benchRuntime(rt, lookupEmbedder(rt.activeProfile, new Map(loaded.queries.map((q) => [q.text, q.vector])), () => loaded.queries[0].vector));
    let all = 0;
    let side = 0;
    for (const q of loaded.queries) {
      const t = loaded.tenants[q.tenant];
      const a = await searchInProcess(view, t, t.allCollectionId, q.text, "vector");
      expect(a.mode).toBe("vector");
      all += recallAt(a.keys, truth.all.get(q.q)!);
      side += recallAt((await searchInProcess(view, t, t.sideCollectionId, q.text, "vector")).keys, truth.side.get(q.q)!);
    }
    expect(all / loaded.queries.length).toBeGreaterThanOrEqual(0.95);
    expect(side / loaded.queries.length).toBeGreaterThanOrEqual(0.95);
  });

  it("answers every mode over HTTP with the tenant's search key", async () => {
    const view = benchRuntime(rt, lookupEmbedder(rt.activeProfile, new Map(loaded.queries.map((q) => [q.text, q.vector])), () => loaded.queries[0].vector));
    const { app, url } = await startServer(view);
    try {
      const q = loaded.queries[0];
      for (const mode of ["lexical", "vector", "hybrid"] as const) expect(await searchOverHttp(url, loaded.tenants[q.tenant], q.text, mode)).toBe(200);
      expect(await searchOverHttp(url, { ...loaded.tenants[q.tenant], key: "wrong" }, q.text, "hybrid")).toBe(401);
    } finally {
      await app.close();
    }
  });
});
