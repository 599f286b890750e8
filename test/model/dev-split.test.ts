// The dev split: the trainer (token bags) and the dev proxy (pairs.jsonl text) must pick the same
// pairs, or the proxy would score the model on pairs it trained on.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPairCorpus, type PairCorpus } from "../../src/model/corpus.js";
import { distinctQueryTokens, isDevPair } from "../../src/model/dev-split.js";
import { devPairs } from "../../src/model/train.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-dev-split-"));
const words = ["configure", "proxy", "server", "install", "package", "timeout", "cache", "stream", "socket", "render"];
const pairs = Array.from({ length: 4000 }, (_, i) => ({
  s: i % 4 === 0 ? "wordnet" : "python-docs",
  q: `How to ${words[i % 10]} the ${words[Math.floor(i / 10) % 10]} of item ${i} (${words[Math.floor(i / 100) % 10]})`,
  p: `The ${words[(i * 7) % 10]} section ${i} explains it.`,
}));
let corpus: PairCorpus;

beforeAll(async () => {
  fs.writeFileSync(path.join(dir, "pairs.jsonl"), `${pairs.map((p) => JSON.stringify({ ...p, k: "heading" })).join("\n")}\n`);
  corpus = await readPairCorpus(path.join(dir, "pairs.jsonl"));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("dev split", () => {
  it("holds out about 2% of the documentation pairs and no dictionary pair", () => {
    const dev = pairs.filter((p) => isDevPair(p.s, distinctQueryTokens(p.q)));
    expect(dev.every((p) => p.s === "python-docs")).toBe(true);
    expect(dev.length / 3000).toBeGreaterThan(0.01);
    expect(dev.length / 3000).toBeLessThan(0.03);
    expect(isDevPair("python-docs", ["socket"])).toBe(false);
  });

  it("is the same set whether read from the text or from the trainer's token bags", () => {
    const fromText = new Set(pairs.flatMap((p, i) => (isDevPair(p.s, distinctQueryTokens(p.q)) ? [i] : [])));
    expect([...devPairs(corpus)].sort((a, b) => a - b)).toEqual([...fromText].sort((a, b) => a - b));
    expect(fromText.size).toBeGreaterThan(0);
  });
});
