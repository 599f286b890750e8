// Recall and latency of the HNSW vector index against exact search (issue 12 item 3).
//
//   npx tsx src/evaluation/bench/vector-recall.ts [--passages 2000] [--queries 200] [--synthetic 200000]
//   (--passages 0 or --synthetic 0 skips that part)
//
// Real embeddings: SciFact passages (title + the abstract's first 48 words, BEIR_DATA_DIR or ../shared/datasets)
// embedded by the active profile's model (cached in the OS temp dir between runs), split over
// three data sources of one tenant (60/30/10 %), queried with SciFact's own queries. Recall@10 of
// the graphs against sqlite-vec's exact scan over the same store, for the whole tenant and for a
// collection of one source (the filter runs inside the search), at k = 100 (the engine's depth)
// and k = 10. Synthetic: N clustered unit vectors (512-d, 2,000 clusters) in one source;
// vector-search latency p50/p95 through the store, HNSW and exact, and recall@10.
//
// --pg-url postgres://... measures the PostgreSQL store instead (pgvector HNSW with iterative scan
// against its exact scan, both on a bench database of its own, dropped at the end): the store's
// exact-scope threshold is set to 0 for the graph side, so every query walks the graph.
import { parseArgs } from "node:util";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openBenchRuntime, operatorPrincipal } from "./load.js";
import { readCorpus, readQueries } from "../beir/beir-files.js";
import { beirDataDir } from "../benchmarks/industry-benchmarks.js";
import { openSqliteStore } from "../../store/sqlite/index.js";
import type { PostgresStore } from "../../store/postgres/index.js";
import { postgresContent } from "../../store/postgres/content/index.js";
import { createBenchDatabase } from "./postgres.js";
import { newId } from "../../store/ids.js";
import type { Runtime } from "../../runtime.js";
import type { ContentStore } from "../../store/content-store.js";

const { values: opts } = parseArgs({
  options: {
    passages: { type: "string", default: "2000" },
    queries: { type: "string", default: "200" },
    synthetic: { type: "string", default: "200000" },
    "pg-url": { type: "string" },
  },
});
const arg = (name: "passages" | "queries" | "synthetic"): number => {
  const n = Number(opts[name]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} takes a whole number, not '${opts[name]}'`);
  return n;
};
const log = (m: string) => console.error(m);

function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}
function gauss(r: () => number) {
  let u = 0;
  while (u === 0) u = r();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
}
function clustered(n: number, dim: number, centres: Float32Array, r: () => number): Float32Array[] {
  const k = centres.length / dim;
  return Array.from({ length: n }, () => {
    const c = Math.floor(r() * k);
    const v = new Float32Array(dim);
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      v[d] = centres[c * dim + d] + 0.6 * gauss(r);
      norm += v[d] * v[d];
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < dim; d++) v[d] /= norm;
    return v;
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(2);
};

/** one tenant with `sizes.length` sources holding the vectors in order; returns the source ids */
async function loadVectors(rt: Runtime, name: string, texts: string[], vectors: Float32Array[], sizes: number[]) {
  const created = await rt.tenants.create({ name });
  await rt.tenants.setPlan(created.tenant.id, "enterprise");
  const p = operatorPrincipal((await rt.store.tenants.get(created.tenant.id))!);
  const content = rt.store.content;
  const indexName = rt.activeProfile.index_name!;
  const sources: string[] = [];
  let at = 0;
  for (const size of sizes) {
    const source = await rt.sources.create(p, { name: `s${sources.length}`, source_type: "upload" });
    sources.push(source.id);
    const perDoc = 10;
    for (let i = 0; i < size; i += perDoc * 100) {
      const docs = Array.from({ length: Math.ceil(Math.min(perDoc * 100, size - i) / perDoc) }, (_, j) => ({
        id: newId("doc"),
        source: `${source.id}-${i + j * perDoc}`,
        title: `doc ${i + j * perDoc}`,
        source_type: "upload",
        kind: "text",
        content_type: "text/plain",
        size_bytes: 0,
        content_hash: "",
        metadata: {},
      }));
      const rows = await content.upsertDocuments(created.tenant.id, source.id, docs, null);
      for (const [j, row] of rows.entries()) {
        const from = at + i + j * perDoc;
        const n = Math.min(perDoc, at + size - from);
        const drafts = Array.from({ length: n }, (_, c) => ({ position: c, text: texts[from + c] ?? "", heading_path: [], token_count: 10, metadata: {} }));
        await content.replaceDocumentIndex(created.tenant.id, row.id, { title: row.title, metadata: {} }, drafts, { indexName, values: vectors.slice(from, from + n) });
      }
    }
    at += size;
  }
  return { tenantId: created.tenant.id, sources };
}

async function waitGraphs(content: ContentStore, indexName: string): Promise<void> {
  for (;;) {
    const s = await content.vectorIndexStatus(indexName);
    if (s.building === 0 && s.behind === 0) return;
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** recall@10 of the graphs against exact search, and how far their scores are from the exact ones */
async function recall(ann: ContentStore, exact: ContentStore, indexName: string, tenantId: string, sources: string[], queries: Float32Array[], k: number) {
  let hit = 0;
  let total = 0;
  const errors: number[] = [];
  for (const q of queries) {
    const truth = new Map((await exact.vectorSearch(indexName, tenantId, sources, q, k)).slice(0, 10).map((s) => [s.chunkId, s.score]));
    const got = (await ann.vectorSearch(indexName, tenantId, sources, q, k)).slice(0, 10);
    for (const s of got) {
      const want = truth.get(s.chunkId);
      if (want === undefined) continue;
      hit++;
      errors.push(Math.abs(s.score - want));
    }
    total += truth.size;
  }
  const mean = errors.reduce((a, b) => a + b, 0) / Math.max(1, errors.length);
  return { recall: +(hit / total).toFixed(4), score_error_mean: +mean.toExponential(2), score_error_max: +Math.max(0, ...errors).toExponential(2) };
}

async function latency(store: ContentStore, indexName: string, tenantId: string, sources: string[], queries: Float32Array[], k: number) {
  const ms: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    await store.vectorSearch(indexName, tenantId, sources, q, k);
    ms.push(performance.now() - t);
  }
  return { p50: pct(ms, 0.5), p95: pct(ms, 0.95) };
}

async function scifactVectors(rt: Runtime, n: number, nq: number) {
  const dir = path.join(beirDataDir(process.env.BEIR_DATA_DIR ?? null, rt.config.dataDir), "scifact");
  if (!fs.existsSync(path.join(dir, "corpus.jsonl"))) return null;
  const texts: string[] = [];
  for await (const d of readCorpus(dir)) {
    // title and the abstract's first 48 words: the recall question is about the geometry of the
    // model's vectors, and shorter texts keep the embedding time of this script in minutes
    texts.push(`${d.title}\n${d.text.split(/\s+/).slice(0, 48).join(" ")}`);
    if (texts.length >= n) break;
  }
  const queries = [...(await readQueries(dir)).values()].slice(0, nq);
  const cache = path.join(os.tmpdir(), `quarry-vector-recall-${rt.activeProfile.name}-${texts.length}-${queries.length}.json`);
  if (fs.existsSync(cache)) {
    const c = JSON.parse(fs.readFileSync(cache, "utf8")) as { p: number[][]; q: number[][] };
    return { dir, texts, passages: c.p.map((v) => Float32Array.from(v)), queries: c.q.map((v) => Float32Array.from(v)) };
  }
  const t0 = performance.now();
  const passages: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 64) passages.push(...(await rt.embedder!.embedPassages(texts.slice(i, i + 64))));
  const qv: Float32Array[] = [];
  for (const q of queries) qv.push(await rt.embedder!.embedQuery(q));
  log(`embedded ${texts.length} passages and ${queries.length} queries in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  fs.writeFileSync(cache, JSON.stringify({ p: passages.map((v) => Array.from(v)), q: qv.map((v) => Array.from(v)) }));
  return { dir, texts, passages, queries: qv };
}

/** The store searched through its graphs and the same data searched exactly. */
function annAndExact(rt: Runtime, dataDir: string): { ann: ContentStore; exact: ContentStore; close(): Promise<void> } {
  if (rt.store.kind === "postgres") {
    const pool = (rt.store as PostgresStore).pool;
    return {
      ann: postgresContent(pool, { vectors: { exactBelow: 0, graphFrom: 0 } }),
      exact: postgresContent(pool, { vectors: { exactBelow: Number.MAX_SAFE_INTEGER } }),
      close: async () => {},
    };
  }
  const exactStore = openSqliteStore(dataDir, { vectorIndex: "exact" });
  return { ann: rt.store.content, exact: exactStore.content, close: () => exactStore.close() };
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-vector-recall-"));
  const pgUrl = opts["pg-url"] ?? null;
  const db = pgUrl ? await createBenchDatabase({ pgUrl, keep: false }, log) : null;
  const rt = await openBenchRuntime(dataDir, log, db ? { DATABASE_URL: db.url } : {});
  const stores = annAndExact(rt, dataDir);
  const indexName = rt.activeProfile.index_name!;
  log(`store: ${rt.store.kind}`);
  const out: Record<string, unknown> = { store: rt.store.kind };
  try {
    const wanted = arg("passages") > 0;
    const real = wanted && rt.embedder?.status().state === "ready" ? await scifactVectors(rt, arg("passages"), arg("queries")) : null;
    if (!real) log("no model or no SciFact corpus: real-embedding recall skipped");
    else {
      const n = real.passages.length;
      const sizes = [Math.round(n * 0.6), Math.round(n * 0.3)];
      sizes.push(n - sizes[0] - sizes[1]);
      const { tenantId, sources } = await loadVectors(rt, "Recall SciFact", real.texts, real.passages, sizes);
      await waitGraphs(rt.store.content, indexName);
      const r = async (src: string[], k: number) => recall(stores.ann, stores.exact, indexName, tenantId, src, real.queries, k);
      out.scifact = {
        passages: n,
        queries: real.queries.length,
        sources: sizes,
        recall_at_10: {
          whole_tenant_k100: await r(sources, 100),
          whole_tenant_k10: await r(sources, 10),
          collection_of_10pct_source_k100: await r([sources[2]], 100),
          collection_of_10pct_source_k10: await r([sources[2]], 10),
          collection_of_30_and_10pct_sources_k10: await r([sources[1], sources[2]], 10),
        },
      };
      log(JSON.stringify(out.scifact));
    }
    const n = arg("synthetic");
    if (n > 0) {
      const dim = rt.activeProfile.dimension;
      const rnd = prng(7);
      const centres = Float32Array.from({ length: 2000 * dim }, () => gauss(rnd));
      const vectors = clustered(n, dim, centres, rnd);
      const queries = clustered(200, dim, centres, rnd);
      const rssBefore = process.memoryUsage().rss;
      const t0 = performance.now();
      const { tenantId, sources } = await loadVectors(rt, "Latency synthetic", [], vectors, [n]);
      const loadMs = performance.now() - t0;
      await waitGraphs(rt.store.content, indexName);
      const graphMs = performance.now() - t0 - loadMs;
      out.synthetic = {
        vectors: n,
        dimension: dim,
        load_s: +(loadMs / 1000).toFixed(1),
        graph_catch_up_s: +(graphMs / 1000).toFixed(1),
        hnsw_k100: await latency(stores.ann, indexName, tenantId, sources, queries, 100),
        hnsw_k10: await latency(stores.ann, indexName, tenantId, sources, queries, 10),
        exact_k100: await latency(stores.exact, indexName, tenantId, sources, queries.slice(0, 40), 100),
        recall_at_10_k100: await recall(stores.ann, stores.exact, indexName, tenantId, sources, queries.slice(0, 100), 100),
        quantization: rt.config.vectorQuantization,
        rss_mb: Math.round(process.memoryUsage().rss / 1e6),
        // what holding the graph added (the vectors' texts are empty, so this is mostly the graph)
        rss_growth_mb: Math.round((process.memoryUsage().rss - rssBefore) / 1e6),
      };
      log(JSON.stringify(out.synthetic));
    }
    console.log(JSON.stringify(out, null, 2));
  } finally {
    await stores.close();
    await rt.close();
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
