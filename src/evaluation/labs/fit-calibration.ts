// Fits the score calibration of src/search/calibration.ts (issue 16, item 3) on a BEIR data set
// with binary qrels (SciFact), and measures it.
//
//   npx tsx src/evaluation/labs/fit-calibration.ts --dataset <BEIR dir> --data-dir <dir> [--split train]
//        [--limit-queries 400] [--max-documents 1200] [--depth 20] [--write]
//
// The data set directory comes from --dataset, else $SCIFACT_DIR, else $BEIR_DATA_DIR/scifact; when
// none is given or the directory is missing the script says so and exits 0 (nothing to fit).
// --data-dir is the bench's load directory (`quarry bench --data-dir`): an existing load of the same
// data set, split and limits is reused, otherwise it is loaded there first with the active
// embedding model (about 10 chunks/s with the default model on a quiet 2-core machine).
//
// For every query of the split the engine ranks with the deployment's default settings, in each
// mode (hybrid, lexical, vector); the first --depth chunks of each list become labelled rows
// (relevant = the chunk's document is in the query's qrels), with the features of calibration.ts
// computed on the whole list. Queries are split 70/30 (by position: 7 of every 10 fit, 3 held out).
// A logistic model (Newton/IRLS, small L2) is fitted per mode and feature set on the fit queries,
// and reported on the held-out ones: log-loss, Brier score, expected calibration error, and the
// pooled AUC (all held-out hits of all queries in one list: what "comparable across queries"
// means; the raw fused score is the baseline). Then the retrieve cutoff (ratio x best, floor) over
// a grid: recall of the answers kept, contexts kept, and how many contexts questions without an
// answer keep (held-out queries with their relevant documents removed from the list, and a set of
// off-topic questions). --write replaces the fitted-constants block of src/search/calibration.ts.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadBenchContext } from "../bench/load.js";
import { searchSettings } from "../bench/quality.js";
import type { BenchOptions } from "../bench/args.js";
import type { RankedChunk, RetrievalMode } from "../../search/engine.js";
import type { FusedHit } from "../../search/fusion.js";
import { cappedRelevance, FEATURES, features, plattProbability, type CalibrationMode, type PlattModel } from "../../search/calibration.js";
import { auc, calibrationStats, fitLogistic, fitNonNegative } from "../calibration-fit.js";
import { OFF_TOPIC_PROBES } from "../../search/off-topic.js";

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const num = (name: string, def: number): number => (opt(name) !== undefined ? Number(opt(name)) : def);
const log = (m: string) => process.stderr.write(`${m}\n`);

const datasetDir =
  opt("dataset") ?? process.env.SCIFACT_DIR ?? (process.env.BEIR_DATA_DIR ? path.join(process.env.BEIR_DATA_DIR, "scifact") : undefined);
if (!datasetDir) {
  console.log("skipped: no data set given (pass --dataset <BEIR dir>, or set SCIFACT_DIR or BEIR_DATA_DIR)");
  process.exit(0);
}
if (!fs.existsSync(path.join(datasetDir, "corpus.jsonl"))) {
  console.log(`skipped: ${datasetDir} has no corpus.jsonl (not a BEIR data set here)`);
  process.exit(0);
}
const dataDir = opt("data-dir");
if (!dataDir) {
  console.log("skipped: pass --data-dir <dir> (the bench load directory; reused when it holds this load)");
  process.exit(0);
}
const SPLIT = opt("split") ?? "train";
const LIMIT_QUERIES = num("limit-queries", 400);
const MAX_DOCUMENTS = opt("max-documents") === "all" ? null : num("max-documents", 1200);
const DEPTH = num("depth", 20);
const WRITE = args.includes("--write");

const benchOptions: BenchOptions = {
  dataset: path.resolve(datasetDir),
  split: SPLIT,
  limitQueries: LIMIT_QUERIES,
  maxDocuments: MAX_DOCUMENTS,
  fusion: {},
  lexicalWeights: {},
  depth: null,
  http: false,
  ingest: false,
  clients: 1,
  qpsSeconds: 1,
  latencyQueries: 1,
  dataDir: path.resolve(dataDir),
  out: path.resolve(dataDir, "results"),
  suite: null,
  tenant: null,
  stores: ["sqlite"],
  pgUrl: "",
  keep: false,
};

// Questions with no answer in a scientific-claims corpus: the tuning's probes (since 2026-11-27, with
// "what should I pack for a week of skiing" among them), and three more.
const OFF_TOPIC = [
  ...OFF_TOPIC_PROBES,
  "what is the capital city of australia",
  "install a python package with pip behind a proxy",
  "configure nginx reverse proxy with tls certificates",
];

interface Row {
  query: string;
  fit: boolean;
  x: number[];
  fused: number;
  y: 0 | 1;
  /** rank in the list, 0-based */
  rank: number;
}

const asFused = (r: RankedChunk): FusedHit => ({
  id: r.chunk.id,
  score: r.fusedScore,
  lexicalRank: r.lexicalRank,
  vectorRank: r.vectorRank,
  lexicalScore: r.lexicalScore,
  vectorScore: r.vectorScore,
});

/** Scores of one query's rows after the running-minimum cap (rows in rank order), as served. */
const capped = (rows: Row[], model: PlattModel): number[] =>
  cappedRelevance(
    model,
    rows.map((r) => r.x),
  );

const f4 = (x: number) => (Number.isFinite(x) ? x.toFixed(4) : "n/a");

type Ranker = (q: string, mode: RetrievalMode) => Promise<{ mode: RetrievalMode; ranked: RankedChunk[] }>;
const MODES: CalibrationMode[] = ["hybrid", "lexical", "vector"];

/** Every query ranked in each mode: labelled feature rows (7 in 10 queries fit, the rest held out) and the held-out hybrid lists. */
async function rankAll(ctx: Awaited<ReturnType<typeof loadBenchContext>>, rank: Ranker) {
  const rows: Record<CalibrationMode, Row[]> = { hybrid: [], lexical: [], vector: [] };
  const lists = new Map<string, RankedChunk[]>(); // hybrid lists of held-out queries, for the cutoff grid
  log(`ranking ${ctx.queryIds.length} ${SPLIT} queries in ${MODES.length} modes...`);
  for (const [qi, qid] of ctx.queryIds.entries()) {
    const text = ctx.queries.get(qid)!;
    const relevant = ctx.qrels.get(qid)!;
    const fit = qi % 10 < 7;
    for (const mode of MODES) {
      const r = await rank(text, mode);
      if (r.mode !== mode) throw new Error(`asked ${mode}, the engine answered ${r.mode}`);
      const x = features(r.ranked.map(asFused));
      r.ranked.slice(0, DEPTH).forEach((h, i) => rows[mode].push({ query: qid, fit, x: x[i]!, fused: h.fusedScore, y: relevant.has(h.chunk.source) ? 1 : 0, rank: i }));
      if (mode === "hybrid" && !fit) lists.set(qid, r.ranked);
    }
  }
  return { rows, lists };
}

const VARIANTS: { name: string; use: boolean[]; nonNegative?: boolean }[] = [
  { name: "fused only (plain Platt)", use: FEATURES.map((f) => f === "fused") },
  { name: "all features", use: FEATURES.map(() => true) },
  { name: "all features, weights >= 0", use: FEATURES.map(() => true), nonNegative: true },
  { name: "without fused", use: FEATURES.map((f) => f !== "fused") },
  { name: "without lex_log", use: FEATURES.map((f) => f !== "lex_log") },
  { name: "without fused, lex_log", use: FEATURES.map((f) => f !== "fused" && f !== "lex_log") },
];

/** Held-out statistics of one fitted model, after the running-minimum cap as served. */
function heldOutStats(model: PlattModel, held: Row[]) {
  const byQuery = new Map<string, Row[]>();
  for (const r of held) byQuery.set(r.query, [...(byQuery.get(r.query) ?? []), r]);
  const cappedScores: number[] = [];
  const ys: number[] = [];
  let binds = 0;
  for (const list of byQuery.values()) {
    const c = capped(list, model);
    list.forEach((r, i) => {
      if (plattProbability(model, r.x) > c[i]! + 1e-12) binds++;
      cappedScores.push(c[i]!);
      ys.push(r.y);
    });
  }
  const raw = calibrationStats(held.map((r) => plattProbability(model, r.x)), held.map((r) => r.y));
  return { raw, capped: calibrationStats(cappedScores, ys), binds };
}

/** Each variant fitted and printed per mode; the chosen one refitted on every query (fit + held-out). */
function fitVariants(rows: Record<CalibrationMode, Row[]>, chosenFor: Record<CalibrationMode, string>) {
  const chosen: Partial<Record<CalibrationMode, PlattModel>> = {};
  const report: Record<string, unknown> = {};
  for (const mode of MODES) {
    const fitRows = rows[mode].filter((r) => r.fit);
    const held = rows[mode].filter((r) => !r.fit);
    const positives = fitRows.filter((r) => r.y === 1).length;
    console.log(`\n## ${mode}: ${fitRows.length} fit rows (${positives} relevant), ${held.length} held-out rows`);
    console.log(`raw fused score, pooled AUC over held-out hits: ${f4(auc(held.map((r) => r.fused), held.map((r) => r.y)))}`);
    console.log("| features | log-loss | Brier | ECE | pooled AUC | AUC after cap | cap binds |");
    console.log("| --- | --- | --- | --- | --- | --- | --- |");
    for (const v of VARIANTS) {
      const model = v.nonNegative ? fitNonNegative(fitRows, v.use) : fitLogistic(fitRows, v.use);
      const { raw, capped: sc, binds } = heldOutStats(model, held);
      console.log(`| ${v.name} | ${f4(sc.logloss)} | ${f4(sc.brier)} | ${f4(sc.ece)} | ${f4(raw.auc)} | ${f4(sc.auc)} | ${((100 * binds) / held.length).toFixed(1)}% |`);
      console.log(`  weights: intercept ${f4(model.intercept)}, ${FEATURES.map((f, i) => `${f} ${f4(model.weights[i]!)}`).join(", ")}`);
      if (v.name !== chosenFor[mode]) continue;
      chosen[mode] = v.nonNegative ? fitNonNegative(rows[mode], v.use) : fitLogistic(rows[mode], v.use);
      report[mode] = { heldOut: { ...sc, bins: undefined }, reliability: sc.bins.map((b) => (b.n ? [b.n, +(b.p / b.n).toFixed(3), +(b.y / b.n).toFixed(3)] : [0])) };
      console.log(`  reliability of "${v.name}" (held-out, capped; bin: hits, mean score, share relevant):`);
      sc.bins.forEach((b, i) => b.n && console.log(`    [${(i / 10).toFixed(1)}, ${((i + 1) / 10).toFixed(1)}): ${b.n}, ${(b.p / b.n).toFixed(3)}, ${(b.y / b.n).toFixed(3)}`));
    }
  }
  return { chosen, report };
}

const kept = (s: number[], ratio: number, floor: number) => {
  if (s.length === 0) return 0;
  const t = Math.max(ratio * s[0]!, floor);
  return s.filter((v, i) => i === 0 || v >= t).length;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** The first 8 chunks' capped scores (retrieve's default top_k) of on-topic, answerless and off-topic questions. */
async function cutoffLists(model: PlattModel, lists: Map<string, RankedChunk[]>, qrels: ReadonlyMap<string, { has(id: string): boolean }>, rank: Ranker) {
  const scoresOf = (list: RankedChunk[]) => cappedRelevance(model, features(list.map(asFused)));
  const offTopic: number[][] = [];
  for (const q of OFF_TOPIC) offTopic.push(scoresOf((await rank(q, "hybrid")).ranked).slice(0, 8));
  const onTopic: { scores: number[]; labels: number[] }[] = [];
  const noAnswer: number[][] = [];
  for (const [qid, list] of lists) {
    const rel = qrels.get(qid)!;
    const s = scoresOf(list);
    onTopic.push({ scores: s.slice(0, 8), labels: list.slice(0, 8).map((h) => (rel.has(h.chunk.source) ? 1 : 0)) });
    // the same question without its answer: relevant chunks removed, scores recomputed on the rest
    noAnswer.push(scoresOf(list.filter((h) => !rel.has(h.chunk.source))).slice(0, 8));
  }
  return { onTopic, noAnswer, offTopic };
}

/** The retrieve cutoff grid (hybrid, held-out queries), printed and returned. */
function cutoffGrid({ onTopic, noAnswer, offTopic }: Awaited<ReturnType<typeof cutoffLists>>): unknown[] {
  const answersInTop8 = onTopic.reduce((a, q) => a + q.labels.reduce((x, y) => x + y, 0), 0);
  console.log(`\n## retrieve cutoff (hybrid, ${onTopic.length} held-out queries, top_k 8; ${answersInTop8} relevant chunks in their top 8)`);
  console.log("| ratio | floor | answers kept | contexts kept (on-topic) | no-answer: mean kept, share <= 1 | off-topic: mean kept, share <= 1 |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  const grid: unknown[] = [];
  for (const ratio of [0, 0.2, 0.3, 0.4, 0.5, 0.6]) {
    for (const floor of [0, 0.05, 0.1, 0.15, 0.2]) {
      const k = onTopic.map((q) => kept(q.scores, ratio, floor));
      const ans = onTopic.reduce((a, q, i) => a + q.labels.slice(0, k[i]).reduce((x, y) => x + y, 0), 0);
      const na = noAnswer.map((s) => kept(s, ratio, floor));
      const off = offTopic.map((s) => kept(s, ratio, floor));
      const row = {
        ratio,
        floor,
        answersKept: ans / Math.max(1, answersInTop8),
        keptOnTopic: mean(k),
        noAnswerKept: mean(na),
        noAnswerAtMost1: na.filter((n) => n <= 1).length / na.length,
        offTopicKept: mean(off),
        offTopicAtMost1: off.filter((n) => n <= 1).length / off.length,
      };
      grid.push(row);
      console.log(`| ${ratio} | ${floor} | ${f4(row.answersKept)} | ${row.keptOnTopic.toFixed(2)} | ${row.noAnswerKept.toFixed(2)}, ${f4(row.noAnswerAtMost1)} | ${row.offTopicKept.toFixed(2)}, ${f4(row.offTopicAtMost1)} |`);
    }
  }
  console.log(`\nbest scores: on-topic median ${f4(median(onTopic.map((q) => q.scores[0] ?? 0)))}, no-answer median ${f4(median(noAnswer.map((s) => s[0] ?? 0)))}, off-topic median ${f4(median(offTopic.map((s) => s[0] ?? 0)))}`);
  return grid;
}

/** --write: the fitted block replaces the one in src/search/calibration.ts. */
function writeConstants(block: string): void {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "search", "calibration.ts");
  const src = fs.readFileSync(file, "utf8");
  const start = src.indexOf("// --- fitted constants");
  const end = src.indexOf("// ----------", start + 10);
  if (start < 0 || end < 0) throw new Error(`${file}: fitted-constants block not found`);
  fs.writeFileSync(file, src.slice(0, start) + block + "\n" + src.slice(end));
  log(`wrote ${file}`);
}

async function main() {
  const t0 = performance.now();
  const ctx = await loadBenchContext(benchOptions, log);
  const { rt } = ctx;
  try {
    const settings = await searchSettings(rt, ctx.tenant.id, ctx.collectionId);
    const collection = (await rt.store.content.getCollection(ctx.tenant.id, ctx.collectionId))!;
    const rank: Ranker = (q, mode) => rt.engine.rank(ctx.tenant.id, collection.data_source_ids, q, settings, mode);
    if (!rt.engine.vectorsAvailable()) throw new Error("the embedding model is not ready: the hybrid and vector calibrations need it");
    const { rows, lists } = await rankAll(ctx, rank);
    log(`ranked in ${((performance.now() - t0) / 1000).toFixed(0)} s (including the load or its reuse)`);
    // Shipped per mode (chosen on the held-out tables this script prints): every feature with
    // non-negative weights for hybrid and lexical; the fused score alone for vector, whose raw
    // cosine ranks across queries poorly.
    const chosenFor: Record<CalibrationMode, string> = {
      hybrid: opt("hybrid-variant") ?? "all features, weights >= 0",
      lexical: opt("lexical-variant") ?? "all features, weights >= 0",
      vector: opt("vector-variant") ?? "fused only (plain Platt)",
    };
    const { chosen, report } = fitVariants(rows, chosenFor);
    const grid = cutoffGrid(await cutoffLists(chosen.hybrid!, lists, ctx.qrels, rank));
    const fitted = {
      data: `BEIR ${path.basename(benchOptions.dataset)} ${SPLIT} split, ${ctx.queryIds.length} queries, ${MAX_DOCUMENTS ?? "all"} documents (${ctx.load.chunks} chunks), top ${DEPTH} chunks per query`,
      profile: rt.activeProfile.name,
      features: MODES.map((m) => `${m}: ${chosenFor[m]}`).join("; "),
    };
    const block = renderConstants(fitted, chosen as Record<CalibrationMode, PlattModel>);
    console.log(`\n${block}`);
    fs.writeFileSync(path.join(benchOptions.dataDir!, "calibration-report.json"), JSON.stringify({ fitted, models: chosen, report, grid }, null, 2));
    if (WRITE) writeConstants(block);
    log(`done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    await ctx.close();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
}

function renderConstants(fitted: Record<string, string>, models: Record<CalibrationMode, PlattModel>): string {
  const r = (x: number) => Number(x.toFixed(4));
  const m = (k: CalibrationMode) => `  ${k}: { intercept: ${r(models[k].intercept)}, weights: [${models[k].weights.map(r).join(", ")}] },`;
  return [
    "// --- fitted constants (src/evaluation/labs/fit-calibration.ts --write; numbers in docs/decisions.md) ---------------",
    "export const CALIBRATION_FIT = {",
    `  data: ${JSON.stringify(fitted.data)},`,
    `  profile: ${JSON.stringify(fitted.profile)},`,
    `  features: ${JSON.stringify(fitted.features)},`,
    "} as const;",
    "",
    "export const CALIBRATION_MODELS: Readonly<Record<CalibrationMode, PlattModel>> = {",
    m("hybrid"),
    m("lexical"),
    m("vector"),
    "};",
  ].join("\n");
}

await main();
