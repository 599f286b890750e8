// Builds a tiny BERT-shaped ONNX embedding model on disk, so the ONNX provider's plumbing (local
// lookup, tokenizer, feeds, pooling, normalisation, prefixes) is tested without downloading one.
// Graph: last_hidden_state = Gather(E, input_ids) + Gather(T, token_type_ids) + Gather(M, attention_mask)
// The mask term makes padded positions non-zero, so a pooling that forgot the mask would be caught.
import fs from "node:fs";
import path from "node:path";
import protobuf from "protobufjs";

// The subset of onnx.proto (field numbers as in onnx/onnx.proto) needed to write this model.
const ONNX_PROTO = `
syntax = "proto3";
package onnx;
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message AttributeProto { string name = 1; float f = 2; int64 i = 3; int32 type = 20; }
message TensorProto { repeated int64 dims = 1; int32 data_type = 2; repeated float float_data = 4; string name = 8; }
message TensorShapeProto {
  message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; }
  oneof value { Tensor tensor_type = 1; }
}
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message NodeProto { repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4; repeated AttributeProto attribute = 5; }
message GraphProto {
  repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
}
message ModelProto { int64 ir_version = 1; string producer_name = 2; GraphProto graph = 7; repeated OperatorSetIdProto opset_import = 8; }
`;

const FLOAT = 1;
const INT64 = 7;
const ATTR_INT = 2;

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

  const root = protobuf.parse(ONNX_PROTO, { keepCase: true }).root;
  const ModelProto = root.lookupType("onnx.ModelProto");
  const seqInput = (name: string) => ({
    name,
    type: { tensor_type: { elem_type: INT64, shape: { dim: [{ dim_param: "batch" }, { dim_param: "sequence" }] } } },
  });
  const init = (name: string, rows: Float32Array[]) => ({
    name,
    dims: [rows.length, dim],
    data_type: FLOAT,
    float_data: rows.flatMap((r) => Array.from(r)),
  });
  const gather = (data: string, idx: string, out: string) => ({
    input: [data, idx],
    output: [out],
    name: `gather_${out}`,
    op_type: "Gather",
    attribute: [{ name: "axis", i: 0, type: ATTR_INT }],
  });
  const model = {
    ir_version: 8,
    producer_name: "quarry-test",
    opset_import: [{ domain: "", version: 13 }],
    graph: {
      name: "tiny_bert",
      node: [
        gather("E", "input_ids", "tok"),
        gather("T", "token_type_ids", "typ"),
        gather("M", "attention_mask", "msk"),
        { input: ["tok", "typ"], output: ["sum1"], name: "add1", op_type: "Add" },
        { input: ["sum1", "msk"], output: ["last_hidden_state"], name: "add2", op_type: "Add" },
      ],
      initializer: [init("E", tokenEmb), init("T", typeEmb), init("M", maskEmb)],
      input: [seqInput("input_ids"), seqInput("attention_mask"), seqInput("token_type_ids")],
      output: [
        {
          name: "last_hidden_state",
          type: {
            tensor_type: {
              elem_type: FLOAT,
              shape: { dim: [{ dim_param: "batch" }, { dim_param: "sequence" }, { dim_value: dim }] },
            },
          },
        },
      ],
    },
  };
  const err = ModelProto.verify(model);
  if (err) throw new Error(`tiny ONNX model: ${err}`);
  const bytes = ModelProto.encode(ModelProto.fromObject(model)).finish();

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
