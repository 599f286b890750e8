// npm run model:train -- [--data DIR] [--out FILE] [--settings JSON]: trains the static model on
// the pairs that npm run model:data mined into DIR (default data/model) and writes the model file
// (default DIR/trained.qsm). It evaluates nothing but its held-out pairs: npm run model:eval scores
// the file on the evaluation sets and promotes it into model/ when it is better.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createProgress } from "../terminal/progress.js";
import { writeModel } from "./artifact.js";
import { readCorpusCache, readPairCorpus, writeCorpusCache, type PairCorpus } from "./corpus.js";
import { train, TRAIN_DEFAULTS, type TrainSettings } from "./train.js";
import { MODEL_ID } from "./paths.js";
import { TOKENIZER_VERSION } from "./tokenizer.js";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: path.join("data", "model") },
    out: { type: "string" },
    settings: { type: "string", default: "{}" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  process.stdout.write("Usage: npm run model:train -- [--data DIR] [--out FILE] [--settings JSON]\nTrains on DIR/pairs.jsonl (npm run model:data) and writes the model file (default DIR/trained.qsm).\n");
  process.exit(0);
}

const dataDir = values.data;
const pairsFile = path.join(dataDir, "pairs.jsonl");
if (!fs.existsSync(pairsFile)) {
  process.stderr.write(`No training pairs at ${pairsFile}: run npm run model:data first (it mines them from installed packages).\n`);
  process.exit(2);
}
const manifest = JSON.parse(fs.readFileSync(path.join(dataDir, "manifest.json"), "utf8")) as { sha256: string; pairs: number };
const settings: TrainSettings = { ...TRAIN_DEFAULTS, ...(JSON.parse(values.settings) as Partial<TrainSettings>) };

async function loadCorpus(): Promise<PairCorpus> {
  // the tokenized pairs are cached beside them, keyed by the data's hash and the tokenizer
  const cache = path.join(dataDir, `pairs-${manifest.sha256.slice(0, 16)}-t${TOKENIZER_VERSION}.bags`);
  if (fs.existsSync(cache)) return readCorpusCache(cache);
  const progress = createProgress("model:train tokenizing");
  const corpus = await readPairCorpus(pairsFile, (n) => progress.update(n, manifest.pairs));
  progress.stop();
  writeCorpusCache(cache, corpus);
  return corpus;
}

const t0 = performance.now();
const corpus = await loadCorpus();
const progress = createProgress("model:train");
const model = train(corpus, settings, (p) => progress.update((p.epoch - 1) * p.batches + p.batch, settings.epochs * p.batches, `epoch ${p.epoch}, loss ${p.loss.toFixed(3)}`));
progress.stop();
const seconds = Math.round((performance.now() - t0) / 1000);
const out = values.out ?? path.join(dataDir, "trained.qsm");
const header = writeModel(
  out,
  { vocabulary: model.vocabulary, params: model.params, shape: model.shape, identitySeed: settings.seed },
  {
    model: MODEL_ID,
    training: { data_sha256: manifest.sha256, pairs: manifest.pairs, settings, history: model.history, seconds, machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? "cpu"}` },
  },
);
for (const h of model.history) process.stderr.write(`epoch ${h.epoch}: loss ${h.loss.toFixed(4)}, held-out recall@1 ${h.heldOutRecall1.toFixed(4)}, ${h.seconds.toFixed(0)} s\n`);
process.stderr.write(`${out}: ${header.vocab_size} tokens x ${header.dim} + ${header.identity_dim} identity dimensions, ${(fs.statSync(out).size / 1e6).toFixed(1)} MB, ${seconds} s\n`);
