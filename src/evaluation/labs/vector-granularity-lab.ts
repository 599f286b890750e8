// Does the default model do better with finer or coarser vectors than one per chunk? On a kept load
// (SciFact from `npm run bench -- --data-dir DIR`, or the documentation question set from
// `npm run bench:questions -- --keep DIR`) it embeds every chunk again as sentence windows of at most
// --words words, each prefixed with the chunk's context (title › headings, as passageText does) and
// embedded whole (up to the model's 128 tokens, not cut into 64-token windows), and compares, by
// nDCG@10 on documents (SciFact) or pages (docs set, per kind):
// - the product's lists: lexical, vector (one mean vector per chunk), hybrid;
// - vector lists from the windows: a chunk's best window (max-sim), the mean of its windows, half
//   of each; and each fused with the product's lexical list (fusion.ts, z-scores) at lexical
//   weights 0.7 / 0.6 / 0.5;
// - page vectors: the mean of a page's chunk vectors, its cosine added (x beta, both z-scored over
//   the candidate pages) to each page's best fused score in the product's hybrid list.
// - with --bare, chunks embedded like the ingest path but without the context line.
// Window vectors are cached next to the load (windows-<words>-ctx.f32); the first run costs about
// as long as the load's own embedding (SciFact: 33,212 windows in 21 min on 2 cores).
//
//   npx tsx src/evaluation/labs/vector-granularity-lab.ts --dir DIR --set scifact|docs [--dataset BEIR_DIR/scifact] [--words 45]
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import Database from "better-sqlite3";
import { loadConfig } from "../../config.js";
import { createRuntime, type Runtime } from "../../runtime.js";
import { UseLiteEmbedder } from "../../embed/use-lite.js";
import { dot, l2normalize } from "../../embed/vector.js";
import { DEFAULT_ENGINE_SETTINGS, type RetrievalMode } from "../../search/engine.js";
import { fuse, type Candidate } from "../../search/fusion.js";
import { evaluateQuery } from "../ranking-metrics.js";
import { settingsFor } from "../../services/search/search.js";
import { labSet } from "./lab-sets.js";

const { values } = parseArgs({
  options: {
    dir: { type: "string" },
    set: { type: "string" },
    dataset: { type: "string" },
    words: { type: "string", default: "45" },
    questions: { type: "string", default: "src/evaluation/question-sets/node-api.jsonl" },
    bare: { type: "boolean", default: false },
  },
});
if (!values.dir || !["scifact", "docs"].includes(values.set ?? "")) {
  console.log("usage: --dir <kept load> --set scifact|docs [--dataset BEIR_DIR/scifact] [--words 45]");
  process.exit(2);
}
const dir = values.dir;
const WORDS = Number(values.words);
const D = 512;

interface ChunkRow {
  id: number;
  heading_path: string;
  text: string;
  title: string;
  source: string;
}
/** Sentences packed into windows of at most WORDS words; a longer sentence is cut by words. */
function windowsOf(text: string): string[] {
  const sentences = text
    .split(/(?<=[.!?:;])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const out: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length) out.push(current.join(" "));
    current = [];
  };
  for (const s of sentences) {
    const words = s.split(/\s+/);
    if (current.length + words.length > WORDS) flush();
    if (words.length > WORDS) {
      for (let i = 0; i < words.length; i += WORDS) out.push(words.slice(i, i + WORDS).join(" "));
      continue;
    }
    current.push(...words);
  }
  flush();
  return out.length ? out : [text];
}

/** Each row of a row-major matrix scaled to unit length. */
const normalizeRows = (m: Float32Array, rows: number) => {
  for (let i = 0; i < rows; i++) l2normalize(m.subarray(i * D, (i + 1) * D));
};
/** Cosine of the (unit) query with row `row` of a row-major matrix of unit vectors. */
const cosine = (q: Float32Array, m: Float32Array, row: number) => dot(q, m.subarray(row * D, (row + 1) * D));
const zScores = (a: number[]) => {
  const mean = a.reduce((x, y) => x + y, 0) / a.length;
  const sd = Math.sqrt(a.reduce((x, y) => x + (y - mean) ** 2, 0) / a.length) || 1;
  return a.map((x) => (x - mean) / sd);
};

/** Every window's vector, embedded once and cached beside the load. */
async function windowVectors(rt: Runtime, texts: string[]): Promise<Float32Array> {
  const cache = path.join(dir, `windows-${WORDS}-ctx.f32`);
  if (fs.existsSync(cache)) return new Float32Array(fs.readFileSync(cache).buffer.slice(0));
  const out = new Float32Array(texts.length * D);
  // each window whole (the model reads 128 tokens), not cut again into the ingest path's 64-token windows
  const embedder = new UseLiteEmbedder(rt.activeProfile, { windowTokens: 128, poolSize: 2, queryWorker: false, queryCacheSize: 0 });
  await embedder.whenReady();
  const t0 = performance.now();
  for (let i = 0; i < texts.length; i += 256) {
    const vs = await embedder.embedPassages(texts.slice(i, i + 256));
    vs.forEach((v, k) => out.set(v, (i + k) * D));
    console.error(`${i + vs.length}/${texts.length} windows, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  await embedder.close();
  fs.writeFileSync(cache, Buffer.from(out.buffer));
  return out;
}

/** With --bare: each chunk's text embedded as ingest does (64-token windows averaged) but without the context line. */
async function bareChunkVectors(rt: Runtime, rows: ChunkRow[]): Promise<Float32Array | null> {
  if (!values.bare) return null;
  const cache = path.join(dir, "chunks-bare.f32");
  if (fs.existsSync(cache)) return new Float32Array(fs.readFileSync(cache).buffer.slice(0));
  const out = new Float32Array(rows.length * D);
  const t0 = performance.now();
  for (let i = 0; i < rows.length; i += 64) {
    const vs = await rt.embedder!.embedPassages(rows.slice(i, i + 64).map((c) => c.text));
    vs.forEach((v, k) => out.set(v, (i + k) * D));
    console.error(`${i + vs.length}/${rows.length} bare chunks, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  fs.writeFileSync(cache, Buffer.from(out.buffer));
  return out;
}

const config = loadConfig({ ...process.env, DATA_DIR: dir, LOG_LEVEL: "warn" });
const rt = await createRuntime(config, { log: pino({ level: "warn" }), workers: false });
await rt.embedder!.whenReady();
const { queries, marker, keyOf } = await labSet({ dir, set: values.set as "scifact" | "docs", dataset: values.dataset, questions: values.questions! });

const db = new Database(path.join(dir, "quarry.db"), { readonly: true });
const chunks = db
  .prepare("SELECT c.id, c.heading_path, c.text, d.title, d.source FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.tenant_id = ? ORDER BY c.id")
  .all(marker.tenantId) as ChunkRow[];
db.close();
const rowOf = new Map(chunks.map((c, i) => [String(c.id), i]));

// windows, their chunk, and each chunk's mean of windows
const owner: number[] = [];
const texts: string[] = [];
chunks.forEach((c, i) => {
  const context = [c.title, ...(JSON.parse(c.heading_path) as string[])].filter(Boolean).join(" › ");
  for (const w of windowsOf(c.text)) {
    texts.push(context ? `${context}\n${w}` : w);
    owner.push(i);
  }
});
console.error(`${chunks.length} chunks, ${texts.length} windows (${(texts.length / chunks.length).toFixed(1)} per chunk)`);
const windows = await windowVectors(rt, texts);
const bare = await bareChunkVectors(rt, chunks);
const chunkMeans = new Float32Array(chunks.length * D);
owner.forEach((o, k) => {
  for (let d = 0; d < D; d++) chunkMeans[o * D + d]! += windows[k * D + d]!;
});
normalizeRows(chunkMeans, chunks.length);

// pages (documents) and their mean vectors
const pageKeys: string[] = [];
const pageIndex = new Map<string, number>();
const pageOfChunk = chunks.map((c) => {
  const k = keyOf(c.source);
  if (!pageIndex.has(k)) pageIndex.set(k, pageKeys.push(k) - 1);
  return pageIndex.get(k)!;
});
const pageMeans = new Float32Array(pageKeys.length * D);
pageOfChunk.forEach((p, i) => {
  for (let d = 0; d < D; d++) pageMeans[p * D + d]! += chunkMeans[i * D + d]!;
});
normalizeRows(pageMeans, pageKeys.length);

const collection = (await rt.store.content.getCollection(marker.tenantId, marker.collectionId))!;
const settings = settingsFor(DEFAULT_ENGINE_SETTINGS, collection.settings ?? {});
const results = new Map<string, Map<string, number[]>>();
const record = (variant: string, kind: string, ndcg: number) => {
  const kinds = results.get(variant) ?? results.set(variant, new Map()).get(variant)!;
  for (const k of new Set([kind, "all"])) kinds.set(k, [...(kinds.get(k) ?? []), ndcg]);
};
const topPages = (ids: string[]) => [...new Set(ids.map((id) => keyOf(chunks[rowOf.get(id)!]!.source)))].slice(0, 10);
const top100 = (scores: Float32Array): Candidate[] =>
  Array.from(scores, (score, i) => ({ id: String(chunks[i]!.id), score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, 100);
const fused = (lexical: Candidate[], vector: Candidate[], lexicalWeight: number) =>
  fuse(lexical, vector, { ...settings.fusion, lexicalWeight, vectorWeight: 1 - lexicalWeight }, { lexicalComplete: lexical.length < 100 }).map((h) => h.id);

for (const q of queries) {
  const judge = (variant: string, ids: string[]) => record(variant, q.group, evaluateQuery(topPages(ids), q.relevant, 10).ndcg);
  const ranked = async (mode: RetrievalMode) => (await rt.engine.rank(marker.tenantId, collection.data_source_ids, q.text, settings, mode)).ranked;
  const lexical: Candidate[] = (await ranked("lexical")).slice(0, 100).map((h) => ({ id: h.chunk.id, score: h.lexicalScore! }));
  const hybrid = await ranked("hybrid");
  judge("product lexical", lexical.map((c) => c.id));
  judge("product vector", (await ranked("vector")).map((h) => h.chunk.id));
  judge("product hybrid", hybrid.map((h) => h.chunk.id));

  const qv = await rt.embedder!.embedQuery(q.text);
  const max = new Float32Array(chunks.length).fill(-2);
  owner.forEach((o, k) => {
    const s = cosine(qv, windows, k);
    if (s > max[o]!) max[o] = s;
  });
  const mean = Float32Array.from(chunks, (_, i) => cosine(qv, chunkMeans, i));
  const half = Float32Array.from(max, (m, i) => (m + mean[i]!) / 2);
  for (const [name, scores] of [["max", max], ["mean", mean], ["half", half]] as const) {
    const list = top100(scores);
    judge(`windows ${name}`, list.map((c) => c.id));
    for (const w of [0.7, 0.6, 0.5]) judge(`fuse(lexical, windows ${name}) ${w}`, fused(lexical, list, w));
  }

  if (bare) {
    const list = top100(Float32Array.from(chunks, (_, i) => cosine(qv, bare, i)));
    judge("bare chunks", list.map((c) => c.id));
    for (const w of [0.7, 0.6, 0.5]) judge(`fuse(lexical, bare chunks) ${w}`, fused(lexical, list, w));
  }

  // page vectors beside the product's hybrid list: best fused chunk per page + beta x page cosine
  const best = new Map<number, number>();
  for (const h of hybrid) {
    const p = pageOfChunk[rowOf.get(h.chunk.id)!]!;
    if (!best.has(p)) best.set(p, h.fusedScore);
  }
  const pages = [...best.keys()];
  const zFused = zScores(pages.map((p) => best.get(p)!));
  const zCosine = zScores(pages.map((p) => cosine(qv, pageMeans, p)));
  for (const beta of [0.1, 0.2, 0.3, 0.5]) {
    const order = pages
      .map((p, i) => ({ key: pageKeys[p]!, s: zFused[i]! + beta * zCosine[i]! }))
      .sort((a, b) => b.s - a.s)
      .map((x) => x.key)
      .slice(0, 10);
    record(`hybrid + page vector ${beta}`, q.group, evaluateQuery(order, q.relevant, 10).ndcg);
  }
}

const avg = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
for (const [variant, kinds] of results) {
  console.log(`${variant.padEnd(34)} ${[...kinds].map(([k, a]) => `${k.slice(0, 4)} ${avg(a).toFixed(4)}`).join("  ")}`);
}
await rt.close();
