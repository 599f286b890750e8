// Vector pseudo-relevance feedback on a kept load (SciFact from `npm run bench -- --data-dir DIR`, or
// the documentation question set from `npm run bench:questions -- --keep DIR`): does
// moving the query vector towards the chunks the hybrid ranking put first (Rocchio) make the
// default model's vector list a better partner for BM25? For each query: the product's lexical and
// vector lists and their fusion (engine.fuseCandidates, as rank() does); then the query vector plus
// beta x the mean vector of the first m fused chunks, searched exactly over the load's stored
// vectors, fused again with the same lexical list. On SciFact the setting is chosen on the train
// split and reported on test, so the test queries never pick it; the docs set prints each kind.
//
//   npx tsx src/evaluation/labs/feedback-lab.ts --dir DIR --set scifact|docs [--dataset BEIR_DIR/scifact]
import path from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { loadConfig } from "../../config.js";
import { createRuntime } from "../../runtime.js";
import { dot, l2normalize } from "../../embed/vector.js";
import { DEFAULT_ENGINE_SETTINGS, fuseCandidates } from "../../search/engine.js";
import type { Candidate } from "../../search/fusion.js";
import { evaluateQuery } from "../ranking-metrics.js";
import { parseQuery } from "../../search/lexical/parse-query.js";
import { analyzeQuery } from "../../search/lexical/analyze-query.js";
import { DEFAULT_ANALYZER } from "../../search/lexical/analyze.js";
import { settingsFor } from "../../services/search/search.js";
import { vectorTable } from "../../store/sqlite/content/json.js";
import { labSet } from "./lab-sets.js";

const { values } = parseArgs({
  options: { dir: { type: "string" }, set: { type: "string" }, dataset: { type: "string" }, questions: { type: "string", default: "src/evaluation/question-sets/node-api.jsonl" } },
});
if (!values.dir || !["scifact", "docs"].includes(values.set ?? "")) {
  console.log("usage: --dir <kept load> --set scifact|docs [--dataset BEIR_DIR/scifact]");
  process.exit(2);
}
const dir = values.dir;
const D = 512;
const scifact = values.set === "scifact";
const { marker, keyOf, queries } = await labSet({ dir, set: scifact ? "scifact" : "docs", dataset: values.dataset, questions: values.questions!, splits: ["train", "test"] });

const config = loadConfig({ ...process.env, DATA_DIR: dir, LOG_LEVEL: "warn", EMBED_WORKERS: "1" });
const rt = await createRuntime(config, { log: pino({ level: "warn" }), workers: false });
await rt.embedder!.whenReady();
const index = rt.activeProfile.index_name!;

// every stored chunk vector (unit length) and its document, in memory: exact search is cheap here
const db = new Database(path.join(dir, "quarry.db"), { readonly: true });
sqliteVec.load(db);
const rows = db
  .prepare(`SELECT v.chunk_id AS id, v.embedding AS e, d.source AS doc FROM ${vectorTable(index)} v JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id WHERE c.tenant_id = ?`)
  .all(marker.tenantId) as { id: number; e: Buffer; doc: string }[];
db.close();
const ids = rows.map((r) => String(r.id));
const docOf = new Map(rows.map((r) => [String(r.id), keyOf(r.doc)]));
const rowOf = new Map(ids.map((id, i) => [id, i]));
const matrix = new Float32Array(rows.length * D);
rows.forEach((r, i) => {
  matrix.set(new Float32Array(new Uint8Array(r.e).buffer), i * D);
  l2normalize(matrix.subarray(i * D, (i + 1) * D));
});
console.error(`${rows.length} chunk vectors`);

const collection = (await rt.store.content.getCollection(marker.tenantId, marker.collectionId))!;
const settings = settingsFor(DEFAULT_ENGINE_SETTINGS, collection.settings ?? {});
const sources = collection.data_source_ids;

function nearest(q: Float32Array, k: number): Candidate[] {
  const scores = new Float32Array(rows.length);
  for (let i = 0; i < rows.length; i++) scores[i] = dot(q, matrix.subarray(i * D, (i + 1) * D));
  return Array.from(scores, (score, i) => ({ id: ids[i]!, score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}
function topDocs(list: { id: string }[]): string[] {
  return [...new Set(list.map((h) => docOf.get(h.id)!))].slice(0, 10);
}
/** query + beta x the unit mean of the first m chunks' vectors, to unit length */
function moved(q: Float32Array, first: { id: string }[], m: number, beta: number): Float32Array {
  const centroid = new Float32Array(D);
  for (const h of first.slice(0, m)) {
    const r = rowOf.get(h.id);
    if (r === undefined) continue;
    for (let d = 0; d < D; d++) centroid[d]! += matrix[r * D + d]!;
  }
  l2normalize(centroid);
  return l2normalize(Float32Array.from(q, (x, d) => x + beta * centroid[d]!));
}

const GRID = [1, 3, 5, 10].flatMap((m) => [0.25, 0.5, 1, 2].map((beta) => ({ m, beta, name: `m ${m} beta ${beta}` })));
const results = new Map<string, Map<string, number[]>>();
const record = (groups: string[], variant: string, ndcg: number) => {
  const byGroup = results.get(variant) ?? results.set(variant, new Map()).get(variant)!;
  for (const g of groups) byGroup.set(g, [...(byGroup.get(g) ?? []), ndcg]);
};

const t0 = performance.now();
for (const [n, { text, relevant, group }] of queries.entries()) {
  const judge = (variant: string, list: { id: string }[]) => record(scifact ? [group] : [group, "all"], variant, evaluateQuery(topDocs(list), relevant, 10).ndcg);
  const qv = await rt.embedder!.embedQuery(text);
  const lexical = (await rt.store.content.lexicalSearch(marker.tenantId, sources, analyzeQuery(parseQuery(text), DEFAULT_ANALYZER), settings.depth, settings.lexicalWeights)).map((c) => ({ id: c.chunkId, score: c.score }));
  const vector = nearest(qv, settings.depth);
  const base = fuseCandidates(lexical, vector, "hybrid", settings).fused;
  judge("lexical", lexical);
  judge("vector", vector);
  judge("hybrid", base);
  for (const g of GRID) {
    const list = nearest(moved(qv, base, g.m, g.beta), settings.depth);
    judge(`${g.name}: vector`, list);
    judge(`${g.name}: hybrid`, fuseCandidates(lexical, list, "hybrid", settings).fused);
  }
  if (n % 100 === 99) console.error(`${n + 1}/${queries.length} queries, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

const mean = (a: number[] = []) => a.reduce((x, y) => x + y, 0) / (a.length || 1);
for (const [variant, byGroup] of results) console.log(`${variant.padEnd(28)} ${[...byGroup].map(([g, a]) => `${g.slice(0, 5)} ${mean(a).toFixed(4)}`).join("  ")}`);
if (scifact) {
  const best = [...results].filter(([v]) => v.endsWith("hybrid") && v !== "hybrid").sort((a, b) => mean(b[1].get("train")) - mean(a[1].get("train")))[0]!;
  console.log(`chosen on train: ${best[0]} (train ${mean(best[1].get("train")).toFixed(4)}), test ${mean(best[1].get("test")).toFixed(4)} against hybrid ${mean(results.get("hybrid")!.get("test")).toFixed(4)}`);
}
await rt.close();
