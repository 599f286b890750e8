// Which model embeds a source's chunks (src/services/ingest/passage-models.ts). The backfill asks
// for every batch of 64 chunks; with an active model that cannot be adapted (USE lite, or the static
// file not loaded) the answer is "the base model" without reading the store. The adapted case runs
// through the real store in test/evaluation/adaptation-model.test.ts.
import pino from "pino";
import { describe, expect, it } from "vitest";
import { createPassageModels } from "../../src/services/ingest/passage-models.js";
import { createQueryModels } from "../../src/services/search/query-models.js";

describe("passage models", () => {
  it("reads nothing when the active model cannot be adapted", async () => {
    const reads: string[] = [];
    const content = {
      sourceLanguages: async () => (reads.push("sourceLanguages"), [{ collection_id: "col_1", data_source_id: "src_1", language: null }]),
      collectionScope: async () => (reads.push("collectionScope"), { settings: { model_adaptation: { id: "qad_1", kind: "model", enabled: true } }, data_source_ids: ["src_1"], language: null }),
    };
    const files = { read: async () => (reads.push("file"), null) };
    const models = createQueryModels({ files, base: () => null, log: pino({ level: "silent" }) });
    const passages = createPassageModels({ content, models });
    expect((await passages.forSources("t", ["src_1"])).size).toBe(0);
    expect(reads).toEqual([]);
  });
});
