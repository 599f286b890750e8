// A collection's adaptation of the static model: new rows and weights for some tokens, over a base
// model it names. Two kinds: the query adaptation (query-adapt.ts) changes the rows of the
// collection's query tokens and embeds queries only, so passages keep the base model's vectors and
// nothing is re-embedded when it is applied or reverted; the whole-model adaptation
// (collection-adapt.ts) changes every row the collection's text touched, adds rows for its new
// words and may scale the base's other rows (`baseRowScale`), and embeds queries and passages alike
// (docs/decisions.md, "Per-collection adaptation").
//
// File layout, like the model file's (artifact.ts): "QSA1\n", a 4-byte little-endian header
// length, a JSON header (the base model's id and payload checksum, the shape, provenance), then the
// tokens as UTF-8 lines padded to 4 bytes, each token's weight (float32), each row's scale
// (float32) and the rows as int8 (row = scale * int8 / 127).
import { createHash } from "node:crypto";
import { quantize, rowScaleOf } from "./artifact.js";
import type { StaticEncoder } from "./encoder.js";
import { addIdentity, tokenHash } from "./identity.js";
import { pool, type PoolParams, type TokenBag } from "./pooling.js";
import { modelTokens } from "./tokenizer.js";

const MAGIC = "QSA1\n";

export interface QueryDelta {
  /** the base model's id and payload checksum: a delta only ever applies to the file it was trained on */
  baseModel: string;
  basePayloadSha256: string;
  dim: number;
  tokens: string[];
  /** tokens.length x dim */
  rows: Float32Array;
  weights: Float32Array;
  /** what multiplies a base row the delta does not replace (1 when absent) */
  baseRowScale?: number;
  /** "both": a whole-model adaptation, which embeds passages too; absent: queries only */
  sides?: "both";
  /** how it was made (pairs, settings, seconds) */
  training: Record<string, unknown>;
}

interface DeltaHeader {
  format: 1;
  base_model: string;
  base_payload_sha256: string;
  dim: number;
  tokens: number;
  token_bytes: number;
  /** absent in files written before whole-model adaptations: 1 */
  base_row_scale?: number;
  sides?: "both";
  training: Record<string, unknown>;
  payload_sha256: string;
}

export class QueryDeltaError extends Error {}

const pad4 = (b: Buffer): Buffer => (b.length % 4 === 0 ? b : Buffer.concat([b, Buffer.alloc(4 - (b.length % 4))]));
const bytesOf = (a: Float32Array | Int8Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

export function encodeQueryDelta(d: QueryDelta): Buffer {
  const tokenBytes = Buffer.from(d.tokens.join("\n"), "utf8");
  const { scales, q } = quantize(d.rows, d.tokens.length, d.dim);
  const payload = Buffer.concat([pad4(tokenBytes), bytesOf(d.weights), bytesOf(scales), bytesOf(q)]);
  const header: DeltaHeader = {
    format: 1,
    base_model: d.baseModel,
    base_payload_sha256: d.basePayloadSha256,
    dim: d.dim,
    tokens: d.tokens.length,
    token_bytes: tokenBytes.length,
    ...(d.baseRowScale !== undefined && d.baseRowScale !== 1 ? { base_row_scale: d.baseRowScale } : {}),
    ...(d.sides ? { sides: d.sides } : {}),
    training: d.training,
    payload_sha256: createHash("sha256").update(payload).digest("hex"),
  };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length, 0);
  return Buffer.concat([Buffer.from(MAGIC, "latin1"), len, json, payload]);
}

export function decodeQueryDelta(buf: Buffer): QueryDelta {
  if (buf.subarray(0, MAGIC.length).toString("latin1") !== MAGIC) throw new QueryDeltaError("not a Quarry query adaptation");
  const len = buf.readUInt32LE(MAGIC.length);
  const start = MAGIC.length + 4 + len;
  const h = JSON.parse(buf.subarray(MAGIC.length + 4, start).toString("utf8")) as DeltaHeader;
  if (h.format !== 1) throw new QueryDeltaError(`format ${String(h.format)}; this version reads format 1`);
  const payload = buf.subarray(start);
  if (createHash("sha256").update(payload).digest("hex") !== h.payload_sha256) throw new QueryDeltaError("damaged (its payload does not match its checksum)");
  const tokens = h.tokens === 0 ? [] : payload.subarray(0, h.token_bytes).toString("utf8").split("\n");
  if (tokens.length !== h.tokens) throw new QueryDeltaError(`damaged (${tokens.length} tokens, not ${h.tokens})`);
  let at = Math.ceil(h.token_bytes / 4) * 4;
  const floats = (n: number) => {
    const out = new Float32Array(n);
    new Uint8Array(out.buffer).set(payload.subarray(at, at + 4 * n));
    at += 4 * n;
    return out;
  };
  const weights = floats(h.tokens);
  const scales = floats(h.tokens);
  const rows = new Float32Array(h.tokens * h.dim);
  for (let r = 0; r < h.tokens; r++) {
    const s = rowScaleOf(scales[r]!);
    for (let j = 0; j < h.dim; j++) rows[r * h.dim + j] = s * payload.readInt8(at + r * h.dim + j);
  }
  const scale = h.base_row_scale ?? 1;
  if (!(Number.isFinite(scale) && scale > 0)) throw new QueryDeltaError(`damaged (base row scale ${String(scale)})`);
  return { baseModel: h.base_model, basePayloadSha256: h.base_payload_sha256, dim: h.dim, tokens, rows, weights, baseRowScale: scale, ...(h.sides === "both" ? { sides: "both" as const } : {}), training: h.training };
}

/** A base row as float32 (the served table is int8 with a scale per row). */
export function baseRow(base: StaticEncoder, row: number, out: Float32Array, offset = 0): void {
  const { table, rowScale } = base.parts.params;
  const dim = base.parts.shape.dim;
  const s = rowScale ? rowScale[row]! : 1;
  for (let j = 0; j < dim; j++) out[offset + j] = s * table[row * dim + j]!;
}

/**
 * Texts of an adapted collection: the base model with the delta's rows and weights in place of
 * the base's for the delta's tokens (and the base's other rows times its baseRowScale). Each text
 * pools a table of its own tokens, so an adapted collection costs its delta's memory, not a copy
 * of the base table. A query adaptation embeds queries only; a whole-model one passages too.
 */
export class AdaptedQueryEncoder {
  private readonly deltaRow: Map<string, number>;
  private readonly baseRowScale: number;
  /** the delta's rows kept as int8 with a scale each, as the file holds them (a whole-model delta has tens of thousands) */
  private readonly rows: { q: Int8Array; scales: Float32Array };
  private readonly weights: Float32Array;
  /** whether passages are embedded with it too (a whole-model adaptation) */
  readonly bothSides: boolean;

  constructor(
    private readonly base: StaticEncoder,
    delta: QueryDelta,
  ) {
    if (delta.dim !== base.parts.shape.dim) throw new QueryDeltaError(`rows of ${delta.dim} dimensions for a model of ${base.parts.shape.dim}`);
    this.deltaRow = new Map(delta.tokens.map((t, i) => [t, i]));
    this.baseRowScale = delta.baseRowScale ?? 1;
    const { scales, q } = quantize(delta.rows, delta.tokens.length, delta.dim);
    this.rows = { q, scales: scales.map(rowScaleOf) };
    this.weights = delta.weights;
    this.bothSides = delta.sides === "both";
  }

  /** about what it holds in memory (its rows, weights and token map) */
  get bytes(): number {
    return this.rows.q.byteLength + 8 * this.weights.length + 64 * this.deltaRow.size;
  }

  embed(text: string): Float32Array {
    const { shape, params, identitySeed } = this.base.parts;
    const counts = new Map<string, number>();
    for (const t of modelTokens(text)) counts.set(t, (counts.get(t) ?? 0) + 1);
    const n = counts.size;
    const table = new Float32Array(n * shape.dim);
    const weights = new Float32Array(n);
    const bag: TokenBag = { rows: new Int32Array(n), hashes: new Uint32Array(n), counts: new Uint16Array(n), length: n };
    let i = 0;
    for (const [t, c] of counts) {
      const d = this.deltaRow.get(t);
      const r = d === undefined ? this.base.rowOfToken(t) : -1;
      if (d !== undefined) {
        const s = this.rows.scales[d]!;
        for (let j = 0; j < shape.dim; j++) table[i * shape.dim + j] = s * this.rows.q[d * shape.dim + j]!;
        weights[i] = this.weights[d]!;
      } else if (r >= 0) {
        baseRow(this.base, r, table, i * shape.dim);
        if (this.baseRowScale !== 1) for (let j = i * shape.dim; j < (i + 1) * shape.dim; j++) table[j] = table[j]! * this.baseRowScale;
        weights[i] = params.weights[r]!;
      }
      bag.rows[i] = d !== undefined || r >= 0 ? i : -1;
      bag.hashes[i] = tokenHash(t, identitySeed);
      bag.counts[i++] = Math.min(c, 65535);
    }
    const local: PoolParams = { table, weights, oovWeight: params.oovWeight, gamma: params.gamma };
    const out = new Float32Array(shape.dim + shape.identityDim);
    if (pool(shape, local, bag, out) === 0) {
      // as StaticEncoder.embed: a text without tokens gets the empty token's identity vector
      if (shape.identityDim > 0) addIdentity(out, shape.dim, shape.identityDim, tokenHash("", identitySeed), 1);
      else out[0] = 1;
    }
    return out;
  }
}
