// Lab (issue 27, 2026-11-28): a sentence-level teacher for the static model. Each vocabulary
// token's row is the mean of USE lite int8's vectors of the training texts (queries and passages of
// a seeded sample of pairs, the dev split left out) that contain it, centred and shrunk toward 0
// for rare tokens, then PCA-reduced to the table's width: the token learns the sentences it occurs
// in, not only its own word as teacher.ts's rows do. Optionally the contrastive trainer continues
// from those rows. Writes model files to score with dev-proxy.ts and `npm run model:eval`;
// results in docs/model.md ("a sentence-level teacher").
//
//   npx tsx --max-old-space-size=12000 src/evaluation/labs/context-teacher-lab.ts \
//     [--data data/model] [--pairs 60000] [--out DIR] [--gammas 0.1,0.3,1] [--train '{"mask":1,"devHoldOut":true}']
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { parseArgs } from "node:util";
import { readCorpusCache, readPairCorpus, writeCorpusCache, type PairCorpus } from "../../model/corpus.js";
import { chooseVocabulary } from "../../model/vocabulary.js";
import { devPairs, startingWeights, train, TRAIN_DEFAULTS, type TrainSettings } from "../../model/train.js";
import { pcaRows, scaleToMeanNorm } from "../../model/teacher.js";
import { modelTokens } from "../../model/tokenizer.js";
import { writeModel } from "../../model/artifact.js";
import { Random } from "../../model/random.js";
import { MODEL_ID } from "../../model/paths.js";
import { builtInProfiles, createEmbedder } from "../../embed/index.js";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: path.join("data", "model") },
    pairs: { type: "string", default: "60000" },
    out: { type: "string", default: path.join("bench-results", "context-teacher") },
    gammas: { type: "string", default: "0.1,0.3,1" },
    train: { type: "string" },
  },
});
const log = (m: string) => process.stderr.write(`${m}\n`);
/** a token seen in c texts gets sum / (c + SHRINK): rare tokens' noisy means move toward 0 */
const SHRINK = 2;
const D = 512;

async function corpusOf(pairsFile: string): Promise<PairCorpus> {
  const cache = `${pairsFile}.lab.bags`;
  if (fs.existsSync(cache)) return readCorpusCache(cache);
  const corpus = await readPairCorpus(pairsFile);
  writeCorpusCache(cache, corpus);
  return corpus;
}

/** The query and passage texts of `n` seeded pairs outside the dev split. */
async function sampleTexts(pairsFile: string, corpus: PairCorpus, n: number): Promise<string[]> {
  const dev = devPairs(corpus);
  const order = Uint32Array.from({ length: corpus.sourceOf.length }, (_, i) => i);
  new Random(20261128).shuffle(order);
  const chosen = new Set<number>();
  for (const i of order) {
    if (chosen.size >= n) break;
    if (!dev.has(i)) chosen.add(i);
  }
  const texts: string[] = [];
  let i = 0;
  for await (const line of readline.createInterface({ input: fs.createReadStream(pairsFile, { encoding: "utf8" }), crlfDelay: Infinity })) {
    if (!line) continue; // as readPairCorpus counts pairs
    if (chosen.has(i++)) {
      const pair = JSON.parse(line) as { q: string; p: string };
      texts.push(pair.q, pair.p);
    }
  }
  return texts;
}

async function teacherVectors(texts: string[]): Promise<Float32Array> {
  const embedder = createEmbedder(builtInProfiles().find((p) => p.name === "use-lite-int8")!, { modelsDir: "", allowDownload: false, poolSize: 2 });
  if (!(await embedder.whenReady())) throw new Error(`the teacher did not load: ${embedder.status().detail}`);
  const out = new Float32Array(texts.length * D);
  const t0 = performance.now();
  for (let i = 0; i < texts.length; i += 2000) {
    (await embedder.embedPassages(texts.slice(i, i + 2000))).forEach((v, k) => out.set(v, (i + k) * D));
    log(`embedded ${Math.min(texts.length, i + 2000)} / ${texts.length} texts, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  await embedder.close();
  return out;
}

/** Each vocabulary row: the shrunk mean of the centred teacher vectors of the texts holding it, PCA to `dim`, mean norm 1. */
function contextRows(texts: string[], vectors: Float32Array, tokens: string[], dim: number): Float32Array {
  const rowOf = new Map(tokens.map((t, r) => [t, r]));
  const mean = new Float64Array(D);
  for (let i = 0; i < texts.length; i++) for (let j = 0; j < D; j++) mean[j] += vectors[i * D + j]! / texts.length;
  const sums = new Float32Array(tokens.length * D);
  const counts = new Float32Array(tokens.length);
  texts.forEach((t, i) => {
    for (const token of new Set(modelTokens(t))) {
      const r = rowOf.get(token);
      if (r === undefined) continue;
      counts[r]++;
      for (let j = 0; j < D; j++) sums[r * D + j] += vectors[i * D + j]! - mean[j]!;
    }
  });
  for (let r = 0; r < tokens.length; r++) for (let j = 0; j < D; j++) sums[r * D + j] /= counts[r]! + SHRINK;
  log(`rows with contexts: ${counts.filter((c) => c > 0).length} / ${tokens.length}`);
  return scaleToMeanNorm(pcaRows(sums, tokens.length, D, dim), dim, 1, (r) => counts[r]! > 0);
}

const pairsFile = path.join(values.data, "pairs.jsonl");
const corpus = await corpusOf(pairsFile);
const s = TRAIN_DEFAULTS;
const vocab = chooseVocabulary(corpus, s.vocabSize, s.minCount);
const texts = await sampleTexts(pairsFile, corpus, Number(values.pairs));
log(`${texts.length} texts from ${values.pairs} pairs; vocabulary ${vocab.tokens.length}`);
const rows = contextRows(texts, await teacherVectors(texts), vocab.tokens, s.dim);
const { weights, oovWeight } = startingWeights(corpus, vocab);
fs.mkdirSync(values.out, { recursive: true });
const shape = { dim: s.dim, identityDim: s.identityDim };
const training = { lab: "context-teacher", pairs: Number(values.pairs), texts: texts.length, shrink: SHRINK };
for (const gamma of values.gammas.split(",").map(Number)) {
  const file = path.join(values.out, `untrained-g${gamma}.qsm`);
  writeModel(file, { vocabulary: vocab.tokens, params: { table: rows, weights, oovWeight, gamma }, shape, identitySeed: s.seed }, { model: MODEL_ID, training });
  log(`wrote ${file}`);
}
if (values.train) {
  const settings: TrainSettings = { ...s, ...(JSON.parse(values.train) as Partial<TrainSettings>) };
  let last = 0;
  const model = train(
    corpus,
    settings,
    (p) => {
      if (p.batch - last >= 200 || p.batch === p.batches) log(`training: epoch ${p.epoch}, batch ${(last = p.batch)} / ${p.batches}, loss ${p.loss.toFixed(3)}`);
    },
    rows,
  );
  const file = path.join(values.out, "trained.qsm");
  writeModel(file, { vocabulary: model.vocabulary, params: model.params, shape: model.shape, identitySeed: settings.seed }, { model: MODEL_ID, training: { ...training, settings, history: model.history } });
  for (const h of model.history) log(`epoch ${h.epoch}: loss ${h.loss.toFixed(4)}, held-out recall@1 ${h.heldOutRecall1.toFixed(4)}, ${h.seconds.toFixed(0)} s`);
  log(`wrote ${file}`);
}
process.exit(0);
