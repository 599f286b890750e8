// The model file: everything serving needs in one artifact, committed under model/.
//
// Layout: "QSM1\n", a 4-byte little-endian header length, a JSON header (shape, seed, scalars,
// provenance, the payload's SHA-256; no evaluation scores: those are the evaluation module's,
// src/evaluation/bench/model/shipped-metrics.json), then the payload: the vocabulary as UTF-8 lines,
// padded to 4 bytes; each token's weight (float32); each row's scale (float32); the rows as int8
// (row = scale * int8 / 127, per-row symmetric quantisation: a quarter of float32's size, and
// cosines move by well under 0.01).
import fs from "node:fs";
import { createHash } from "node:crypto";
import type { EncoderParts } from "./encoder.js";
import { TOKENIZER_VERSION } from "./tokenizer.js";

const MAGIC = "QSM1\n";

export interface ModelHeader {
  format: 1;
  /** model id, e.g. quarry-static-v1; with the dimension it names the vector index */
  model: string;
  tokenizer_version: number;
  dim: number;
  identity_dim: number;
  identity_seed: number;
  vocab_size: number;
  /** bytes of the vocabulary lines (before padding) */
  vocab_bytes: number;
  oov_weight: number;
  gamma: number;
  created_at: string;
  /** how it was made: the data's hash, the settings, the seconds it took */
  training: Record<string, unknown>;
  payload_sha256: string;
}

export interface ModelFile {
  header: ModelHeader;
  parts: EncoderParts;
}

/**
 * The int8 rows' convention, in one place: a file stores each row's largest absolute value as its
 * scale, and row = scale * int8 / 127. In memory rowScale is scale / 127 (one multiply a value).
 * A table written again from what was read must store rowScale * 127: once it stored rowScale
 * itself, and every model:eval --promote shrank the rows 127x (docs/model.md).
 */
const INT8_MAX = 127;
export const rowScaleOf = (stored: number): number => stored / INT8_MAX;
const storedScaleOf = (rowScale: number): number => rowScale * INT8_MAX;

/** float32 rows as int8 with a symmetric scale per row (row = scale * int8 / 127) */
export function quantize(table: Float32Array, rows: number, dim: number): { scales: Float32Array; q: Int8Array } {
  const scales = new Float32Array(rows);
  const q = new Int8Array(rows * dim);
  for (let r = 0; r < rows; r++) {
    let max = 0;
    for (let j = 0; j < dim; j++) max = Math.max(max, Math.abs(table[r * dim + j]!));
    scales[r] = max;
    for (let j = 0; j < dim; j++) q[r * dim + j] = max === 0 ? 0 : Math.round((INT8_MAX * table[r * dim + j]!) / max);
  }
  return { scales, q };
}

const pad4 = (b: Buffer): Buffer => (b.length % 4 === 0 ? b : Buffer.concat([b, Buffer.alloc(4 - (b.length % 4))]));
const bytesOf = (a: Float32Array | Int8Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

export function writeModel(file: string, parts: EncoderParts, meta: Pick<ModelHeader, "model" | "training">): ModelHeader {
  const { shape, params, vocabulary } = parts;
  // a table read from a file is int8 already: its stored scales are written back
  const table = params.table instanceof Float32Array ? quantize(params.table, vocabulary.length, shape.dim) : { scales: params.rowScale!.map(storedScaleOf), q: params.table };
  const vocabBytes = Buffer.from(vocabulary.join("\n"), "utf8");
  const payload = Buffer.concat([pad4(vocabBytes), bytesOf(params.weights), bytesOf(table.scales), bytesOf(table.q)]);
  const header: ModelHeader = {
    format: 1,
    model: meta.model,
    tokenizer_version: TOKENIZER_VERSION,
    dim: shape.dim,
    identity_dim: shape.identityDim,
    identity_seed: parts.identitySeed,
    vocab_size: vocabulary.length,
    vocab_bytes: vocabBytes.length,
    oov_weight: params.oovWeight,
    gamma: params.gamma,
    created_at: new Date().toISOString(),
    training: meta.training,
    payload_sha256: createHash("sha256").update(payload).digest("hex"),
  };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length, 0);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, Buffer.concat([Buffer.from(MAGIC, "latin1"), len, json, payload]));
  fs.renameSync(tmp, file);
  return header;
}

export class ModelFileError extends Error {}

/** Reads and checks a model file; rows stay int8 in memory (pooling scales them per row). */
export function readModel(file: string): ModelFile {
  const buf = fs.readFileSync(file);
  if (buf.subarray(0, MAGIC.length).toString("latin1") !== MAGIC) throw new ModelFileError(`${file} is not a Quarry model file`);
  const len = buf.readUInt32LE(MAGIC.length);
  const start = MAGIC.length + 4 + len;
  let header: ModelHeader;
  try {
    header = JSON.parse(buf.subarray(MAGIC.length + 4, start).toString("utf8")) as ModelHeader;
  } catch {
    throw new ModelFileError(`${file} is damaged (its header is unreadable)`);
  }
  if (header.format !== 1) throw new ModelFileError(`${file} has format ${String(header.format)}; this version reads format 1`);
  if (header.tokenizer_version !== TOKENIZER_VERSION) {
    throw new ModelFileError(`${file} was trained with tokenizer version ${header.tokenizer_version}; this version tokenizes with ${TOKENIZER_VERSION}`);
  }
  const payload = buf.subarray(start);
  if (createHash("sha256").update(payload).digest("hex") !== header.payload_sha256) throw new ModelFileError(`${file} is damaged (its payload does not match its checksum)`);
  const v = header.vocab_size;
  const d = header.dim;
  const vocabulary = payload.subarray(0, header.vocab_bytes).toString("utf8").split("\n");
  if (vocabulary.length !== v) throw new ModelFileError(`${file} is damaged (its vocabulary has ${vocabulary.length} tokens, not ${v})`);
  let at = Math.ceil(header.vocab_bytes / 4) * 4;
  const floats = (n: number) => {
    const out = new Float32Array(n);
    new Uint8Array(out.buffer).set(payload.subarray(at, at + 4 * n));
    at += 4 * n;
    return out;
  };
  const weights = floats(v);
  const rowScale = floats(v).map(rowScaleOf);
  const table = new Int8Array(v * d);
  new Uint8Array(table.buffer).set(payload.subarray(at, at + v * d));
  return {
    header,
    parts: {
      vocabulary,
      params: { table, rowScale, weights, oovWeight: header.oov_weight, gamma: header.gamma },
      shape: { dim: d, identityDim: header.identity_dim },
      identitySeed: header.identity_seed,
    },
  };
}
