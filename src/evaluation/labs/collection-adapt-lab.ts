// Lab (issue 27, 2026-11-29): the whole static model adapted to one collection's own text, both
// sides, then the collection embedded again with it. The service's adaptation (query-adapt.ts)
// trains query rows only, against passages the base model embedded, and learns nothing for words
// the base vocabulary lacks; here every row the collection's pairs touch moves, its frequent
// new words get rows of their own, and passages are embedded by the adapted model.
//
// The collection's pairs, from its passages only (never its questions or judgments): each section's
// heading (or the document's title) -> its text without the heading's words, and inverse-cloze pairs
// (one prose sentence -> the rest of the passage, sentences.ts). Every fifth heading pair is held
// out and scored (MRR of the heading against the held-out sections): the label-free signal a
// service would have. `--replay R` mixes in R x as many general training pairs (the dev split left
// out), against forgetting. Prints the base model's and each epoch's figures.
//
//   npx tsx --max-old-space-size=8000 src/evaluation/labs/collection-adapt-lab.ts --set scifact \
//     [--model FILE] [--row-scale 127] [--epochs 2] [--ict 2] [--replay 1] [--new-vocab-min 3]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { readModel } from "../../model/artifact.js";
import { StaticEncoder, type EncoderParts } from "../../model/encoder.js";
import { readPairCorpus, tokenHashes, type PairCorpus } from "../../model/corpus.js";
import { bagOf, globalIds, trainBatch, type TokenMaps } from "../../model/batch.js";
import { SparseAdam, ADAM_DEFAULTS } from "../../model/adam.js";
import type { PoolGradients, PoolParams } from "../../model/pooling.js";
import { Random } from "../../model/random.js";
import { distinctQueryTokens, isDevPair } from "../../model/dev-split.js";
import { words } from "../../model/mining/sections.js";
import { modelTokens } from "../../model/tokenizer.js";
import { lexicalLists, plainNdcg, scoreLists, vectorLists, type ModeScores } from "../bench/model/evaluate.js";
import { loadEvalSet, type EvalSet } from "../bench/model/sets.js";
import { proseSentence, splitSentences } from "./sentences.js";

const { values: a } = parseArgs({
  options: {
    set: { type: "string", default: "scifact" },
    model: { type: "string", default: path.join("model", "quarry-static-v1.qsm") },
    // 127: the shipped file's rows at their trained scale (docs/model.md, "1/127 of their trained scale")
    "row-scale": { type: "string", default: "1" },
    epochs: { type: "string", default: "2" },
    lr: { type: "string", default: "0.01" },
    ict: { type: "string", default: "2" },
    replay: { type: "string", default: "0" },
    data: { type: "string", default: path.join("data", "model") },
    "new-vocab-min": { type: "string", default: "3" },
    // a data-free alternative to replay: each step pulls the rows it moved this share of the way back to their start
    anchor: { type: "string", default: "0" },
    seed: { type: "string", default: "1" },
    // hybrid also at these vector weights (lexical: 1 minus each), beside the service's fusion
    "vector-weights": { type: "string", default: "" },
    cache: { type: "string", default: path.join("bench-results", "model-cache") },
  },
});
const log = (m: string) => process.stderr.write(`${m}\n`);
const BATCH = 128;

type Pair = { s: "heading" | "ict" | "general"; q: string; p: string };

/** Heading -> section and inverse-cloze pairs of the set's passages; every fifth heading pair held out. */
function collectionPairs(set: EvalSet, ictPerPassage: number, rnd: Random): { train: Pair[]; heldOut: Pair[] } {
  const train: Pair[] = [];
  const heldOut: Pair[] = [];
  let headings = 0;
  for (const p of set.passages) {
    const q = p.headings.at(-1) ?? p.title;
    if (q && words(p.body).length >= 5) (headings++ % 5 === 4 ? heldOut : train).push({ s: "heading", q, p: p.body });
    const sentences = splitSentences(p.body);
    if (sentences.length < 3) continue;
    const candidates = sentences.map((s, i) => (proseSentence(s) ? i : -1)).filter((i) => i >= 0);
    for (let k = 0; k < ictPerPassage && candidates.length > 0; k++) {
      const pick = candidates.splice(Math.floor(rnd.next() * candidates.length), 1)[0]!;
      train.push({ s: "ict", q: sentences[pick]!, p: sentences.filter((_, i) => i !== pick).join(" ") });
    }
  }
  return { train, heldOut };
}

/** `n` general training pairs, a seeded sample of the mined ones outside the dev split. */
function replayPairs(dataDir: string, n: number, rnd: Random): Pair[] {
  if (n <= 0) return [];
  const lines = fs.readFileSync(path.join(dataDir, "pairs.jsonl"), "utf8").split("\n").filter(Boolean);
  const out: Pair[] = [];
  while (out.length < n) {
    const o = JSON.parse(lines[Math.floor(rnd.next() * lines.length)]!) as { s: string; q: string; p: string };
    if (!isDevPair(o.s, distinctQueryTokens(o.q))) out.push({ s: "general", q: o.q, p: o.p });
  }
  return out;
}

async function corpusOf(pairs: Pair[]): Promise<PairCorpus> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "collection-adapt-")), "pairs.jsonl");
  fs.writeFileSync(file, pairs.map((p) => JSON.stringify(p)).join("\n") + "\n");
  return readPairCorpus(file);
}

/** The base model as float rows (row-scale times the file's), its vocabulary extended by the corpus's frequent new tokens (rows 0). */
function startingModel(parts: EncoderParts, rowScale: number, corpus: PairCorpus, minCount: number): EncoderParts & { params: PoolParams & { table: Float32Array } } {
  const dim = parts.shape.dim;
  const vocabulary = [...parts.vocabulary];
  const known = new Set(vocabulary);
  corpus.tokens.forEach((t, id) => {
    if (minCount > 0 && !known.has(t) && corpus.frequency[id]! >= minCount) vocabulary.push(t);
  });
  const table = new Float32Array(vocabulary.length * dim);
  const t8 = parts.params.table;
  const scale = parts.params.rowScale;
  for (let i = 0; i < parts.vocabulary.length * dim; i++) table[i] = t8[i]! * (scale ? scale[Math.floor(i / dim)]! : 1) * rowScale;
  const weights = new Float32Array(vocabulary.length).fill(parts.params.oovWeight);
  weights.set(parts.params.weights);
  return { ...parts, vocabulary, params: { table, weights, oovWeight: parts.params.oovWeight, gamma: parts.params.gamma } };
}

/** One epoch of the trainer's contrastive loss over the corpus, rows and weights; returns the mean loss. */
interface Optimizer {
  table: SparseAdam;
  logW: Float32Array;
  weights: SparseAdam;
  step: number;
  /** the rows at the start, and the share of the way back to them each step (0: none) */
  start: Float32Array;
  anchor: number;
}

function pullBack(table: Float32Array, o: Optimizer, rows: Iterable<number>, dim: number): void {
  if (o.anchor <= 0) return;
  for (const r of rows) for (let j = r * dim; j < (r + 1) * dim; j++) table[j]! -= o.anchor * (table[j]! - o.start[j]!);
}

function trainEpoch(model: ReturnType<typeof startingModel>, corpus: PairCorpus, maps: TokenMaps, opt: Optimizer, rnd: Random): number {
  const { shape, params } = model;
  const v = model.vocabulary.length;
  const grad: PoolGradients = { table: new Float32Array(v * shape.dim), touched: new Set(), logWeights: new Float32Array(v), logOov: 0, logGamma: 0 };
  const order = rnd.shuffle(Uint32Array.from({ length: corpus.sourceOf.length }, (_, i) => i));
  const batches = Math.floor(order.length / BATCH);
  let sum = 0;
  for (let b = 0; b < batches; b++) {
    const ids = [...order.subarray(b * BATCH, (b + 1) * BATCH)];
    const queries = ids.map((i) => bagOf(corpus.queries, i, maps));
    // an inverse-cloze passage already lacks its sentence; the others lose their query's words
    const passages = ids.map((i) => bagOf(corpus.passages, i, maps, corpus.sources[corpus.sourceOf[i]!] === "ict" ? undefined : globalIds(corpus.queries, i)));
    sum += trainBatch(shape, params, queries, passages, { temperature: 0.05, symmetric: true }, grad);
    opt.step++;
    opt.table.step(grad.table, grad.touched, opt.step);
    pullBack(params.table, opt, grad.touched, shape.dim);
    const touched = [...grad.touched];
    opt.weights.step(grad.logWeights, touched, opt.step);
    for (const r of touched) params.weights[r] = Math.exp(opt.logW[r]!);
    grad.touched.clear();
  }
  return sum / Math.max(1, batches);
}

/** MRR of each held-out heading against the held-out sections, each without its own heading's words. */
function heldOutMrr(enc: StaticEncoder, heldOut: Pair[]): number {
  const passages = heldOut.map((h) => {
    const drop = new Set(modelTokens(h.q));
    return enc.embed(h.p.split(/(\s+)/).filter((w) => !modelTokens(w).some((t) => drop.has(t))).join(""));
  });
  let mrr = 0;
  heldOut.forEach((h, i) => {
    const q = enc.embed(h.q);
    const scores = passages.map((p) => p.reduce((s, x, j) => s + x * q[j]!, 0));
    mrr += 1 / (1 + scores.filter((s) => s > scores[i]!).length);
  });
  return mrr / Math.max(1, heldOut.length);
}

const fmt = (m: ModeScores) => {
  const p = plainNdcg(m);
  return p === null ? m.ndcg10.toFixed(4) : `${p.toFixed(4)} plain (${m.ndcg10.toFixed(4)} all)`;
};

function report(label: string, set: EvalSet, lexical: ReturnType<typeof lexicalLists>, parts: EncoderParts, heldOut: Pair[]): void {
  const enc = new StaticEncoder(parts);
  const vector = vectorLists(set, { dimension: enc.dimension, embed: (t) => enc.embed(t) });
  const s = scoreLists(set, lexical, vector);
  const weights = a["vector-weights"]!.split(",").filter(Boolean).map(Number);
  const at = weights.map((w) => `; at ${w}: ${fmt(scoreLists(set, lexical, vector, { lexicalWeight: 1 - w, vectorWeight: w }).hybrid)}`).join("");
  log(`${label}: held-out MRR ${heldOutMrr(enc, heldOut).toFixed(4)}; lexical ${fmt(s.lexical)}, vector ${fmt(s.vector)}, hybrid ${fmt(s.hybrid)}${at}`);
}

const set = await loadEvalSet(a.set!, a.cache!, log);
if (!set) process.exit(0);
const rnd = new Random(Number(a.seed));
const lexical = lexicalLists(set);
const { parts } = readModel(a.model!);
const { train, heldOut } = collectionPairs(set, Number(a.ict), rnd);
const pairs = [...train, ...replayPairs(a.data!, Math.round(Number(a.replay) * train.length), rnd)];
const corpus = await corpusOf(pairs);
const model = startingModel(parts, Number(a["row-scale"]), corpus, Number(a["new-vocab-min"]));
log(`${set.name}: ${train.length} collection pairs (${train.filter((p) => p.s === "ict").length} inverse-cloze), ${heldOut.length} held out, ${pairs.length - train.length} replayed; vocabulary ${parts.vocabulary.length} + ${model.vocabulary.length - parts.vocabulary.length}`);
report("base", set, lexical, model, heldOut);
const rowOf = new Map(model.vocabulary.map((t, i) => [t, i]));
const maps: TokenMaps = { rowOf: Int32Array.from(corpus.tokens, (t) => rowOf.get(t) ?? -1), hashes: tokenHashes(corpus, parts.identitySeed) };
const logW = Float32Array.from(model.params.weights, Math.log);
const opt: Optimizer = {
  table: new SparseAdam(model.params.table, model.shape.dim, { ...ADAM_DEFAULTS, lr: Number(a.lr) }),
  logW,
  weights: new SparseAdam(logW, 1, { ...ADAM_DEFAULTS, lr: Number(a.lr) }),
  step: 0,
  start: Float32Array.from(model.params.table),
  anchor: Number(a.anchor),
};
const t0 = performance.now();
for (let epoch = 1; epoch <= Number(a.epochs); epoch++) {
  const loss = trainEpoch(model, corpus, maps, opt, rnd);
  log(`epoch ${epoch}: loss ${loss.toFixed(4)}, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  report(`epoch ${epoch}`, set, lexical, model, heldOut);
}
