// The adapted query model's file and encoder (src/model/query-delta.ts) over the shipped model:
// the file round-trips and refuses damage; a delta without rows embeds as the base model does; a
// delta's rows change the queries that hold its tokens and no other.
import { describe, expect, it } from "vitest";
import path from "node:path";
import { readModel } from "../../src/model/artifact.js";
import { StaticEncoder } from "../../src/model/encoder.js";
import { MODEL_DIR, MODEL_FILE } from "../../src/model/paths.js";
import { AdaptedQueryEncoder, baseRow, decodeQueryDelta, encodeQueryDelta, QueryDeltaError, type QueryDelta } from "../../src/model/query-delta.js";
import { modelTokens } from "../../src/model/tokenizer.js";

const { header, parts } = readModel(path.join(MODEL_DIR, MODEL_FILE));
const base = new StaticEncoder(parts);
const dim = parts.shape.dim;
const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

/** a delta moving the row of `token` to the row of `to` (and taking its weight) */
function moved(token: string, to: string): QueryDelta {
  const rows = new Float32Array(dim);
  baseRow(base, base.rowOfToken(to), rows);
  return { baseModel: header.model, basePayloadSha256: header.payload_sha256, dim, tokens: [token], rows, weights: Float32Array.of(parts.params.weights[base.rowOfToken(to)]!), training: { test: true } };
}

describe("adapted query model", () => {
  const [river] = modelTokens("river");
  const [spreadsheet] = modelTokens("spreadsheet");

  it("round-trips through its file, rows within int8 precision", () => {
    const d = moved(river!, spreadsheet!);
    const back = decodeQueryDelta(encodeQueryDelta(d));
    expect(back.tokens).toEqual(d.tokens);
    expect(back.weights).toEqual(d.weights);
    expect(back.baseModel).toBe(header.model);
    expect(back.training).toEqual({ test: true });
    const err = Math.max(...Array.from(back.rows, (x, i) => Math.abs(x - d.rows[i]!)));
    expect(err).toBeLessThan(Math.max(...d.rows.map(Math.abs)) / 100);
  });

  it("refuses a damaged or foreign file", () => {
    const buf = encodeQueryDelta(moved(river!, spreadsheet!));
    buf[buf.length - 1] ^= 0xff;
    expect(() => decodeQueryDelta(buf)).toThrow(QueryDeltaError);
    expect(() => decodeQueryDelta(Buffer.from("QSM1\nnot a delta"))).toThrow(/not a Quarry query adaptation/);
  });

  it("embeds as the base model without rows, and changes only queries holding its tokens", () => {
    const none = new AdaptedQueryEncoder(base, { ...moved(river!, spreadsheet!), tokens: [], rows: new Float32Array(0), weights: new Float32Array(0) });
    for (const q of ["how do I sum a column", "river crossing", "readFileSync options"]) expect(cos(none.embed(q), base.embed(q))).toBeGreaterThan(0.9999);
    const adapted = new AdaptedQueryEncoder(base, moved(river!, spreadsheet!));
    expect(cos(adapted.embed("printer toner"), base.embed("printer toner"))).toBeGreaterThan(0.9999);
    // "river" now means what "spreadsheet" means to the base model
    // "river" now has what "spreadsheet" means to the base model in the trained dimensions (its exact-word part stays its own)
    const trained = (v: Float32Array) => v.subarray(0, dim);
    const unit = (v: Float32Array) => {
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    expect(cos(unit(trained(adapted.embed("river"))), unit(trained(base.embed("spreadsheet"))))).toBeGreaterThan(0.999);
    expect(cos(unit(trained(base.embed("river"))), unit(trained(base.embed("spreadsheet"))))).toBeLessThan(0.9);
  });
});
