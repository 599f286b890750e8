// A kept bench load is reused only when the same model file embedded it: quarry-static keeps its
// profile name and vector index when its file changes, so a load embedded by the shipped file and
// searched with a candidate's query vectors read the candidate far below what it does (docs/model.md,
// "Why it is not the default yet").
import { describe, expect, it } from "vitest";
import { loadedModel, sameLoad, type Marker } from "../../src/evaluation/bench/load-marker.js";
import { sameDocsLoad } from "../../src/evaluation/bench/docs-questions/load.js";
import type { BenchOptions } from "../../src/evaluation/bench/args.js";

const runtime = (version: string | null) => ({ activeProfile: { model: "quarry-static-v1" }, embedderVersion: () => version });

describe("bench load markers", () => {
  it("name the model file's version", () => {
    expect(loadedModel(runtime("2026-11-27.3f2a9c01"))).toBe("quarry-static-v1 2026-11-27.3f2a9c01");
    expect(loadedModel(runtime(null))).toBe("quarry-static-v1 (no version)");
  });

  it("a SciFact load made by another model file (or marked before models were recorded) is not reused", () => {
    const o = { dataset: "/d/scifact", split: "test", maxDocuments: null, limitQueries: null } as BenchOptions;
    const shipped = loadedModel(runtime("2026-11-27.3f2a9c01"));
    const marker = { dataset: "/d/scifact", split: "test", maxDocuments: null, limitQueries: null, profile: "quarry-static", chunking: "400/40 tokens, 512-d", model: shipped } as Marker;
    expect(sameLoad(marker, o, "quarry-static", "400/40 tokens, 512-d", shipped)).toBe(true);
    expect(sameLoad(marker, o, "quarry-static", "400/40 tokens, 512-d", loadedModel(runtime("2026-11-28.0be1c2d3")))).toBe(false);
    expect(sameLoad({ ...marker, model: undefined }, o, "quarry-static", "400/40 tokens, 512-d", shipped)).toBe(false);
  });

  it("a docs load made by another model file is not reused", () => {
    const load = { docsDir: "/usr/share/doc/nodejs/api", pages: ["fs.html", "http.html"], profile: "quarry-static", chunking: "400/40 tokens, 512-d", model: "quarry-static-v1 2026-11-27.3f2a9c01" };
    expect(sameDocsLoad(load, { ...load })).toBe(true);
    expect(sameDocsLoad(load, { ...load, model: "quarry-static-v1 2026-11-28.0be1c2d3" })).toBe(false);
    expect(sameDocsLoad({ ...load, model: undefined }, load)).toBe(false);
    expect(sameDocsLoad(load, { ...load, pages: ["fs.html"] })).toBe(false);
  });
});
