// Lab (issue 27, 2026-11-29 night): late interaction over the static model's token rows. A static
// model pools a text into one vector, so a query's words are matched only through their sum; but
// its passage "token vectors" are its own rows, so a soft term match costs nothing to store: each
// query token's best cosine against the passage's tokens (1 for the same token, through the
// identity hash), averaged with the model's token weights. This reranks hybrid's top candidates,
// fused with the hybrid order by min-max weighted fusion. In memory, hybrid at the service's
// fusion; optionally after the service's whole-model adaptation to the set's passages (its recipe:
// heading pairs with every fifth held out, two inverse-cloze pairs a passage, three times as many
// replayed general pairs, one epoch).
//
//   BEIR_DATA_DIR=… npx tsx --max-old-space-size=8000 src/evaluation/labs/late-interaction-lab.ts \
//     --sets node,postgres,scifact,libreoffice --row-scale 127 [--adapt] [--coverage] [--top 50] [--weights 0.2,0.3,0.4,0.5]
import path from "node:path";
import { parseArgs } from "node:util";
import { readModel } from "../../model/artifact.js";
import { StaticEncoder, type EncoderParts } from "../../model/encoder.js";
import type { TokenBag } from "../../model/pooling.js";
import { adaptCollection, COLLECTION_ADAPT_DEFAULTS } from "../../model/collection-adapt.js";
import { Random } from "../../model/random.js";
import { drawReplay, replayPairs } from "../../model/replay.js";
import { fusedLists, lexicalRuns, plainNdcg, scoreLists, vectorLists, type ModeScores } from "../bench/model/evaluate.js";
import { embeddedText, loadEvalSet, type EvalSet } from "../bench/model/sets.js";
import { fuse, type Candidate } from "../../search/fusion.js";
import { collectionPairs } from "./lab-pairs.js";

const { values: a } = parseArgs({
  options: {
    sets: { type: "string", default: "node,postgres,scifact,libreoffice" },
    model: { type: "string", default: path.join("model", "quarry-static-v1.qsm") },
    "row-scale": { type: "string", default: "127" },
    adapt: { type: "boolean", default: false },
    top: { type: "string", default: "50" },
    weights: { type: "string", default: "0.2,0.3,0.4,0.5" },
    // a token pair below this cosine counts as no match (0: every similarity counts)
    "min-cos": { type: "string", default: "0" },
    // the soft weight scaled by how little of the query the best lexical hit covers (coverage.ts):
    // a question whose words the top hit already holds keeps hybrid's order
    coverage: { type: "boolean", default: false },
    cache: { type: "string", default: path.join("bench-results", "model-cache") },
  },
});
const log = (m: string) => process.stderr.write(`${m}\n`);
const fmt = (m: ModeScores) => {
  const p = plainNdcg(m);
  return p === null ? m.ndcg10.toFixed(4) : `${p.toFixed(4)} plain / ${m.ndcg10.toFixed(4)} all`;
};

/** The model's rows as unit vectors (served rows times their scale), for cosines between tokens. */
function unitRows(parts: EncoderParts): Float32Array {
  const dim = parts.shape.dim;
  const { table, rowScale } = parts.params;
  const out = new Float32Array(parts.vocabulary.length * dim);
  for (let r = 0; r < parts.vocabulary.length; r++) {
    const s = rowScale ? rowScale[r]! : 1;
    let n = 0;
    for (let j = 0; j < dim; j++) n += (table[r * dim + j]! * s) ** 2;
    const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
    for (let j = 0; j < dim; j++) out[r * dim + j] = table[r * dim + j]! * s * inv;
  }
  return out;
}

/** Each query token's best cosine against the passage's tokens (1 for the same token), weighted by the model's token weights. */
function softMatch(parts: EncoderParts, unit: Float32Array, q: TokenBag, p: TokenBag, minCos: number): number {
  const dim = parts.shape.dim;
  let num = 0;
  let den = 0;
  for (let i = 0; i < q.length; i++) {
    const qr = q.rows[i]!;
    const w = qr >= 0 ? parts.params.weights[qr]! : parts.params.oovWeight;
    let best = 0;
    for (let k = 0; k < p.length && best < 1; k++) {
      if (p.hashes[k] === q.hashes[i]) best = 1;
      else if (qr >= 0 && p.rows[k]! >= 0) {
        let s = 0;
        for (let j = 0, x = qr * dim, y = p.rows[k]! * dim; j < dim; j++) s += unit[x + j]! * unit[y + j]!;
        best = Math.max(best, s);
      }
    }
    num += best >= minCos ? w * best : 0;
    den += w;
  }
  return den > 0 ? num / den : 0;
}

/** The service's whole-model adaptation recipe on the set's passages. */
async function adapted(parts: EncoderParts, set: EvalSet): Promise<EncoderParts> {
  const rnd = new Random(1);
  const { train } = collectionPairs(set, 2, rnd);
  const pairs = [...train, ...drawReplay(replayPairs(), 3 * train.length, rnd)];
  const t0 = performance.now();
  const run = await adaptCollection(parts, pairs, COLLECTION_ADAPT_DEFAULTS, undefined, rnd);
  log(`${set.name}: adapted on ${train.length} pairs of its own and ${pairs.length - train.length} replayed, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return run.model;
}

const top = Number(a.top);
const shipped = readModel(a.model!).parts;
for (const name of a.sets!.split(",")) {
  const set = await loadEvalSet(name, a.cache!, log);
  if (!set) continue;
  let parts: EncoderParts = { ...shipped, params: { ...shipped.params, rowScale: shipped.params.rowScale!.map((x) => x * Number(a["row-scale"])) } };
  if (a.adapt) parts = await adapted(parts, set);
  const enc = new StaticEncoder(parts);
  const unit = unitRows(parts);
  const { lists: lexical, coverage } = lexicalRuns(set);
  const vector = vectorLists(set, { dimension: enc.dimension, embed: (t) => enc.embed(t) });
  const s = scoreLists(set, lexical, vector);
  log(`${name}: lexical ${fmt(s.lexical)}, vector ${fmt(s.vector)}, hybrid ${fmt(s.hybrid)}`);
  const hybrid = fusedLists(lexical, vector);
  const bags = new Map<number, TokenBag>();
  const bagOf = (i: number) => bags.get(i) ?? bags.set(i, enc.bag(embeddedText(set.passages[i]!))).get(i)!;
  const soft: Candidate[][] = set.queries.map((q, qi) => {
    const qb = enc.bag(q.text);
    return hybrid[qi]!.slice(0, top)
      .map((c) => ({ id: c.id, score: softMatch(parts, unit, qb, bagOf(Number(c.id)), Number(a["min-cos"])) }))
      .sort((x, y) => y.score - x.score);
  });
  log(`  soft match alone over hybrid's top ${top}: ${fmt(scoreLists(set, soft, soft).lexical)}`);
  for (const w of a.weights!.split(",").map(Number)) {
    const reranked = hybrid.map((h, i) => {
      const wi = a.coverage ? w * (1 - coverage[i]!) : w;
      return [...fuse(h.slice(0, top), soft[i]!, { method: "weighted", lexicalWeight: 1 - wi, vectorWeight: wi, normalization: "minmax" }, { lexicalComplete: true }), ...h.slice(top)];
    });
    log(`  hybrid's top ${top} reranked, soft match weight ${w}: ${fmt(scoreLists(set, reranked, reranked).lexical)}`);
  }
}
