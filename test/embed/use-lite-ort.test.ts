// USE lite on onnxruntime (the default runtime) against the same model on TensorFlow.js: the ONNX
// graph is rebuilt by hand from the package's weights, so it must give TensorFlow's vectors, or
// collections embedded before the runtime changed would no longer match their queries.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtInProfiles, EmbedderUnavailableError, UseLiteEmbedder, validateProfile, type EmbeddingProfile } from "../../src/embed/index.js";

const profile: EmbeddingProfile = builtInProfiles().find((p) => p.name === "default")!;
let ortEmbedder: UseLiteEmbedder;
let tfEmbedder: UseLiteEmbedder;

beforeAll(async () => {
  ortEmbedder = new UseLiteEmbedder(profile, { poolSize: 1, queryWorker: false });
  tfEmbedder = new UseLiteEmbedder({ ...profile, options: { runtime: "tfjs" } }, { poolSize: 1, queryWorker: false });
  expect(await ortEmbedder.whenReady()).toBe(true);
  expect(await tfEmbedder.whenReady()).toBe(true);
}, 60_000);

afterAll(async () => {
  await Promise.all([ortEmbedder?.close(), tfEmbedder?.close()]);
});

const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

describe("use-lite on onnxruntime", () => {
  it("runs onnxruntime by default and TensorFlow.js when the profile asks", () => {
    expect(ortEmbedder.stats().runtimes).toEqual(["onnx"]);
    expect(tfEmbedder.stats().runtimes).toEqual(["tfjs"]);
    // what /health names beside the model and its version
    expect(ortEmbedder.runtime()).toBe("onnxruntime");
    expect(tfEmbedder.runtime()).toBe("TensorFlow.js");
  });

  it("gives TensorFlow.js's vectors: short, empty, padded in a batch, and windowed texts", async () => {
    const texts = [
      "what do otters eat in winter",
      "",
      "x",
      "Otter Field Notes: through the winter the river otters eat fish, crayfish and frogs they find under the ice.",
      // ~300 SentencePiece tokens: five overlapping 64-token windows, averaged.
      "Preheat the oven, knead the dough for ten minutes, let it rise, then bake the bread until golden. ".repeat(6) +
        "The striker scored twice in the second half and the home team won the league title. ".repeat(6),
      "Ünïcödé, emoji 🦦 and numbers 3.14159 in one line; SELECT * FROM t WHERE id = 42;",
    ];
    const [fromOrt, fromTf] = await Promise.all([ortEmbedder.embedPassages(texts), tfEmbedder.embedPassages(texts)]);
    texts.forEach((_, i) => expect(maxDiff(fromOrt[i], fromTf[i]), `text ${i}`).toBeLessThan(1e-5));
    // A query takes the same path (no prefixes on this profile).
    expect(maxDiff(await ortEmbedder.embedQuery(texts[0]), fromTf[0])).toBeLessThan(1e-5);
  }, 60_000);

  // Terminating a worker thread while onnxruntime's native code runs in it aborts the whole
  // process; close() asks the workers to stop between model calls instead.
  it("closes while a large upload is in onnxruntime, without taking the process down", async () => {
    const e = new UseLiteEmbedder(profile, { poolSize: 2, queryWorker: false });
    expect(await e.whenReady()).toBe(true);
    const texts = Array.from({ length: 400 }, (_, i) => `Passage ${i} on warehouses, shipping and the returns policy. `.repeat(12));
    const pending = e.embedPassages(texts).then(() => null, (err: unknown) => err); // settled by close()
    await expect.poll(() => e.stats().windows, { timeout: 10_000, interval: 5 }).toBeGreaterThan(0); // model calls under way
    const t0 = performance.now();
    await e.close();
    expect(performance.now() - t0).toBeLessThan(5_000); // between two model calls, not after the grace period
    expect(await pending).toBeInstanceOf(EmbedderUnavailableError);
  }, 60_000);

  it("refuses a runtime it does not have, saying which it has", () => {
    expect(() => validateProfile({ ...profile, options: { runtime: "gpu" } })).toThrow(/options\.runtime must be "onnx" .* or "tfjs"/);
    expect(() => validateProfile({ ...profile, options: { int8: true, runtime: "tfjs" } })).toThrow(/must be "onnx" when options\.int8 is true/);
  });

  it("use-lite-int8: its own vectors, close to the default's, under its own index", async () => {
    const int8Profile = builtInProfiles().find((p) => p.name === "use-lite-int8")!;
    expect(int8Profile.index_name).not.toBe(profile.index_name);
    const int8 = new UseLiteEmbedder(int8Profile, { poolSize: 1 });
    try {
      expect(await int8.whenReady()).toBe(true);
      const texts = ["what do otters eat in winter", "Preheat the oven, knead the dough, let it rise and bake the bread. ".repeat(8)];
      const [quantized, full] = await Promise.all([int8.embedPassages(texts), ortEmbedder.embedPassages(texts)]);
      texts.forEach((_, i) => {
        const cos = quantized[i].reduce((sum, x, d) => sum + x * full[i][d], 0);
        // 0.998-0.999 with 7-bit weights on every CPU; 8-bit weights gave 0.978-0.989 on an AVX2
        // CPU without VNNI (saturated 16-bit sums, use-lite-graph.ts WEIGHT_MAX)
        expect(cos, `text ${i}`).toBeGreaterThan(0.995);
        expect(maxDiff(quantized[i], full[i]), `text ${i} is quantized`).toBeGreaterThan(1e-4);
      });
      // Its queries are embedded in this thread (no query worker), by the same int8 graph, and a
      // text's vector does not depend on what it was batched with (int8 quantizes a call's
      // activations with one scale, so each window is its own call).
      expect(int8.stats().runtimes).toEqual(["onnx"]);
      expect(int8.stats().workers).toBe(1);
      const windowsBefore = int8.stats().windows;
      expect(maxDiff(await int8.embedQuery(texts[1]), quantized[1])).toBeLessThan(1e-6);
      expect(int8.stats().windows - windowsBefore).toBeGreaterThan(1); // windowed, counted here
      const [alone] = await int8.embedPassages([texts[0]]);
      expect(maxDiff(alone, quantized[0])).toBeLessThan(1e-6);
    } finally {
      await int8.close();
    }
    // With options.query_worker it has a query worker like the float model's, which gives the same vector.
    const withWorker = new UseLiteEmbedder({ ...int8Profile, options: { ...int8Profile.options, query_worker: true } }, { poolSize: 1 });
    try {
      expect(await withWorker.whenReady()).toBe(true);
      expect(withWorker.stats().workers).toBe(2);
      const otter = "what do otters eat in winter";
      const [passage] = await withWorker.embedPassages([otter]);
      expect(maxDiff(await withWorker.embedQuery(otter), passage)).toBeLessThan(1e-6);
    } finally {
      await withWorker.close();
    }
  }, 60_000);

  it("refuses a query_worker option that is not a boolean", () => {
    expect(() => validateProfile({ ...profile, options: { query_worker: "no" } })).toThrow(/query_worker/);
  });
});
