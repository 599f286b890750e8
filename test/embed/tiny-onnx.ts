// Builds a tiny BERT-shaped ONNX embedding model on disk, so the ONNX provider's plumbing (local
// lookup, tokenizer, feeds, pooling, normalisation, prefixes) is tested without downloading one.
// Graph: last_hidden_state = Gather(E, input_ids) + Gather(T, token_type_ids) + Gather(M, attention_mask)
// The mask term makes padded positions non-zero, so a pooling that forgot the mask would be caught.
import fs from "node:fs";
import path from "node:path";
import { GraphBuilder } from "../../src/embed/onnx-proto.js";

export const SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] as const;

export interface TinyModel {
  dir: string;
  dim: number;
  vocab: Record<string, number>;
  /** rows of the token embedding table */
  tokenEmb: Float32Array[];
  typeEmb: Float32Array[];
  maskEmb: Float32Array[];
}

/** Deterministic pseudo-random numbers, so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

function table(rows: number, dim: number, rand: () => number): Float32Array[] {
  return Array.from({ length: rows }, () => Float32Array.from({ length: dim }, rand));
}

/** Writes <modelsDir>/<modelId>/{config.json,tokenizer.json,tokenizer_config.json,onnx/model.onnx}. */
export function writeTinyModel(modelsDir: string, modelId: string, words: string[], dim = 16): TinyModel {
  const vocab: Record<string, number> = {};
  [...SPECIAL, ...words].forEach((w, i) => (vocab[w] = i));
  const rand = rng(42);
  const tokenEmb = table(Object.keys(vocab).length, dim, rand);
  const typeEmb = table(2, dim, rand);
  const maskEmb = table(2, dim, rand);

  // The provider's ONNX writer (src/embed/onnx-proto.ts), also what builds USE lite's graph.
  const g = new GraphBuilder();
  const seq = ["batch", "sequence"];
  const ids = g.input("input_ids", "int64", seq);
  const mask = g.input("attention_mask", "int64", seq);
  const types = g.input("token_type_ids", "int64", seq);
  const init = (name: string, rows: Float32Array[]) => g.constant(name, "float", [rows.length, dim], Float32Array.from(rows.flatMap((r) => Array.from(r))));
  const gather = (data: string, idx: string) => g.op("Gather", [data, idx], { axis: 0 });
  const tok = gather(init("E", tokenEmb), ids);
  const typ = gather(init("T", typeEmb), types);
  const msk = gather(init("M", maskEmb), mask);
  g.op("Add", [g.op("Add", [tok, typ]), msk]);
  g.output(g.renameLast("last_hidden_state"), "float", [...seq, dim]);
  const bytes = g.encode(13);

  const dir = path.join(modelsDir, ...modelId.split("/"));
  fs.mkdirSync(path.join(dir, "onnx"), { recursive: true });
  fs.writeFileSync(path.join(dir, "onnx", "model.onnx"), bytes);
  fs.writeFileSync(
    path.join(dir, "config.json"),
    JSON.stringify({ model_type: "bert", architectures: ["BertModel"], hidden_size: dim, vocab_size: tokenEmb.length }),
  );
  const special = (content: string) => ({
    id: vocab[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const cls = { id: "[CLS]", type_id: 0 };
  const sep = { id: "[SEP]", type_id: 0 };
  fs.writeFileSync(
    path.join(dir, "tokenizer.json"),
    JSON.stringify({
      version: "1.0",
      truncation: null,
      padding: null,
      added_tokens: SPECIAL.map(special),
      normalizer: { type: "Lowercase" },
      pre_tokenizer: { type: "Whitespace" },
      post_processor: {
        type: "TemplateProcessing",
        single: [{ SpecialToken: cls }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: sep }],
        pair: [
          { SpecialToken: cls },
          { Sequence: { id: "A", type_id: 0 } },
          { SpecialToken: sep },
          { Sequence: { id: "B", type_id: 1 } },
          { SpecialToken: { id: "[SEP]", type_id: 1 } },
        ],
        special_tokens: {
          "[CLS]": { id: "[CLS]", ids: [vocab["[CLS]"]], tokens: ["[CLS]"] },
          "[SEP]": { id: "[SEP]", ids: [vocab["[SEP]"]], tokens: ["[SEP]"] },
        },
      },
      decoder: null,
      model: { type: "WordLevel", vocab, unk_token: "[UNK]" },
    }),
  );
  fs.writeFileSync(
    path.join(dir, "tokenizer_config.json"),
    JSON.stringify({
      model_max_length: 512,
      pad_token: "[PAD]",
      unk_token: "[UNK]",
      cls_token: "[CLS]",
      sep_token: "[SEP]",
      do_lower_case: true,
    }),
  );
  return { dir, dim, vocab, tokenEmb, typeEmb, maskEmb };
}

/** What the model + pooling should give for one token-id sequence, computed independently. */
export function expectedVector(m: TinyModel, ids: number[], pooling: "cls" | "mean"): Float32Array {
  const v = new Float32Array(m.dim);
  const rows = pooling === "cls" ? ids.slice(0, 1) : ids;
  for (const id of rows) {
    for (let d = 0; d < m.dim; d++) v[d] += m.tokenEmb[id][d] + m.typeEmb[0][d] + m.maskEmb[1][d];
  }
  let n = 0;
  for (let d = 0; d < m.dim; d++) n += v[d] * v[d];
  n = Math.sqrt(n);
  for (let d = 0; d < m.dim; d++) v[d] /= n;
  return v;
}

/** Token ids as the tiny tokenizer produces them: [CLS] words... [SEP], lowercase, whitespace/punctuation split. */
export function idsOf(m: TinyModel, text: string): number[] {
  const words = text.toLowerCase().match(/\w+|[^\w\s]+/g) ?? [];
  return [m.vocab["[CLS]"], ...words.map((w) => m.vocab[w] ?? m.vocab["[UNK]"]), m.vocab["[SEP]"]];
}
