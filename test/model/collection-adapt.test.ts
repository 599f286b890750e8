// The whole model adapted to a collection's own text (src/model/collection-adapt.ts), on the
// shipped model file and a small made-up collection: eight topics, each named in its headings by an
// invented word the base vocabulary lacks, its sections written with the topic's ordinary words.
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readModel } from "../../src/model/artifact.js";
import { adaptCollection, COLLECTION_ADAPT_DEFAULTS, modelDelta, TRAINED_ROW_SCALE } from "../../src/model/collection-adapt.js";
import { AdaptedQueryEncoder, decodeQueryDelta, encodeQueryDelta } from "../../src/model/query-delta.js";
import { StaticEncoder } from "../../src/model/encoder.js";
import type { TextPair } from "../../src/model/corpus.js";
import { Random } from "../../src/model/random.js";
import { modelTokens } from "../../src/model/tokenizer.js";

const { parts } = readModel(path.resolve(import.meta.dirname, "../../model/quarry-static-v1.qsm"));

const TOPICS: [string, string[]][] = [
  ["florpex", ["kettle", "boil", "water", "steam", "spout", "whistle", "stove", "tea"]],
  ["quandril", ["garden", "soil", "seed", "compost", "weed", "rake", "harvest", "tomato"]],
  ["zebrondo", ["invoice", "payment", "customer", "refund", "receipt", "tax", "ledger", "bank"]],
  ["mivvock", ["guitar", "string", "chord", "tune", "fret", "melody", "amplifier", "pick"]],
  ["trabbish", ["bicycle", "wheel", "chain", "brake", "pedal", "tyre", "saddle", "gear"]],
  ["glenquist", ["printer", "paper", "toner", "jam", "tray", "scan", "page", "cartridge"]],
  ["oxtavell", ["passport", "visa", "border", "flight", "luggage", "airport", "customs", "ticket"]],
  ["pruncett", ["bread", "flour", "yeast", "oven", "dough", "crust", "knead", "loaf"]],
];

/** A section of the topic: eight of its words in a seeded order, twice over. */
function section(words: string[], rnd: Random): string {
  const pick = () => words[Math.floor(rnd.next() * words.length)]!;
  return Array.from({ length: 16 }, pick).join(" ");
}

function collection(seed: number): TextPair[] {
  const rnd = new Random(seed);
  const pairs: TextPair[] = [];
  for (let k = 0; k < 24; k++) for (const [name, words] of TOPICS) pairs.push({ s: "heading", q: `${name} ${words[k % words.length]}`, p: `${name} ${section(words, rnd)}` });
  return pairs;
}

const settings = { ...COLLECTION_ADAPT_DEFAULTS, epochs: 3, batchSize: 32 };
const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe("adapting the whole model to a collection", () => {
  const pairs = collection(1);
  let run: Awaited<ReturnType<typeof adaptCollection>>;
  beforeAll(async () => {
    run = await adaptCollection(parts, pairs, settings);
  });

  it("lowers its loss from epoch to epoch, and gives the collection's new words rows of their own", async () => {
    expect(run.losses).toHaveLength(3);
    expect(run.losses[2]!).toBeLessThan(run.losses[0]! * 0.8);
    expect(parts.vocabulary).not.toContain("florpex");
    const row = run.model.vocabulary.indexOf("florpex");
    expect(row).toBeGreaterThanOrEqual(parts.vocabulary.length);
    const dim = run.model.shape.dim;
    expect(run.model.params.table.subarray(row * dim, (row + 1) * dim).some((x) => x !== 0)).toBe(true);
    // seen twice only: no row
    const rare = await adaptCollection(parts, [...pairs, { s: "heading", q: "snargle", p: "kettle" }, { s: "heading", q: "snargle", p: "tea" }], { ...settings, epochs: 1 });
    expect(rare.model.vocabulary).not.toContain("snargle");
  });

  it("learns what a new word goes with: its name alone finds a section of its topic that lacks it, which the base model cannot", async () => {
    const rnd = new Random(99);
    const fresh = TOPICS.map(([, words]) => section(words, rnd));
    const rank = (enc: StaticEncoder, name: string, own: number) => {
      const q = enc.embed(name);
      const scores = fresh.map((p) => cos(q, enc.embed(p)));
      return 1 + scores.filter((s, i) => i !== own && s >= scores[own]!).length;
    };
    const base = new StaticEncoder(parts);
    const adapted = new StaticEncoder(run.model);
    const baseRanks = TOPICS.map(([name], i) => rank(base, name, i));
    const adaptedRanks = TOPICS.map(([name], i) => rank(adapted, name, i));
    expect(adaptedRanks).toEqual(TOPICS.map(() => 1));
    // the base model has only the word's hash, shared by no fresh section: every section ties
    expect(baseRanks.filter((r) => r === 1).length).toBeLessThan(TOPICS.length);
  });

  it("with anchor 1 pulls every moved row back to where it started: a base word's to its base row, a new word's to 0", async () => {
    const held = await adaptCollection(parts, pairs, { ...settings, epochs: 1, anchor: 1 });
    const dim = parts.shape.dim;
    const row = parts.vocabulary.indexOf(modelTokens("kettle")[0]!);
    expect(row).toBeGreaterThanOrEqual(0);
    const start = Float32Array.from(parts.params.table.subarray(row * dim, (row + 1) * dim), (x) => x * parts.params.rowScale![row]!);
    expect(Array.from(held.model.params.table.subarray(row * dim, (row + 1) * dim))).toEqual(Array.from(start));
    const free = await adaptCollection(parts, pairs, { ...settings, epochs: 1 });
    expect(Array.from(free.model.params.table.subarray(row * dim, (row + 1) * dim))).not.toEqual(Array.from(start));
    const added = held.model.vocabulary.indexOf("florpex");
    expect(held.model.params.table.subarray(added * dim, (added + 1) * dim).every((x) => x === 0)).toBe(true);
  });

  it("trains the same rows to the same values when compact, keeping only the rows the pairs use", async () => {
    for (const baseRowScale of [1, TRAINED_ROW_SCALE]) {
      const s = { ...settings, epochs: 2, baseRowScale };
      const full = await adaptCollection(parts, pairs, s);
      const compact = await adaptCollection(parts, pairs, { ...s, compact: true });
      expect(compact.losses).toEqual(full.losses);
      expect(compact.model.vocabulary.length).toBeLessThan(full.model.vocabulary.length / 20);
      const deltaOf = (r: typeof full) => encodeQueryDelta(modelDelta(r.model, r.moved, { model: "m", payloadSha256: "x" }, baseRowScale, {}));
      expect(deltaOf(compact).equals(deltaOf(full))).toBe(true);
    }
  });

  it("is deterministic for a seed, and another seed trains another model", async () => {
    const again = await adaptCollection(parts, pairs, settings);
    expect(again.losses).toEqual(run.losses);
    expect(Buffer.from(again.model.params.table.buffer).equals(Buffer.from(run.model.params.table.buffer))).toBe(true);
    const other = await adaptCollection(parts, pairs, { ...settings, seed: 2 });
    expect(other.losses).not.toEqual(run.losses);
  });
});

describe("the adapted model as a delta over the served file", () => {
  it("embeds queries and passages as the adapted model does, from the moved rows only, whatever scale it started from", async () => {
    const texts = ["florpex kettle", "kettle boil water steam spout", "quandril", "the bank sent a refund receipt", "nothing here is known zzqx"];
    for (const baseRowScale of [1, TRAINED_ROW_SCALE]) {
      const run = await adaptCollection(parts, collection(3), { ...settings, epochs: 1, baseRowScale });
      const delta = decodeQueryDelta(encodeQueryDelta(modelDelta(run.model, run.moved, { model: "m", payloadSha256: "x" }, baseRowScale, {})));
      expect(delta.tokens.length).toBe(run.moved.size);
      expect(delta.tokens.length).toBeLessThan(run.model.vocabulary.length / 10);
      const enc = new AdaptedQueryEncoder(new StaticEncoder(parts), delta);
      expect(enc.bothSides).toBe(true);
      const full = new StaticEncoder(run.model);
      // the delta's rows are int8 like the served table's: equal up to their rounding
      for (const t of texts) expect(cos(enc.embed(t), full.embed(t))).toBeGreaterThan(0.999);
    }
  });
});
