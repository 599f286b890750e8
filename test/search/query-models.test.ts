// The in-process cache of collections' adapted models (src/services/search/query-models.ts): a
// decoded adaptation is read from the file store once, kept while it is recently used, and the
// least recently used go once the cache holds more bytes than its budget (a whole-model delta is
// megabytes), never the one just loaded. The shipped model is the base.
import path from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { readModel } from "../../src/model/artifact.js";
import { StaticEncoder } from "../../src/model/encoder.js";
import { MODEL_DIR, MODEL_FILE } from "../../src/model/paths.js";
import { encodeQueryDelta } from "../../src/model/query-delta.js";
import { adaptationFileOf, createQueryModels } from "../../src/services/search/query-models.js";

const { header, parts } = readModel(path.join(MODEL_DIR, MODEL_FILE));
const base = { encoder: new StaticEncoder(parts), name: header.model, model: header.model, payloadSha256: header.payload_sha256 };
const dim = parts.shape.dim;
const ROWS = 1_000;

/** an adaptation of ROWS made-up tokens (about 256 KB as int8 rows) */
function file(seed: number): Buffer {
  const tokens = Array.from({ length: ROWS }, (_, i) => `tok${seed}x${i}`);
  const rows = Float32Array.from({ length: ROWS * dim }, (_, i) => Math.sin(seed * 7919 + i));
  return encodeQueryDelta({ baseModel: header.model, basePayloadSha256: header.payload_sha256, dim, tokens, rows, weights: new Float32Array(ROWS).fill(1), sides: "both", training: {} });
}

function models(maxBytes: number) {
  const reads: string[] = [];
  const files = { read: async (_tenant: string, name: string) => (reads.push(name), file(Number(name.replace(/\D/g, "")))) };
  return { reads, m: createQueryModels({ files, base: () => base, log: pino({ level: "silent" }), maxBytes }) };
}

describe("adapted models in memory", () => {
  it("reads an adaptation once and embeds with it (its own tokens' rows, passages too for a whole-model one)", async () => {
    const { reads, m } = models(64 * 1024 * 1024);
    const e = await m.encoder("t", "qad1");
    expect(e!.bothSides).toBe(true);
    expect(e!.bytes).toBeGreaterThan(ROWS * dim);
    await m.encoder("t", "qad1");
    expect(reads).toEqual([adaptationFileOf("qad1")]);
    const own = e!.embed("tok1x5");
    expect(own.some((x, i) => Math.abs(x - base.encoder.embed("tok1x5")[i]!) > 1e-3)).toBe(true);
  });

  it("drops the least recently used once over its byte budget, never the one just loaded", async () => {
    // room for two of these, not three
    const one = (await models(1e9).m.encoder("t", "qad9"))!.bytes;
    const { reads, m } = models(2.5 * one);
    await m.encoder("t", "qad1");
    await m.encoder("t", "qad2");
    await m.encoder("t", "qad1"); // qad2 is now the least recently used
    await m.encoder("t", "qad3"); // over budget: qad2 goes
    expect(reads.length).toBe(3);
    await m.encoder("t", "qad1");
    await m.encoder("t", "qad3");
    expect(reads.length).toBe(3);
    await m.encoder("t", "qad2"); // read again
    expect(reads.length).toBe(4);
    // a budget smaller than one adaptation still keeps the one in use
    const tiny = models(1);
    const e = await tiny.m.encoder("t", "qad1");
    expect(e).not.toBeNull();
    await tiny.m.encoder("t", "qad1");
    expect(tiny.reads.length).toBe(1);
  });
});
