// The trainer on a small fixed pair set whose queries share no word with their passages: only
// the trained rows can match them, so held-out pairs are ranked right only if training worked.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPairCorpus, type PairCorpus } from "../../src/model/corpus.js";
import { train, type TrainedModel } from "../../src/model/train.js";
import { StaticEncoder } from "../../src/model/encoder.js";
import { readModel, writeModel } from "../../src/model/artifact.js";
import { Random } from "../../src/model/random.js";
import { TINY_SETTINGS, TOPICS, topicCorpus, topicPair } from "./fixture.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-train-"));
let corpus: PairCorpus;
const settings = TINY_SETTINGS;

beforeAll(async () => {
  corpus = await topicCorpus(dir);
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function heldOutRecall(model: TrainedModel): number {
  const enc = new StaticEncoder({ vocabulary: model.vocabulary, params: model.params, shape: model.shape, identitySeed: model.settings.seed });
  const rnd = new Random(99);
  const pairs = Array.from({ length: TOPICS }, (_, t) => topicPair(rnd, t));
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
    writeModel(file, parts, { model: "test-model", training: {} });
    const read = readModel(file);
    expect(read.parts.vocabulary).toEqual(model.vocabulary);
    const a = new StaticEncoder(parts).embed("askaaax ansaaax");
    const b = new StaticEncoder(read.parts).embed("askaaax ansaaax");
    expect(a.reduce((s, x, k) => s + x * b[k]!, 0)).toBeGreaterThan(0.99);
    // written again from what was read (what model:eval --promote does): the same vectors, and
    // the same rows against the identity part (their scale once shrank 127x on every rewrite)
    const again = path.join(dir, "again.qsm");
    writeModel(again, read.parts, { model: "test-model", training: {} });
    const c = new StaticEncoder(readModel(again).parts).embed("askaaax ansaaax");
    expect(c.reduce((s, x, k) => s + x * b[k]!, 0)).toBeGreaterThan(0.9999);
    fs.writeFileSync(file, Buffer.concat([fs.readFileSync(file).subarray(0, -1), Buffer.from([7])]));
    expect(() => readModel(file)).toThrow(/damaged/);
  });

  it("masks a source's passages by its own setting when sourceMask names it", async () => {
    // passages that hold their queries' words, so masking changes what the trainer sees
    const sub = fs.mkdtempSync(path.join(dir, "mask-"));
    const rnd = new Random(2);
    const lines = Array.from({ length: 10 * TOPICS }, (_, i) => {
      const p = topicPair(rnd, i % TOPICS);
      return JSON.stringify({ s: i % 2 ? "odd" : "even", k: "heading", q: p.q, p: `${p.q} ${p.p}` });
    });
    fs.writeFileSync(path.join(sub, "pairs.jsonl"), `${lines.join("\n")}\n`);
    const shared = await readPairCorpus(path.join(sub, "pairs.jsonl"));
    const table = (s: Partial<typeof settings>) => Buffer.from(train(shared, { ...settings, epochs: 1, ...s }).params.table.buffer);
    const allMasked = table({ mask: 1 });
    expect(table({ mask: 0, sourceMask: { odd: 1, even: 1 } }).equals(allMasked)).toBe(true);
    expect(table({ mask: 1, sourceMask: { odd: 0 } }).equals(allMasked)).toBe(false);
    expect(table({ mask: 0 }).equals(allMasked)).toBe(false);
  });
});
