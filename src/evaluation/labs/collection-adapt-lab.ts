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
import path from "node:path";
import { parseArgs } from "node:util";
import { readModel } from "../../model/artifact.js";
import { StaticEncoder, type EncoderParts } from "../../model/encoder.js";
import type { TextPair } from "../../model/corpus.js";
import { adaptCollection, COLLECTION_ADAPT_DEFAULTS, type CollectionAdaptSettings } from "../../model/collection-adapt.js";
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

/** Heading -> section and inverse-cloze pairs of the set's passages; every fifth heading pair held out. */
function collectionPairs(set: EvalSet, ictPerPassage: number, rnd: Random): { train: TextPair[]; heldOut: TextPair[] } {
  const train: TextPair[] = [];
  const heldOut: TextPair[] = [];
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
function replayPairs(dataDir: string, n: number, rnd: Random): TextPair[] {
  if (n <= 0) return [];
  const lines = fs.readFileSync(path.join(dataDir, "pairs.jsonl"), "utf8").split("\n").filter(Boolean);
  const out: TextPair[] = [];
  while (out.length < n) {
    const o = JSON.parse(lines[Math.floor(rnd.next() * lines.length)]!) as TextPair;
    if (!isDevPair(o.s, distinctQueryTokens(o.q))) out.push({ s: "general", q: o.q, p: o.p });
  }
  return out;
}

/** MRR of each held-out heading against the held-out sections, each without its own heading's words. */
function heldOutMrr(enc: StaticEncoder, heldOut: TextPair[]): number {
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

function report(label: string, set: EvalSet, lexical: ReturnType<typeof lexicalLists>, parts: EncoderParts, heldOut: TextPair[]): void {
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
// the shipped file's rows at their trained scale when asked (docs/model.md, "1/127 of their trained scale")
const rowScale = Number(a["row-scale"]);
if (rowScale !== 1) parts.params.rowScale = parts.params.rowScale!.map((x) => x * rowScale);
log(`${set.name}: ${train.length} collection pairs (${train.filter((p) => p.s === "ict").length} inverse-cloze), ${heldOut.length} held out, ${pairs.length - train.length} replayed`);
report("base", set, lexical, parts, heldOut);
const settings: CollectionAdaptSettings = {
  ...COLLECTION_ADAPT_DEFAULTS,
  epochs: Number(a.epochs),
  lr: Number(a.lr),
  newVocabMin: Number(a["new-vocab-min"]),
  anchor: Number(a.anchor),
};
const t0 = performance.now();
adaptCollection(
  parts,
  pairs,
  settings,
  (epoch, loss, model) => {
    log(`epoch ${epoch}: loss ${loss.toFixed(4)}, ${((performance.now() - t0) / 1000).toFixed(0)} s; vocabulary ${parts.vocabulary.length} + ${model.vocabulary.length - parts.vocabulary.length}`);
    report(`epoch ${epoch}`, set, lexical, model, heldOut);
  },
  rnd,
);
