// A small pair set whose queries share no word with their passages (only trained rows can match
// them), and a model trained on it: shared by the trainer's and the provider's tests.
import fs from "node:fs";
import path from "node:path";
import { readPairCorpus, type PairCorpus } from "../../src/model/corpus.js";
import { Random } from "../../src/model/random.js";
import { TRAIN_DEFAULTS, type TrainSettings } from "../../src/model/train.js";

export const TOPICS = 24;

const letter = (n: number) => String.fromCharCode(97 + (n % 26));
export const topicWord = (kind: string, topic: number, i: number): string => `${kind}${letter(topic)}${letter(Math.floor(topic / 26))}${letter(i)}x`;

/** A query of two of the topic's asking words; a passage of six of its answering words. */
export function topicPair(rnd: Random, topic: number): { q: string; p: string } {
  const pick = (kind: string, n: number, of: number) => Array.from({ length: n }, () => topicWord(kind, topic, Math.floor(rnd.next() * of))).join(" ");
  return { q: pick("ask", 2, 4), p: pick("ans", 6, 10) };
}

export const TINY_SETTINGS: TrainSettings = { ...TRAIN_DEFAULTS, dim: 32, identityDim: 32, vocabSize: 1000, minCount: 1, batchSize: 24, epochs: 6, heldOut: 0, lr: 0.05, mask: 0 };

/** Writes 720 pairs (30 per topic) into dir/pairs.jsonl and reads them back as a corpus. */
export async function topicCorpus(dir: string): Promise<PairCorpus> {
  const rnd = new Random(1);
  const lines = Array.from({ length: 30 * TOPICS }, (_, i) => JSON.stringify({ s: "synthetic", k: "heading", ...topicPair(rnd, i % TOPICS) }));
  fs.writeFileSync(path.join(dir, "pairs.jsonl"), `${lines.join("\n")}\n`);
  return readPairCorpus(path.join(dir, "pairs.jsonl"));
}
