// Lab (issue 27, 2026-11-29): the whole static model adapted to one collection's own text, both
// sides, then the collection embedded again with it. The service's adaptation (query-adapt.ts)
// trains query rows only, against passages the base model embedded, and learns nothing for words
// the base vocabulary lacks; here every row the collection's pairs touch moves, its frequent
// new words get rows of their own, and passages are embedded by the adapted model.
//
// The collection's pairs, from its passages only (never its questions or judgments): each section's
// heading (or the document's title) -> its text without the heading's words, and inverse-cloze pairs
// (one prose sentence -> the rest of the passage, sentences.ts). Every fifth heading pair is held
// out and scored as the service's adaptation guard scores its held-out pairs (query-adapt.ts
// scorePairs: nDCG@10 of each held-out heading against every heading pair's whole section), the
// passages embedded by the model being scored: the label-free signal a service would have. `--replay R` mixes in R x as many general training pairs, drawn from the service's replay sample
// (model/replay.ts; until 2026-11-29 evening from all of data/model/pairs.jsonl), against forgetting. Prints the base model's and each epoch's figures.
//
//   npx tsx --max-old-space-size=8000 src/evaluation/labs/collection-adapt-lab.ts --set scifact \
//     [--model FILE] [--row-scale 127] [--epochs 2] [--ict 2] [--replay 1] [--new-vocab-min 3]
import path from "node:path";
import { parseArgs } from "node:util";
import { readModel } from "../../model/artifact.js";
import { StaticEncoder, type EncoderParts } from "../../model/encoder.js";
import { adaptCollection, COLLECTION_ADAPT_DEFAULTS, type CollectionAdaptSettings } from "../../model/collection-adapt.js";
import { Random } from "../../model/random.js";
import { passageVectors, scorePairs } from "../../model/query-adapt.js";
import { lexicalLists, plainNdcg, scoreLists, vectorLists, type ModeScores } from "../bench/model/evaluate.js";
import { loadEvalSet, type EvalSet } from "../bench/model/sets.js";
import { collectionPairs, type CollectionPairs } from "./lab-pairs.js";
import { drawReplay, REPLAY_FILE, replayPairs } from "../../model/replay.js";

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
    // the pairs replayed are drawn from this sample (the service's, model/replay.ts)
    "replay-file": { type: "string", default: REPLAY_FILE },
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

const fmt = (m: ModeScores) => {
  const p = plainNdcg(m);
  return p === null ? m.ndcg10.toFixed(4) : `${p.toFixed(4)} plain (${m.ndcg10.toFixed(4)} all)`;
};

async function report(label: string, set: EvalSet, lexical: ReturnType<typeof lexicalLists>, parts: EncoderParts, pairs: CollectionPairs): Promise<void> {
  const enc = new StaticEncoder(parts);
  const heldOut = await scorePairs((q) => enc.embed(q), pairs.headings, passageVectors(enc, pairs.headings, false), pairs.asked);
  const vector = vectorLists(set, { dimension: enc.dimension, embed: (t) => enc.embed(t) });
  const s = scoreLists(set, lexical, vector);
  const weights = a["vector-weights"]!.split(",").filter(Boolean).map(Number);
  const at = weights.map((w) => `; at ${w}: ${fmt(scoreLists(set, lexical, vector, { lexicalWeight: 1 - w, vectorWeight: w }).hybrid)}`).join("");
  log(`${label}: held-out nDCG@10 ${heldOut.ndcg_at_10.toFixed(4)}; lexical ${fmt(s.lexical)}, vector ${fmt(s.vector)}, hybrid ${fmt(s.hybrid)}${at}`);
}

const set = await loadEvalSet(a.set!, a.cache!, log);
if (!set) process.exit(0);
const rnd = new Random(Number(a.seed));
const lexical = lexicalLists(set);
const { parts } = readModel(a.model!);
const collection = collectionPairs(set, Number(a.ict), rnd);
const { train } = collection;
const pairs = [...train, ...drawReplay(replayPairs(a["replay-file"]!), Math.round(Number(a.replay) * train.length), rnd)];
// the shipped file's rows at their trained scale when asked (docs/model.md, "1/127 of their trained
// scale"): the base is scored so, and adaptation starts there
const rowScale = Number(a["row-scale"]);
if (rowScale !== 1) parts.params.rowScale = parts.params.rowScale!.map((x) => x * rowScale);
log(`${set.name}: ${train.length} collection pairs (${train.filter((p) => p.s === "ict").length} inverse-cloze), ${collection.asked.length} held out, ${pairs.length - train.length} replayed`);
await report("base", set, lexical, parts, collection);
// the lab scales the base it reads itself (--row-scale), so adaptation starts from it as given
const settings: CollectionAdaptSettings = {
  ...COLLECTION_ADAPT_DEFAULTS,
  epochs: Number(a.epochs),
  lr: Number(a.lr),
  newVocabMin: Number(a["new-vocab-min"]),
  anchor: Number(a.anchor),
};
const t0 = performance.now();
// each epoch's model copied (training goes on in place), scored once training is done
const epochs: { epoch: number; model: EncoderParts }[] = [];
await adaptCollection(
  parts,
  pairs,
  settings,
  (epoch, loss, model) => {
    log(`epoch ${epoch}: loss ${loss.toFixed(4)}, ${((performance.now() - t0) / 1000).toFixed(0)} s; vocabulary ${parts.vocabulary.length} + ${model.vocabulary.length - parts.vocabulary.length}`);
    epochs.push({ epoch, model: { ...model, params: { ...model.params, table: Float32Array.from(model.params.table), weights: Float32Array.from(model.params.weights) } } });
  },
  rnd,
);
for (const e of epochs) await report(`epoch ${e.epoch}`, set, lexical, e.model, collection);
