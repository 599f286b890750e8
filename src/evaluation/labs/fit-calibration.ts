// Fits the score calibration of src/search/calibration.ts (issue 16, item 3) on a BEIR data set
// with binary qrels (SciFact), and measures it.
//
//   npx tsx src/evaluation/labs/fit-calibration.ts --dataset <BEIR dir> --data-dir <dir> [--split train]
//        [--limit-queries 400] [--max-documents 1200] [--depth 20] [--small 10x60,30x20|none] [--write]
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
// off-topic questions). --write replaces the active profile's fitted-constants block of
// src/search/calibration.ts (EMBEDDING_PROFILE picks the profile).
//
// --small adds sub-collections of SciFact (calibration-collections.ts: SIZExCOUNT, each its own
// tenant) whose queries are ranked in them only: their rows teach the hybrid and vector models the
// `small` feature (a score means the same in a collection of 10 pages, issue 27 item 5). The
// lexical model has no vector list to tell a collection's size by, so it is fitted on the full
// collection alone. Their held-out rows are reported apart, with the off-topic questions' best
// scores in the smallest collections.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadBenchContext } from "../bench/load.js";
import { searchSettings } from "../bench/quality.js";
import type { BenchOptions } from "../bench/args.js";
import type { RankedChunk, RetrievalMode } from "../../search/engine.js";
import type { FusedHit } from "../../search/fusion.js";
import { cappedRelevance, MODEL_FEATURES, features, plattProbability, type CalibrationMode, type PlattModel } from "../../search/calibration.js";
import { importDataset } from "../bench/load-import.js";
import { parseSmallPlans, writeSmallSubsets } from "./calibration-collections.js";
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
const SMALL = opt("small") === "none" ? [] : parseSmallPlans(opt("small") ?? "10x60,30x20");

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
  /** the documents of its collection when it is a small one (--small), else null */
  small: number | null;
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

type Ranker = (q: string, mode: RetrievalMode) => Promise<{ mode: RetrievalMode; ranked: RankedChunk[]; queryTerms?: number }>;
const MODES: CalibrationMode[] = ["hybrid", "lexical", "vector"];

/** A collection to rank queries in: the full load, or a small one (--small). */
interface Target {
  rank: Ranker;
  queryIds: string[];
  /** documents of a small collection; null for the full load */
  small: number | null;
  /** tells its rows' queries apart from the same query asked in another collection */
  name: string;
  /** 7 in 10 fit, the rest held out: by query for the full load, by collection for small ones */
  fit: (qi: number) => boolean;
}

/** The features of a ranked list as served: `small` from the vector list's length (engine fuseCandidates). */
const featuresOf = (ranked: RankedChunk[], queryTerms: number | undefined) =>
  features(ranked.map(asFused), undefined, { vectorComplete: ranked.filter((h) => h.vectorScore !== null).length < 100, queryTerms });

/** Every query ranked in each mode: labelled feature rows and the full load's held-out hybrid lists. */
async function rankAll(targets: Target[], queries: ReadonlyMap<string, string>, qrels: ReadonlyMap<string, { has(id: string): boolean }>) {
  const rows: Record<CalibrationMode, Row[]> = { hybrid: [], lexical: [], vector: [] };
  const lists = new Map<string, { ranked: RankedChunk[]; queryTerms?: number }>(); // hybrid lists of held-out queries, for the cutoff grid
  log(`ranking ${targets.reduce((n, t) => n + t.queryIds.length, 0)} ${SPLIT} queries in ${targets.length} collections, ${MODES.length} modes...`);
  for (const t of targets) {
    for (const [qi, qid] of t.queryIds.entries()) {
      const relevant = qrels.get(qid)!;
      const fit = t.fit(qi);
      for (const mode of MODES) {
        // the lexical model cannot tell a small collection (no vector list): full load only
        if (mode === "lexical" && t.small !== null) continue;
        const r = await t.rank(queries.get(qid)!, mode);
        if (r.mode !== mode) throw new Error(`asked ${mode}, the engine answered ${r.mode}`);
        const x = featuresOf(r.ranked, r.queryTerms);
        r.ranked.slice(0, DEPTH).forEach((h, i) => rows[mode].push({ query: `${t.name}:${qid}`, fit, x: x[i]!, fused: h.fusedScore, y: relevant.has(h.chunk.source) ? 1 : 0, rank: i, small: t.small }));
        if (mode === "hybrid" && !fit && t.small === null) lists.set(qid, r);
      }
    }
  }
  return { rows, lists };
}

const VARIANTS: { name: string; use: boolean[]; nonNegative?: boolean }[] = [
  { name: "fused only (plain Platt)", use: MODEL_FEATURES.map((f) => f === "fused") },
  { name: "fused and small", use: MODEL_FEATURES.map((f) => f === "fused" || f === "small"), nonNegative: true },
  { name: "all features", use: MODEL_FEATURES.map(() => true) },
  { name: "all features, weights >= 0", use: MODEL_FEATURES.map(() => true), nonNegative: true },
  { name: "all but small, weights >= 0", use: MODEL_FEATURES.map((f) => f !== "small"), nonNegative: true },
  { name: "all but lex_mean, weights >= 0", use: MODEL_FEATURES.map((f) => f !== "lex_mean"), nonNegative: true },
  { name: "without fused", use: MODEL_FEATURES.map((f) => f !== "fused") },
  { name: "without lex_log", use: MODEL_FEATURES.map((f) => f !== "lex_log") },
  { name: "without fused, lex_log", use: MODEL_FEATURES.map((f) => f !== "fused" && f !== "lex_log") },
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

/** Small collections' held-out queries under a model: Brier (capped), and how their best hits score. */
function smallSummary(model: PlattModel, held: Row[]): string {
  const byQuery = new Map<string, Row[]>();
  for (const r of held) byQuery.set(r.query, [...(byQuery.get(r.query) ?? []), r]);
  let brier = 0;
  let n = 0;
  const top: { s: number; y: number }[] = [];
  let restAbove = 0;
  for (const list of byQuery.values()) {
    const c = capped(list, model);
    list.forEach((r, i) => ((brier += (c[i]! - r.y) ** 2), n++, i > 0 && r.y === 0 && c[i]! >= 0.5 && restAbove++));
    top.push({ s: c[0]!, y: list[0]!.y });
  }
  const rel = top.filter((t) => t.y === 1);
  const none = [...byQuery.values()].filter((l) => l.every((r) => r.y === 0)).map((l) => capped(l, model)[0]!);
  return (
    `Brier ${f4(brier / n)}; best hit relevant in ${rel.length}/${top.length} queries, median score ${f4(median(rel.map((t) => t.s)))}, >= 0.5 in ${rel.filter((t) => t.s >= 0.5).length}; ` +
    `irrelevant hits below rank 1 at >= 0.5: ${restAbove}; queries with nothing relevant: ${none.length}, best score median ${f4(median(none))}, >= 0.5 in ${none.filter((x) => x >= 0.5).length}`
  );
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
      console.log(`  weights: intercept ${f4(model.intercept)}, ${MODEL_FEATURES.map((f, i) => `${f} ${f4(model.weights[i]!)}`).join(", ")}`);
      const smallHeld = held.filter((r) => r.small !== null);
      if (smallHeld.length) console.log(`  small collections only (held-out): ${smallSummary(model, smallHeld)}`);
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
async function cutoffLists(model: PlattModel, lists: Map<string, { ranked: RankedChunk[]; queryTerms?: number }>, qrels: ReadonlyMap<string, { has(id: string): boolean }>, rank: Ranker) {
  const scoresOf = (list: RankedChunk[], terms: number | undefined) => cappedRelevance(model, featuresOf(list, terms));
  const offTopic: number[][] = [];
  for (const q of OFF_TOPIC) offTopic.push(await rank(q, "hybrid").then((r) => scoresOf(r.ranked, r.queryTerms).slice(0, 8)));
  const onTopic: { scores: number[]; labels: number[] }[] = [];
  const noAnswer: number[][] = [];
  for (const [qid, { ranked: list, queryTerms }] of lists) {
    const rel = qrels.get(qid)!;
    const s = scoresOf(list, queryTerms);
    onTopic.push({ scores: s.slice(0, 8), labels: list.slice(0, 8).map((h) => (rel.has(h.chunk.source) ? 1 : 0)) });
    // the same question without its answer: relevant chunks removed, scores recomputed on the rest
    noAnswer.push(scoresOf(list.filter((h) => !rel.has(h.chunk.source)), queryTerms).slice(0, 8));
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

/** The name of a profile's constant in calibration.ts: quarry-static -> QUARRY_STATIC_PROFILE_CALIBRATION. */
const constantOf = (profile: string) => `${profile.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_PROFILE_CALIBRATION`;

/** --write: the fitted block replaces the profile's block in src/search/calibration.ts. */
function writeConstants(block: string, profile: string): void {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "search", "calibration.ts");
  const src = fs.readFileSync(file, "utf8");
  const start = src.indexOf(`// --- fitted constants: ${profile} `);
  const end = src.indexOf("// ----------", start + 10);
  if (start < 0 || end < 0) throw new Error(`${file}: no fitted-constants block for profile ${profile} (add one and its entry in SHIPPED)`);
  fs.writeFileSync(file, src.slice(0, start) + block + "\n" + src.slice(end));
  log(`wrote ${file} (${profile})`);
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
    const full: Target = { rank, name: "full", queryIds: ctx.queryIds, small: null, fit: (qi) => qi % 10 < 7 };
    const smalls = await smallTargets(rt, ctx);
    const { rows, lists } = await rankAll([full, ...smalls], ctx.queries, ctx.qrels);
    log(`ranked in ${((performance.now() - t0) / 1000).toFixed(0)} s (including the load or its reuse)`);
    // Shipped per mode (chosen on the held-out tables this script prints): every feature with
    // non-negative weights for hybrid and lexical; the fused score alone for vector, whose raw
    // cosine ranks across queries poorly.
    const chosenFor: Record<CalibrationMode, string> = {
      hybrid: opt("hybrid-variant") ?? "all features, weights >= 0",
      lexical: opt("lexical-variant") ?? "all features, weights >= 0",
      vector: opt("vector-variant") ?? (SMALL.length ? "fused and small" : "fused only (plain Platt)"),
    };
    const { chosen, report } = fitVariants(rows, chosenFor);
    const grid = cutoffGrid(await cutoffLists(chosen.hybrid!, lists, ctx.qrels, rank));
    await offTopicInSmall(chosen.hybrid!, smalls);
    const smallText = SMALL.length ? `, and ${SMALL.map((p) => `${p.count} collections of ${p.size} documents`).join(" and ")} (hybrid, vector)` : "";
    const fitted = {
      data: `BEIR ${path.basename(benchOptions.dataset)} ${SPLIT} split, ${ctx.queryIds.length} queries, ${MAX_DOCUMENTS ?? "all"} documents (${ctx.load.chunks} chunks)${smallText}, top ${DEPTH} chunks per query`,
      profile: rt.activeProfile.name,
      features: MODES.map((m) => `${m}: ${chosenFor[m]}`).join("; "),
    };
    const block = renderConstants(fitted, chosen as Record<CalibrationMode, PlattModel>);
    console.log(`\n${block}`);
    fs.writeFileSync(path.join(benchOptions.dataDir!, "calibration-report.json"), JSON.stringify({ fitted, models: chosen, report, grid }, null, 2));
    if (WRITE) writeConstants(block, rt.activeProfile.name);
    log(`done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    await ctx.close();
  }
}

/** The small collections of --small, loaded into the bench runtime (reused from the data dir when it holds them). */
async function smallTargets(rt: Awaited<ReturnType<typeof loadBenchContext>>["rt"], ctx: Awaited<ReturnType<typeof loadBenchContext>>): Promise<Target[]> {
  if (SMALL.length === 0) return [];
  const markerFile = path.join(benchOptions.dataDir!, "calibration-small.json");
  const spec = JSON.stringify(SMALL);
  type Loaded = { tenantId: string; collectionId: string; queryIds: string[]; size: number };
  let loaded: Loaded[] | null = null;
  if (fs.existsSync(markerFile)) {
    const m = JSON.parse(fs.readFileSync(markerFile, "utf8")) as { spec: string; loaded: Loaded[] };
    if (m.spec === spec) loaded = m.loaded;
  }
  if (!loaded) {
    const subsets = await writeSmallSubsets(benchOptions.dataset, SPLIT, SMALL, ctx.queryIds, ctx.queries, ctx.qrels);
    loaded = [];
    log(`loading ${subsets.length} small collections (${SMALL.map((p) => `${p.count} x ${p.size}`).join(", ")} documents)...`);
    for (const sub of subsets) {
      const o = { ...benchOptions, dataset: sub.dir, maxDocuments: null, limitQueries: null };
      const l = await importDataset(rt, o, { dataset: sub.name, title: sub.name }, () => {});
      loaded.push({ tenantId: l.tenant.id, collectionId: l.collectionId, queryIds: sub.queryIds, size: sub.size });
      fs.rmSync(sub.dir, { recursive: true, force: true });
    }
    fs.writeFileSync(markerFile, JSON.stringify({ spec, loaded }));
  }
  // Each collection is also asked the questions of the next one of its size, whose answers it
  // lacks: without them every small list the fit saw would hold its answer, and the model would
  // learn that the top of any short list is relevant (an off-topic question in a 10-page collection
  // then scored 0.5 and more, half of them, in a first fit without them).
  const targets: Target[] = [];
  for (const [ci, l] of loaded.entries()) {
    const settings = await searchSettings(rt, l.tenantId, l.collectionId);
    const collection = (await rt.store.content.getCollection(l.tenantId, l.collectionId))!;
    const rank: Ranker = (q, mode) => rt.engine.rank(l.tenantId, collection.data_source_ids, q, settings, mode);
    const peers = loaded.filter((x) => x.size === l.size);
    const next = peers[(peers.indexOf(l) + 1) % peers.length]!;
    const foreign = next === l ? [] : next.queryIds.filter((q) => !l.queryIds.includes(q));
    targets.push({ rank, name: `small-${ci}`, queryIds: [...l.queryIds, ...foreign], small: l.size, fit: () => ci % 10 < 7 });
  }
  return targets;
}

/** The off-topic questions' best hybrid scores in the smallest collections: a question they cannot answer should stay low. */
async function offTopicInSmall(model: PlattModel, smalls: Target[]): Promise<void> {
  const size = Math.min(...smalls.map((t) => t.small!));
  const best: number[] = [];
  for (const t of smalls.filter((x) => x.small === size)) {
    for (const q of OFF_TOPIC) {
      const r = await t.rank(q, "hybrid");
      if (r.ranked.length) best.push(cappedRelevance(model, featuresOf(r.ranked, r.queryTerms))[0]!);
    }
  }
  if (best.length === 0) return;
  console.log(`\noff-topic questions in the ${size}-document collections (hybrid): best score median ${f4(median(best))}, >= 0.5 in ${best.filter((b) => b >= 0.5).length}/${best.length}, >= 0.3 in ${best.filter((b) => b >= 0.3).length}`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
}

function renderConstants(fitted: Record<string, string>, models: Record<CalibrationMode, PlattModel>): string {
  const r = (x: number) => Number(x.toFixed(4));
  const m = (k: CalibrationMode) => `    ${k}: { intercept: ${r(models[k].intercept)}, weights: [${models[k].weights.map(r).join(", ")}] },`;
  return [
    `// --- fitted constants: ${fitted.profile} (src/evaluation/labs/fit-calibration.ts --write; numbers in docs/decisions.md) ---`,
    `export const ${constantOf(fitted.profile!)}: ShippedCalibration = {`,
    "  fit: {",
    `    data: ${JSON.stringify(fitted.data)},`,
    `    profile: ${JSON.stringify(fitted.profile)},`,
    `    features: ${JSON.stringify(fitted.features)},`,
    "  },",
    "  models: {",
    m("hybrid"),
    m("lexical"),
    m("vector"),
    "  },",
    "};",
  ].join("\n");
}

await main();
