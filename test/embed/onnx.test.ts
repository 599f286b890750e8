// ONNX provider plumbing with a tiny model the test writes itself (random weights): local lookup
// in MODELS_DIR, tokenizer feeds (input_ids, attention_mask, token_type_ids), CLS vs mean pooling
// with padding masked out, normalisation, prefixes, and "unavailable" when the model is missing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import {
  createEmbedder,
  EmbedderUnavailableError,
  OnnxEmbedder,
  validateProfile,
  type Embedder,
  type EmbedLogger,
} from "../../src/embed/index.js";
import { dot } from "../../src/embed/vector.js";
import { expectedVector, idsOf, writeTinyModel } from "./tiny-onnx.js";

const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-models-"));
const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-models-empty-"));
const MODEL_ID = "test-org/tiny-bert";
const words = ["represent", "this", "sentence", "for", "searching", "query", ":", "passage", "cats", "dogs", "and", "play", "hello", "world"];
const tiny = writeTinyModel(modelsDir, MODEL_ID, words, 16);

const opened: Embedder[] = [];
afterAll(async () => {
  await Promise.all(opened.map((e) => e.close()));
  fs.rmSync(modelsDir, { recursive: true, force: true });
  fs.rmSync(emptyDir, { recursive: true, force: true });
});

function profile(options: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return validateProfile({
    name: "tiny",
    provider: "onnx",
    model: MODEL_ID,
    dimension: 16,
    max_input_tokens: 32,
    options,
    ...extra,
  });
}

function open(e: Embedder): Embedder {
  opened.push(e);
  return e;
}

const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const texts = ["hello world", "cats and dogs play", "dogs"];

describe("onnx embedder", () => {
  it("finds the model in MODELS_DIR and mean-pools over real tokens only", async () => {
    const e = open(createEmbedder(profile({ pooling: "mean", normalize: true }), { modelsDir, allowDownload: false }));
    expect(e).toBeInstanceOf(OnnxEmbedder);
    expect(await e.whenReady()).toBe(true);
    expect(e.status()).toEqual({ state: "ready", detail: null });
    // One batch of different lengths: the short ones are padded, and padding must not count.
    const vs = await e.embedPassages(texts);
    vs.forEach((v, i) => {
      expect(v.length).toBe(16);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
      expect(maxDiff(v, expectedVector(tiny, idsOf(tiny, texts[i]), "mean"))).toBeLessThan(1e-5);
    });
  });

  it("CLS pooling takes the first token, so (without attention) every text gives the [CLS] vector", async () => {
    const e = open(new OnnxEmbedder(profile({ pooling: "cls" }), { modelsDir, allowDownload: false }));
    expect(await e.whenReady()).toBe(true);
    const [a, b] = await e.embedPassages(texts.slice(0, 2));
    const cls = expectedVector(tiny, [tiny.vocab["[CLS]"]], "cls");
    expect(maxDiff(a, cls)).toBeLessThan(1e-5);
    expect(maxDiff(b, cls)).toBeLessThan(1e-5);
    const mean = open(new OnnxEmbedder(profile({ pooling: "mean" }), { modelsDir, allowDownload: false }));
    const [m] = await mean.embedPassages(texts.slice(0, 1));
    expect(maxDiff(a, m)).toBeGreaterThan(0.05);
  });

  it("applies the query and passage prefixes", async () => {
    const p = profile({ pooling: "mean" }, { query_prefix: "Represent this sentence for searching: ", passage_prefix: "passage: " });
    const e = open(new OnnxEmbedder(p, { modelsDir, allowDownload: false }));
    const q = await e.embedQuery("cats");
    const [d] = await e.embedPassages(["cats"]);
    expect(maxDiff(q, expectedVector(tiny, idsOf(tiny, "Represent this sentence for searching: cats"), "mean"))).toBeLessThan(1e-5);
    expect(maxDiff(d, expectedVector(tiny, idsOf(tiny, "passage: cats"), "mean"))).toBeLessThan(1e-5);
  });

  it("truncates input at max_input_tokens", async () => {
    const e = open(new OnnxEmbedder(profile({ pooling: "mean" }, { max_input_tokens: 8 }), { modelsDir, allowDownload: false }));
    const long = Array.from({ length: 40 }, (_, i) => words[i % words.length]).join(" ");
    const [v] = await e.embedPassages([long]);
    const ids = idsOf(tiny, long);
    // transformers.js cuts the post-processed sequence, so the closing [SEP] goes too (HF Python
    // keeps it); chunk sizes keep real inputs below the limit, so this only touches outliers.
    const truncated = ids.slice(0, 8);
    expect(maxDiff(v, expectedVector(tiny, truncated, "mean"))).toBeLessThan(1e-5);
  });

  it("accepts the app's pino logger", async () => {
    const e = open(createEmbedder(profile({ pooling: "mean" }), { modelsDir, allowDownload: false, logger: pino({ level: "silent" }) }));
    expect(await e.whenReady()).toBe(true);
  });

  it("reports a dimension mismatch at startup", async () => {
    const e = open(new OnnxEmbedder(profile({ pooling: "mean" }, { dimension: 32 }), { modelsDir, allowDownload: false }));
    expect(await e.whenReady()).toBe(false);
    expect(e.status().detail).toMatch(/produces 16-dimensional vectors but profile "tiny" declares dimension 32/);
  });

  it("is unavailable, with an actionable detail, when the model is not in MODELS_DIR and downloads are off", async () => {
    const errors: string[] = [];
    const logger: EmbedLogger = { info() {}, warn() {}, error: (_o, msg) => errors.push(String(msg)) };
    const p = validateProfile({
      name: "bge",
      provider: "onnx",
      model: "Xenova/bge-small-en-v1.5",
      dimension: 384,
      max_input_tokens: 512,
      options: { pooling: "cls" },
    });
    const e = open(createEmbedder(p, { modelsDir: emptyDir, allowDownload: false, logger }));
    expect(await e.whenReady()).toBe(false);
    const st = e.status();
    expect(st.state).toBe("unavailable");
    expect(st.detail).toContain(path.join(emptyDir, "Xenova", "bge-small-en-v1.5"));
    expect(st.detail).toMatch(/downloads are off.*ALLOW_MODEL_DOWNLOAD=true/);
    expect(errors.join("\n")).toContain("was not found in MODELS_DIR");
    await expect(e.embedQuery("hello")).rejects.toBeInstanceOf(EmbedderUnavailableError);
    await expect(e.embedPassages(["hello"])).rejects.toThrow(/not found in MODELS_DIR/);
  });

  it("is unavailable when the local model file is corrupt", async () => {
    const id = "test-org/broken";
    writeTinyModel(modelsDir, id, words, 16);
    fs.writeFileSync(path.join(modelsDir, "test-org", "broken", "onnx", "model.onnx"), "not an onnx file");
    const e = open(new OnnxEmbedder(profile({ pooling: "mean" }, { model: id }), { modelsDir, allowDownload: false }));
    expect(await e.whenReady()).toBe(false);
    expect(e.status().detail).toMatch(/ONNX model test-org\/broken could not be loaded: .*Check that .*holds a complete export/);
  });
});
