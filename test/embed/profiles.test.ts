import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  builtInProfiles,
  deriveIndexName,
  EmbeddingProfileError,
  loadProfiles,
  resolveActiveProfile,
  validateProfile,
} from "../../src/embed/index.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-profiles-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, typeof content === "string" ? content : JSON.stringify(content));
  return p;
}

const minimal = { name: "mine", provider: "onnx", model: "org/model", dimension: 256, max_input_tokens: 256 };

describe("built-in profiles", () => {
  it("default is USE lite, 512-d, sized to the model's 128-token input", () => {
    const d = resolveActiveProfile(loadProfiles(), "default");
    expect(d).toMatchObject({
      name: "default",
      provider: "use-lite",
      model: "universal-sentence-encoder-lite",
      dimension: 512,
      max_input_tokens: 128,
      chunk_size_tokens: 400,
      chunk_overlap_tokens: 40,
      query_prefix: "",
      passage_prefix: "",
      modalities: ["text"],
      index_name: "vec_universal_sentence_encoder_lite_512",
    });
    expect(d.description).toMatch(/Universal Sentence Encoder/);
  });

  it("has the ONNX and OpenAI examples with their prefixes, pooling and options", () => {
    const byName = new Map(builtInProfiles().map((p) => [p.name, p]));
    expect(byName.get("bge-small-en-v1.5")).toMatchObject({
      provider: "onnx",
      model: "Xenova/bge-small-en-v1.5",
      dimension: 384,
      max_input_tokens: 512,
      query_prefix: "Represent this sentence for searching relevant passages: ",
      passage_prefix: "",
      options: { pooling: "cls", normalize: true },
    });
    expect(byName.get("multilingual-e5-small")).toMatchObject({
      provider: "onnx",
      dimension: 384,
      query_prefix: "query: ",
      passage_prefix: "passage: ",
      options: { pooling: "mean" },
    });
    expect(byName.get("openai")).toMatchObject({
      provider: "openai",
      model: "text-embedding-3-small",
      dimension: 1536,
      options: { base_url: "https://api.openai.com/v1", api_key_env: "OPENAI_API_KEY", batch_size: 64, timeout_ms: 30000 },
    });
    // Same provider and dimension, different models: their vectors must not share an index.
    expect(byName.get("bge-small-en-v1.5")!.index_name).not.toBe(byName.get("multilingual-e5-small")!.index_name);
    for (const p of byName.values()) expect(p.chunk_overlap_tokens).toBeLessThan(p.chunk_size_tokens);
  });

  it("returns fresh copies", () => {
    builtInProfiles()[0].options.batch_size = 1;
    expect(builtInProfiles()[0].options.batch_size).toBeUndefined();
  });
});

describe("profiles file", () => {
  it("overrides a built-in by name and appends new profiles with defaults filled in", () => {
    const p = file("ok.json", [
      { ...builtInProfiles()[0], chunk_size_tokens: 100, chunk_overlap_tokens: 16, index_name: null },
      minimal,
    ]);
    const profiles = loadProfiles({ profilesFile: p });
    expect(profiles.map((x) => x.name)).toEqual([
      "default",
      "use-lite-int8",
      "bge-small-en-v1.5",
      "multilingual-e5-small",
      "openai",
      "use-lite-static",
      "quarry-static",
      "mine",
    ]);
    expect(profiles[0].chunk_size_tokens).toBe(100);
    expect(profiles[7]).toEqual({
      ...minimal,
      provider: "onnx",
      chunk_size_tokens: 256,
      chunk_overlap_tokens: 0,
      query_prefix: "",
      passage_prefix: "",
      modalities: ["text"],
      description: "",
      index_name: "vec_org_model_256",
      options: {},
    });
    expect(resolveActiveProfile(profiles, "mine").model).toBe("org/model");
  });

  it("keeps an explicit index_name", () => {
    const [p] = loadProfiles({ profilesFile: file("idx.json", [{ ...minimal, index_name: "vec_custom" }]) }).slice(-1);
    expect(p.index_name).toBe("vec_custom");
  });

  const bad: [string, unknown, RegExp][] = [
    ["not json", "{ nope", /not valid JSON/],
    ["not an array", { profiles: [] }, /must contain a JSON array of profiles, got an object/],
    ["entry not an object", [42], /profiles\[0\] must be an object, got 42/],
    ["missing name", [{ ...minimal, name: undefined }], /profiles\[0\]\.name must be a string \(got nothing\)/],
    ["unknown provider", [{ ...minimal, provider: "cohere" }], /profiles\[0\]\.provider must be one of "quarry", "use-lite", "static", "onnx", "openai" \(got "cohere"\)/],
    ["dimension as string", [minimal, { ...minimal, name: "b", dimension: "384" }], /profiles\[1\]\.dimension must be a positive integer \(got "384"\)/],
    ["overlap too big", [{ ...minimal, chunk_size_tokens: 100, chunk_overlap_tokens: 100 }], /chunk_overlap_tokens must be smaller than chunk_size_tokens \(100\)/],
    ["bad modalities", [{ ...minimal, modalities: [] }], /modalities must be a non-empty array/],
    ["bad index name", [{ ...minimal, index_name: "Vec-1" }], /index_name must be null or a lowercase SQL identifier/],
    ["bad pooling", [{ ...minimal, options: { pooling: "max" } }], /profiles\[0\]\.options\.pooling must be "cls" or "mean" \(got "max"\)/],
    ["bad base_url", [{ ...minimal, provider: "openai", options: { base_url: "localhost:8080" } }], /options\.base_url must be an http\(s\) URL/],
    ["use-lite with another dimension", [{ ...minimal, provider: "use-lite", dimension: 384, max_input_tokens: 128 }], /profiles\[0\]\.dimension must be 512 for provider "use-lite"/],
    ["duplicate names", [minimal, minimal], /profiles\[1\]\.name "mine" is defined twice/],
  ];
  it.each(bad)("rejects %s with a message naming the file and field", (name, content, message) => {
    const p = file(`${name.replace(/\W+/g, "-")}.json`, content);
    let err: unknown;
    try {
      loadProfiles({ profilesFile: p });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EmbeddingProfileError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toContain(p);
  });

  it("reports a missing file", () => {
    expect(() => loadProfiles({ profilesFile: path.join(tmp, "missing.json") })).toThrow(/Cannot read the embedding profiles file .*missing\.json/);
  });
});

describe("resolveActiveProfile", () => {
  it("names the known profiles when the name is unknown", () => {
    expect(() => resolveActiveProfile(loadProfiles(), "bge-large")).toThrow(
      /Unknown embedding profile "bge-large" \(EMBEDDING_PROFILE\)\. Known profiles: "default", "use-lite-int8", "bge-small-en-v1\.5", "multilingual-e5-small", "openai"/,
    );
  });
});

describe("deriveIndexName", () => {
  it("is a short SQL identifier, distinct for long model ids", () => {
    const a = deriveIndexName({ model: "some-org/" + "x".repeat(80) + "-a", dimension: 1024 });
    const b = deriveIndexName({ model: "some-org/" + "x".repeat(80) + "-b", dimension: 1024 });
    expect(a.length).toBeLessThanOrEqual(63);
    expect(a).toMatch(/^vec_[a-z0-9_]+_1024$/);
    expect(a).not.toBe(b);
    expect(deriveIndexName({ model: "Xenova/bge-small-en-v1.5", dimension: 384 })).toBe("vec_xenova_bge_small_en_v1_5_384");
  });

  it("validateProfile derives it when index_name is null", () => {
    expect(validateProfile({ ...minimal, index_name: null }).index_name).toBe("vec_org_model_256");
  });
});
