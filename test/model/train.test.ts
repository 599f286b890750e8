// The trainer on a small fixed pair set whose queries share no word with their passages: only
// the trained rows can match them, so held-out pairs are ranked right only if training worked.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPairCorpus, type PairCorpus } from "../../src/model/corpus.js";
import { train, TRAIN_DEFAULTS, type TrainedModel } from "../../src/model/train.js";
import { StaticEncoder } from "../../src/model/encoder.js";
import { readModel, writeModel } from "../../src/model/artifact.js";
import { Random } from "../../src/model/random.js";

const TOPICS = 24;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-train-"));
const word = (kind: string, topic: number, i: number) => `${kind}${String.fromCharCode(97 + (topic % 26))}${String.fromCharCode(97 + Math.floor(topic / 26))}${String.fromCharCode(97 + i)}x`;

/** A query of two of the topic's asking words; a passage of six of its answering words. */
function pair(rnd: Random, topic: number): { q: string; p: string } {
  const pick = (kind: string, n: number, of: number) => Array.from({ length: n }, () => word(kind, topic, Math.floor(rnd.next() * of))).join(" ");
  return { q: pick("ask", 2, 4), p: pick("ans", 6, 10) };
}

let corpus: PairCorpus;
const settings = { ...TRAIN_DEFAULTS, dim: 32, identityDim: 32, vocabSize: 1000, minCount: 1, batchSize: 24, epochs: 6, heldOut: 0, lr: 0.05, mask: 0 };

beforeAll(async () => {
  const rnd = new Random(1);
  const lines = Array.from({ length: 720 }, (_, i) => JSON.stringify({ s: "synthetic", k: "heading", ...pair(rnd, i % TOPICS) }));
  fs.writeFileSync(path.join(dir, "pairs.jsonl"), `${lines.join("\n")}\n`);
  corpus = await readPairCorpus(path.join(dir, "pairs.jsonl"));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function heldOutRecall(model: TrainedModel): number {
  const enc = new StaticEncoder({ vocabulary: model.vocabulary, params: model.params, shape: model.shape, identitySeed: model.settings.seed });
  const rnd = new Random(99);
  const pairs = Array.from({ length: TOPICS }, (_, t) => pair(rnd, t));
  const passages = pairs.map((p) => enc.embed(p.p));
  let hits = 0;
  pairs.forEach((p, i) => {
    const q = enc.embed(p.q);
    const scores = passages.map((v) => v.reduce((s, x, k) => s + x * q[k]!, 0));
    if (scores.indexOf(Math.max(...scores)) === i) hits++;
  });
  return hits / TOPICS;
}

describe("train", () => {
  it("lowers the loss and ranks held-out pairs above the others", () => {
    const untrained = train(corpus, { ...settings, epochs: 0 });
    const model = train(corpus, settings);
    const losses = model.history.map((h) => h.loss);
    expect(losses.at(-1)!).toBeLessThan(losses[0]! * 0.6);
    expect(heldOutRecall(untrained)).toBeLessThan(0.25);
    expect(heldOutRecall(model)).toBeGreaterThan(0.8);
  });

  it("is deterministic for a seed", () => {
    const a = train(corpus, { ...settings, epochs: 1 });
    const b = train(corpus, { ...settings, epochs: 1 });
    expect(Buffer.from(a.params.table.buffer).equals(Buffer.from(b.params.table.buffer))).toBe(true);
    expect(a.history[0]!.loss).toBe(b.history[0]!.loss);
  });

  it("writes a model file that reads back to the same vectors (int8 rows within 1%)", () => {
    const model = train(corpus, { ...settings, epochs: 1 });
    const parts = { vocabulary: model.vocabulary, params: model.params, shape: model.shape, identitySeed: model.settings.seed };
    const file = path.join(dir, "m.qsm");
    writeModel(file, parts, { model: "test-model", training: {}, metrics: {} });
    const read = readModel(file);
    expect(read.parts.vocabulary).toEqual(model.vocabulary);
    const a = new StaticEncoder(parts).embed("askaaax ansaaax");
    const b = new StaticEncoder(read.parts).embed("askaaax ansaaax");
    expect(a.reduce((s, x, k) => s + x * b[k]!, 0)).toBeGreaterThan(0.99);
    fs.writeFileSync(file, Buffer.concat([fs.readFileSync(file).subarray(0, -1), Buffer.from([7])]));
    expect(() => readModel(file)).toThrow(/damaged/);
  });
});
