// Opt-in scale test (--scale N): a synthetic collection of N chunks (text drawn from the data set's
// vocabulary, random unit vectors written straight into the index, so no model time is spent on
// it), then sequential hybrid latency over HTTP against it. Slow: minutes for 200,000 chunks.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Runtime } from "../runtime.js";
import { newId } from "../store/ids.js";
import { readCorpus } from "../search/beir.js";
import { openBenchRuntime, operatorPrincipal } from "./load.js";
import { freshQueries, searchKey, startBenchServer } from "./speed.js";
import { latencySummary, type LatencySummary } from "../search/metrics.js";

export interface ScaleResult {
  chunks: number;
  build_ms: number;
  hybrid: LatencySummary;
  /** the same kind of queries answered lexically (bench-only route), to split the cost */
  lexical: LatencySummary;
}

function randomUnit(dim: number, rnd: () => number): Float32Array {
  const v = new Float32Array(dim);
  let norm = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = rnd() - 0.5;
    norm += v[i] * v[i];
  }
  const s = 1 / Math.sqrt(norm);
  for (let i = 0; i < dim; i++) v[i] *= s;
  return v;
}

/** small deterministic PRNG (mulberry32) so runs build the same corpus */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** In a runtime of its own on a temporary DATA_DIR, so the synthetic corpus never touches the main one. */
export async function measureScale(dataset: string, queryTexts: string[], chunks: number, queries: number, log: (m: string) => void): Promise<ScaleResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-bench-scale-"));
  const rt = await openBenchRuntime(dir, log);
  try {
    return await buildAndMeasure(rt, dataset, queryTexts, chunks, queries, log);
  } finally {
    await rt.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function buildAndMeasure(rt: Runtime, dataset: string, queryTexts: string[], chunks: number, queries: number, log: (m: string) => void): Promise<ScaleResult> {
  const vocab: string[] = [];
  for await (const d of readCorpus(dataset)) {
    for (const w of d.text.split(/\s+/)) if (/^[A-Za-z]{3,}$/.test(w)) vocab.push(w.toLowerCase());
    if (vocab.length > 200_000) break;
  }
  const rnd = prng(42);
  const words = (n: number) => Array.from({ length: n }, () => vocab[Math.floor(rnd() * vocab.length)]).join(" ");
  const created = await rt.tenants.create({ name: "Bench scale" });
  await rt.tenants.setPlan(created.tenant.id, "enterprise");
  const p = operatorPrincipal((await rt.store.tenants.get(created.tenant.id))!);
  const source = await rt.sources.create(p, { name: "synthetic", source_type: "upload" });
  const collection = await rt.collections.create(p, { name: "synthetic", data_source_ids: [source.id] });
  const content = rt.store.content;
  const indexName = rt.activeProfile.index_name!;
  const perDoc = 10;
  const t0 = performance.now();
  let made = 0;
  while (made < chunks) {
    const batch = Array.from({ length: Math.min(100, Math.ceil((chunks - made) / perDoc)) }, (_, i) => ({
      id: newId("doc"),
      source: `synthetic-${made / perDoc + i}`,
      title: words(8),
      source_type: "upload",
      kind: "text",
      content_type: "text/plain",
      size_bytes: 0,
      content_hash: "",
      metadata: {},
    }));
    const rows = await content.upsertDocuments(p.tenant!.id, source.id, batch, null);
    for (const row of rows) {
      const n = Math.min(perDoc, chunks - made);
      if (n <= 0) break;
      const drafts = Array.from({ length: n }, (_, i) => ({ position: i, text: words(120), heading_path: [], token_count: 150, metadata: {} }));
      await content.replaceDocumentIndex(p.tenant!.id, row.id, { title: row.title, metadata: {} }, drafts, {
        indexName,
        values: drafts.map(() => randomUnit(rt.activeProfile.dimension, rnd)),
      });
      made += n;
    }
    if (made % 20_000 < perDoc * 100) log(`  synthetic chunks: ${made}/${chunks}`);
  }
  const buildMs = performance.now() - t0;
  const { app, url } = await startBenchServer(rt);
  try {
    const key = await searchKey(rt, p);
    const next = freshQueries(queryTexts.map((q) => `${q} scale`), new Set());
    const timed = async (route: string) => {
      const samples: number[] = [];
      for (let i = 0; i < queries + 10; i++) {
        const t = performance.now();
        const res = await fetch(`${url}${route}`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ collection_id: collection.id, query: next(), top_k: 10 }),
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`scale test: ${route} answered ${res.status}`);
        if (i >= 10) samples.push(performance.now() - t); // the first 10 warm up
      }
      return latencySummary(samples);
    };
    const hybrid = await timed("/search");
    const lexical = await timed("/bench/lexical-search");
    log(`  ${made} chunks: hybrid p50 ${hybrid.p50?.toFixed(1)} ms, p95 ${hybrid.p95?.toFixed(1)} ms; lexical p50 ${lexical.p50?.toFixed(1)} ms, p95 ${lexical.p95?.toFixed(1)} ms`);
    return { chunks: made, build_ms: buildMs, hybrid, lexical };
  } finally {
    await app.close();
  }
}
