// The default model, for real: Universal Sentence Encoder lite in worker threads.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  builtInProfiles,
  createEmbedder,
  EmbedderUnavailableError,
  UseLiteEmbedder,
  type EmbeddingProfile,
} from "../../src/embed/index.js";
import { dot } from "../../src/embed/vector.js";

const profile: EmbeddingProfile = builtInProfiles().find((p) => p.name === "default")!;
let embedder: UseLiteEmbedder;

beforeAll(async () => {
  embedder = new UseLiteEmbedder(profile, { poolSize: 2 });
  expect(embedder.status().state).toBe("loading");
  expect(await embedder.whenReady()).toBe(true);
}, 60_000);

afterAll(async () => {
  await embedder?.close();
});

const norm = (v: Float32Array) => Math.sqrt(dot(v, v));
const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

describe("use-lite embedder", () => {
  it("is ready with 512-d unit vectors", async () => {
    expect(embedder.status()).toEqual({ state: "ready", detail: null });
    const [v] = await embedder.embedPassages(["The quick brown fox jumps over the lazy dog."]);
    expect(v).toBeInstanceOf(Float32Array);
    expect(v.length).toBe(512);
    expect(norm(v)).toBeCloseTo(1, 5);
  });

  it("is deterministic and independent of batching and order", async () => {
    const texts = [
      "Short one.",
      "A somewhat longer sentence about configuring the search index for a product catalogue.",
      "",
      "Billing questions go to the finance team.",
    ];
    const batch = await embedder.embedPassages(texts);
    const again = await embedder.embedPassages([...texts].reverse());
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await embedder.embedPassages([texts[i]]);
      expect(maxDiff(batch[i], alone)).toBeLessThan(1e-5);
      expect(maxDiff(batch[i], again[texts.length - 1 - i])).toBeLessThan(1e-5);
    }
    expect(norm(batch[2])).toBeCloseTo(1, 5); // empty text still gives a usable unit vector
    // No prefixes on this profile: a query and a passage of the same text are the same vector.
    expect(maxDiff(await embedder.embedQuery(texts[1]), batch[1])).toBeLessThan(1e-5);
  });

  it("puts paraphrases close and unrelated text far", async () => {
    const q = await embedder.embedQuery("How do I reset my password?");
    const [near, far] = await embedder.embedPassages([
      "Steps to recover account access when you forget your login secret",
      "The mitochondria is the powerhouse of the cell",
    ]);
    expect(dot(q, near)).toBeGreaterThan(dot(q, far) + 0.2);
  });

  it("sees the whole of a passage longer than one window (and the model's 128 tokens)", async () => {
    const cooking = "Preheat the oven, knead the dough for ten minutes, let it rise, then bake the bread until golden. ".repeat(4);
    const football = "The striker scored twice in the second half and the home team won the league title. ".repeat(4);
    const [a, ab, b] = await embedder.embedPassages([cooking, cooking + football, football]);
    // Truncation at 128 tokens would make cooking+football equal to cooking alone.
    expect(maxDiff(a, ab)).toBeGreaterThan(0.01);
    expect(dot(ab, b)).toBeGreaterThan(dot(a, b) + 0.1);
    expect(norm(ab)).toBeCloseTo(1, 5);
  });

  it("keeps the event loop responsive while embedding 500 passages", async () => {
    const texts = Array.from(
      { length: 500 },
      (_, i) => `Document ${i}: notes on topic ${i % 37}, covering setup, usage and troubleshooting of feature ${i}.`,
    );
    let ticks = 0;
    let maxGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      ticks++;
    }, 10);
    const t0 = performance.now();
    const vectors = await embedder.embedPassages(texts);
    const elapsed = performance.now() - t0;
    clearInterval(timer);
    expect(vectors).toHaveLength(500);
    expect(vectors.every((v) => v.length === 512)).toBe(true);
    // Embedding on the main thread would block it for a second or more per batch, and the timer
    // would barely tick. The margins leave room for a busy CI machine (other suites share the cores).
    const seen = { ticks, expected: Math.round(elapsed / 10), maxGap: Math.round(maxGap) };
    expect(seen.ticks, JSON.stringify(seen)).toBeGreaterThan(seen.expected * 0.3);
    expect(seen.maxGap, JSON.stringify(seen)).toBeLessThan(500);
  }, 180_000); // 500 passages take ~1 s on onnxruntime, ~40 s on TensorFlow.js; the bound is for the responsiveness checks, not speed

  it("answers a query while a large upload is being embedded", async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `Passage ${i} about warehouses, shipping and returns policy number ${i}.`);
    let passagesDone = false;
    const passages = embedder.embedPassages(texts).then(() => (passagesDone = true));
    await new Promise((r) => setTimeout(r, 50));
    const q = await embedder.embedQuery("what is the returns policy for damaged items?");
    expect(q.length).toBe(512);
    expect(passagesDone).toBe(false); // served by the query worker, not behind the upload
    await passages;
  }, 60_000);

  it("caches query vectors and hands out copies", async () => {
    const before = embedder.stats();
    const text = "where is the invoice for order 1234?";
    const a = await embedder.embedQuery(text);
    a[0] = 42; // the caller's copy; the cache must not see this
    const t0 = performance.now();
    const b = await embedder.embedQuery(text);
    const hitMs = performance.now() - t0;
    const c = await embedder.embedQuery(text);
    const after = embedder.stats();
    expect(after.cacheHits - before.cacheHits).toBe(2);
    expect(after.cacheMisses - before.cacheMisses).toBe(1);
    expect(b).toEqual(c);
    expect(b[0]).not.toBe(42);
    expect(b).not.toBe(c);
    expect(hitMs).toBeLessThan(5);
  });

  // onnxruntime's worker cannot be terminated inside a native call without taking the process
  // down, so there the worker is made to exit on its own between two model calls of the job;
  // TensorFlow.js's is terminated from outside, as an out-of-memory abort would.
  it.each(["onnx", "tfjs"] as const)("survives a worker that dies mid-job (%s): the job is retried and the worker replaced", async (runtime) => {
    const errors: string[] = [];
    const logger = { info() {}, warn() {}, error: (_o: unknown, msg?: string) => void errors.push(String(msg)) };
    const e = new UseLiteEmbedder(profile, { poolSize: 2, queryWorker: false, logger, runtime });
    expect(await e.whenReady()).toBe(true);
    await expect.poll(() => e.stats().readyWorkers, { timeout: 30_000 }).toBe(2);
    const texts = Array.from({ length: 96 }, (_, i) => `Crash test passage number ${i} about storage engines.`);
    const expected = await e.embedPassages(texts);
    const pending = e.embedPassages(texts);
    await new Promise((r) => setTimeout(r, 20));
    const slots = e["slots"] as { worker: { terminate(): Promise<number>; postMessage(m: unknown): void } | null; job: unknown }[];
    const busy = slots.find((s) => s.job !== null && s.worker !== null) ?? slots[0];
    if (runtime === "tfjs") await busy.worker!.terminate();
    else busy.worker!.postMessage({ type: "stop" });
    const got = await pending;
    got.forEach((v, i) => expect(maxDiff(v, expected[i])).toBeLessThan(1e-5));
    // an onnx worker reads "stop" between jobs: on a loaded machine the embedding may end first and
    // the exit come after it, so the crash is awaited before its replacement is counted
    await expect.poll(() => errors, { timeout: 30_000 }).toContain("use-lite worker exited unexpectedly");
    await expect.poll(() => e.stats().readyWorkers, { timeout: 30_000 }).toBe(2);
    expect(e.status().state).toBe("ready");
    await e.close();
  }, 60_000);

  it("rejects calls after close", async () => {
    const e = createEmbedder(profile, { modelsDir: "/nonexistent", allowDownload: false, poolSize: 1, queryWorker: false });
    expect(await e.whenReady()).toBe(true);
    expect(e.status().state).toBe("ready");
    await e.close();
    await expect(e.embedQuery("hello")).rejects.toBeInstanceOf(EmbedderUnavailableError);
  }, 60_000);

  it("reports unavailable, and rejects calls, when the model cannot load", async () => {
    // A load timeout is the one load failure we can cause without breaking the installed package.
    const e = new UseLiteEmbedder(profile, { poolSize: 1, queryWorker: false, loadTimeoutMs: 1 });
    expect(await e.whenReady()).toBe(false);
    expect(e.status()).toEqual({
      state: "unavailable",
      detail: expect.stringMatching(/could not be loaded: the model did not load within 1 ms\. Check that the npm packages/),
    });
    await expect(e.embedPassages(["x"])).rejects.toBeInstanceOf(EmbedderUnavailableError);
    await expect(e.embedQuery("x")).rejects.toThrow(/did not load within 1 ms/);
    await e.close();
  });

  it("refuses a use-lite profile whose dimension is not 512", () => {
    expect(() => new UseLiteEmbedder({ ...profile, dimension: 384 })).toThrow(/declares dimension 384. Set "dimension": 512/);
  });
});
