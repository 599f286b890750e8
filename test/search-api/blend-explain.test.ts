// Issue 28 item 6 over HTTP: `hybrid.semantic_ratio` per request (0 ranks exactly as lexical mode,
// 1 by vectors alone) and `explain: true` on /search and /retrieve, whose ranks and fused scores
// agree with the order of the results. A tiny ONNX model gives real vectors without loading one.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../src/services/auth/auth.js";
import { startServer, type TestServer, createCollection, createSource, upload, waitIndexed } from "../kit/index.js";
import { writeTinyModel } from "../embed/tiny-onnx.js";

const WORDS = ["gearbox", "oil", "turbine", "blade", "pitch", "sensor", "rotor", "brake", "tower", "cable", "grease", "bearing"];

describe("search blend and explanations", () => {
  const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-blend-models-"));
  let s: TestServer;
  let key: string;
  let col: string;
  const search = (json: Record<string, unknown>) => s.call("POST", "/search", { key, json: { collection_id: col, ...json } });

  beforeAll(async () => {
    writeTinyModel(modelsDir, "Xenova/bge-small-en-v1.5", WORDS, 384);
    s = await startServer({ EMBEDDING_PROFILE: "bge-small-en-v1.5", MODELS_DIR: modelsDir, ALLOW_MODEL_DOWNLOAD: "false" }, { listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    key = (await s.tenant()).adminKey;
    const src = await createSource(s, key);
    col = await createCollection(s, key, [src]);
    // each note names three of the words, so queries match some notes lexically and all by vector
    const files = WORDS.map((w, i) => ({
      name: `note-${i}.md`,
      content: `# Note ${i}\n\nThe ${w} and the ${WORDS[(i + 1) % WORDS.length]} near the ${WORDS[(i + 5) % WORDS.length]}.\n`,
    }));
    expect((await upload(s, key, src, files)).status).toBe(202);
    for (const d of await waitIndexed(s, key, src, 60_000)) expect(d.status).toBe("indexed");
    await s.rt.backfill.idle();
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    fs.rmSync(modelsDir, { recursive: true, force: true });
  });

  async function principal(): Promise<Principal> {
    const me = await s.call("GET", "/me", { key });
    const tenant = (await s.rt.store.tenants.get(me.body.tenant.id))!;
    return { tenant, scopes: ["search"], authMethod: "api_key", key: null, userId: null, role: null, sessionId: null };
  }

  it("semantic_ratio 0 is lexical mode exactly", async () => {
    const body = { query: "gearbox oil", top_k: 50, collapse_documents: false };
    const r = await search({ ...body, hybrid: { semantic_ratio: 0 }, explain: true });
    expect(r.status).toBe(200);
    expect(r.body.mode).toBe("lexical");
    const lexical = await s.rt.search.search(await principal(), { collection_id: col, ...body }, { mode: "lexical", countQuery: false });
    expect(r.body.results.map((h: any) => [h.chunk_id, h.score])).toEqual(lexical.results.map((h) => [h.chunk_id, h.score]));
    expect(r.body.results.length).toBeGreaterThan(1);
    r.body.results.forEach((h: any, i: number) => {
      expect(h.explain.vector).toBeNull();
      expect(h.explain.lexical.rank).toBe(i + 1);
    });
  });

  it("semantic_ratio 1 ranks by vectors alone", async () => {
    const r = await search({ query: "gearbox oil", top_k: 50, collapse_documents: false, hybrid: { semantic_ratio: 1 }, explain: true });
    expect(r.status).toBe(200);
    expect(r.body.mode).toBe("vector");
    expect(r.body.results.length).toBe(WORDS.length);
    r.body.results.forEach((h: any, i: number) => {
      expect(h.explain.lexical).toBeNull();
      expect(h.explain.vector.rank).toBe(i + 1);
    });
  });

  it("explain agrees with the ranking of a blend, and is absent unless asked", async () => {
    const lexical = await search({ query: "gearbox oil", top_k: 50, collapse_documents: false, hybrid: { semantic_ratio: 0 } });
    const lexicalRank = new Map(lexical.body.results.map((h: any, i: number) => [h.chunk_id, i + 1]));
    for (const ratio of [0.2, 0.5, 0.8]) {
      const r = await search({ query: "gearbox oil", top_k: 50, collapse_documents: false, hybrid: { semantic_ratio: ratio }, explain: true });
      expect(r.body.mode).toBe("hybrid");
      const hits = r.body.results;
      for (let i = 1; i < hits.length; i++) expect(hits[i].explain.fused).toBeLessThanOrEqual(hits[i - 1].explain.fused);
      for (const h of hits) {
        expect(h.explain.lexical?.rank ?? null).toBe(lexicalRank.get(h.chunk_id) ?? null);
        expect(h.explain.vector).not.toBeNull();
        expect(Array.isArray(h.explain.rules)).toBe(true);
      }
      // every lexical match is in the list (12 notes < the depth): exact matches are bounded first
      expect(hits.filter((h: any) => h.explain.lexical).every((h: any) => h.explain.rules.includes("exact_match_first"))).toBe(true);
    }
    const plain = await search({ query: "gearbox oil" });
    expect(plain.body.results[0]).not.toHaveProperty("explain");
  });

  it("retrieve explains its matches, not the neighbours it adds", async () => {
    const r = await s.call("POST", "/retrieve", {
      key,
      json: { collection_id: col, query: "turbine blade", explain: true, hybrid: { semantic_ratio: 0.4 }, relative_cutoff: false },
    });
    expect(r.status).toBe(200);
    expect(r.body.contexts.length).toBeGreaterThan(0);
    for (const c of r.body.contexts) {
      if (c.expanded) expect(c.explain).toBeNull();
      else expect(typeof c.explain.fused).toBe("number");
    }
    const plain = await s.call("POST", "/retrieve", { key, json: { collection_id: col, query: "turbine blade" } });
    expect(plain.body.contexts[0]).not.toHaveProperty("explain");
  });

  it("filters the vector and hybrid lists inside the scan", async () => {
    const all = await search({ query: "gearbox oil", top_k: 50, collapse_documents: false, hybrid: { semantic_ratio: 1 } });
    const some = all.body.results.filter((_: unknown, i: number) => i % 3 === 1).map((h: any) => h.document_id);
    for (const ratio of [1, 0.5]) {
      const r = await search({ query: "gearbox oil", top_k: 50, collapse_documents: false, hybrid: { semantic_ratio: ratio }, filter: { document_id: { $in: some } }, explain: true });
      expect(r.status).toBe(200);
      expect(r.body.results.map((h: any) => h.document_id).sort()).toEqual([...some].sort());
      // vector ranks are places among the filtered chunks
      expect(r.body.results.map((h: any) => h.explain.vector.rank).sort((a: number, b: number) => a - b)).toEqual(some.map((_: unknown, i: number) => i + 1));
    }
  });

  it("counts facets over the lexical matches and the ranked candidates", async () => {
    const lexical = await search({ query: "gearbox", top_k: 50, hybrid: { semantic_ratio: 0 }, facets: ["file_type"] });
    expect(lexical.body.facets).toEqual({ file_type: { markdown: lexical.body.total } });
    expect(lexical.body.total).toBeLessThan(WORDS.length);
    // every note is a vector candidate (12 < the depth), so the hybrid matched set is all of them
    const hybrid = await search({ query: "gearbox", top_k: 1, facets: ["file_type"] });
    expect(hybrid.body.facets).toEqual({ file_type: { markdown: WORDS.length } });
  });

  it("refuses a ratio outside 0..1 with a 422 naming it", async () => {
    for (const hybrid of [{ semantic_ratio: 1.5 }, { semantic_ratio: -0.1 }, { semantic_ratio: "half" }, {}, { semantic_ratio: 0.5, extra: 1 }]) {
      const r = await search({ query: "oil", hybrid });
      expect(r.status).toBe(422);
      expect(JSON.stringify(r.body.detail)).toContain("hybrid");
    }
  });
});
