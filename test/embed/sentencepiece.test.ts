// Our SentencePiece tokenizer against the one shipped with the default model: identical ids on
// edge cases and on real text (SciFact abstracts when the data set is on this machine).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { SentencePieceTokenizer } from "../../src/embed/sentencepiece.js";
import { readVocabulary } from "../../src/embed/static-table.js";
import { beirDataDir } from "../../src/evaluation/benchmarks/industry-benchmarks.js";

const { vocabulary } = readVocabulary();
const ours = new SentencePieceTokenizer(vocabulary);
// the package's own tokenizer, reached through its EmbeddingsModel (no model needed to tokenize)
const pkg = createRequire(import.meta.url)("@energetic-ai/embeddings") as {
  EmbeddingsModel: new (d: { vocabulary: unknown; model: unknown }) => { tokenizer: { encode(t: string): number[] } };
};
const reference = new pkg.EmbeddingsModel({ vocabulary, model: null }).tokenizer;

const EDGE_CASES = [
  "",
  " ",
  "  leading and  double  spaces ",
  "The quick brown fox jumps over the lazy dog.",
  "tabs\tand\nnew lines\r\nstay unknown characters",
  "ﬁligree ＦＵＬＬＷＩＤＴＨ ① (NFKC folds these)",
  "emoji 😀😀 and astral 𝔘𝔫𝔦 letters",
  "日本語のテキストと한국어",
  "ERR_CONN_RESET max_conn_pool E_DISK_FULL form 1040",
  "<unk> <s> </s> extra_token_id_1",
  "x".repeat(500),
  "αβγ δεζ — “quotes” … ‘ticks’",
];

describe("SentencePiece tokenizer", () => {
  it("gives the package tokenizer's ids on edge cases", () => {
    for (const text of EDGE_CASES) expect(ours.encode(text), JSON.stringify(text)).toEqual(reference.encode(text));
  });

  it("splits words into the model's pieces", () => {
    const ids = ours.encode("Hello world");
    expect(ids.map((id) => vocabulary[id][0]).join("")).toBe("\u2581Hello\u2581world");
    expect(ours.encode("")).toEqual([]);
  });

  const corpus = path.join(beirDataDir(process.env.BEIR_DATA_DIR, path.resolve("data")), "scifact", "corpus.jsonl");
  const haveCorpus = fs.existsSync(corpus);
  if (!haveCorpus) console.log(`skipping the SciFact comparison: ${corpus} not found (set BEIR_DATA_DIR)`);
  it.skipIf(!haveCorpus)("gives the package tokenizer's ids on 200 SciFact abstracts", () => {
    const lines = fs.readFileSync(corpus, "utf8").split("\n").filter(Boolean).slice(0, 200); // the package tokenizer is slow (quadratic): 200 keep this test short
    let tokens = 0;
    for (const line of lines) {
      const d = JSON.parse(line) as { title: string; text: string };
      const text = `${d.title}\n${d.text}`;
      const ids = ours.encode(text);
      tokens += ids.length;
      expect(ids).toEqual(reference.encode(text));
    }
    expect(tokens).toBeGreaterThan(20_000);
  }, 180_000);
});
