// The "quarry" provider serving a model file: loads at once, embeds queries and passages into one
// space in process, and says why when its file is missing or damaged (the service then answers
// lexically) instead of failing to start.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtInProfiles, createEmbedder, QuarryStaticEmbedder, validateProfile, type EmbeddingProfile } from "../../src/embed/index.js";
import { writeModel } from "../../src/model/artifact.js";
import { train } from "../../src/model/train.js";
import { Random } from "../../src/model/random.js";
import { TINY_SETTINGS, topicCorpus, topicPair } from "./fixture.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-provider-"));
const file = path.join(dir, "tiny.qsm");
let profile: EmbeddingProfile;

beforeAll(async () => {
  const model = train(await topicCorpus(dir), TINY_SETTINGS);
  writeModel(file, { vocabulary: model.vocabulary, params: model.params, shape: model.shape, identitySeed: TINY_SETTINGS.seed }, { model: "tiny", training: {} });
  const base = builtInProfiles().find((p) => p.provider === "quarry")!;
  profile = validateProfile({ ...base, name: "tiny", model: "tiny", dimension: 64, options: { file } });
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe("quarry provider", () => {
  it("is ready at once and embeds a query nearest to its own passage", async () => {
    const e = createEmbedder(profile, { modelsDir: dir, allowDownload: false });
    expect(e).toBeInstanceOf(QuarryStaticEmbedder);
    expect(e.status()).toEqual({ state: "ready", detail: null });
    expect(await e.whenReady()).toBe(true);
    const rnd = new Random(5);
    const pairs = [0, 1, 2, 3].map((t) => topicPair(rnd, t));
    const passages = await e.embedPassages(pairs.map((p) => p.p));
    for (const [i, p] of pairs.entries()) {
      const q = await e.embedQuery(p.q);
      expect(q).toHaveLength(64);
      expect(Math.hypot(...q)).toBeCloseTo(1, 5);
      const scores = passages.map((v) => cos(q, v));
      expect(scores.indexOf(Math.max(...scores))).toBe(i);
    }
    expect([...(await e.embedQuery(pairs[0]!.q))]).toEqual([...(await e.embedQuery(pairs[0]!.q))]);
    await e.close();
  });

  it("gives a unit vector to a text without words", async () => {
    const e = createEmbedder(profile, { modelsDir: dir, allowDownload: false });
    const [v] = await e.embedPassages(["?!"]);
    expect(Math.hypot(...v!)).toBeCloseTo(1, 5);
  });

  it("is unavailable, saying which file and why, when the file is missing, damaged or of another shape", async () => {
    const missing = createEmbedder({ ...profile, options: { file: path.join(dir, "nope.qsm") } }, { modelsDir: dir, allowDownload: false });
    expect(missing.status().state).toBe("unavailable");
    expect(missing.status().detail).toMatch(/nope\.qsm/);
    await expect(missing.embedQuery("x")).rejects.toThrow(/nope\.qsm/);
    const damaged = path.join(dir, "damaged.qsm");
    fs.writeFileSync(damaged, fs.readFileSync(file).subarray(0, 60));
    expect(createEmbedder({ ...profile, options: { file: damaged } }, { modelsDir: dir, allowDownload: false }).status().detail).toMatch(/damaged/);
    expect(createEmbedder({ ...profile, dimension: 512 }, { modelsDir: dir, allowDownload: false }).status().detail).toMatch(/64-dimensional/);
  });

  it("loads a file once per process, and again once it is written anew", async () => {
    const copy = path.join(dir, "copy.qsm");
    fs.copyFileSync(file, copy);
    const of = (f: string) => createEmbedder({ ...profile, options: { file: f } }, { modelsDir: dir, allowDownload: false }) as QuarryStaticEmbedder;
    const [a, b] = [of(copy), of(copy)];
    expect(a.encoder()).not.toBeNull();
    expect(b.encoder()).toBe(a.encoder());
    await a.close();
    expect(await b.embedQuery("still served")).toHaveLength(64); // a closed sharer does not close the model
    fs.writeFileSync(copy, fs.readFileSync(file).subarray(0, 60));
    expect(of(copy).status().detail).toMatch(/damaged/);
    fs.copyFileSync(file, copy);
    const c = of(copy);
    expect(c.status().state).toBe("ready");
    expect(c.encoder()).not.toBe(a.encoder());
  });

  it("rejects a profile whose file option is not a path", () => {
    expect(() => validateProfile({ ...profile, options: { file: 3 } })).toThrow(/options\.file must be the path of a model file/);
  });
});
