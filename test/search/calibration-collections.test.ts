// The calibration fit's small collections (calibration-collections.ts): each holds its queries'
// relevant documents and random others up to its size, written as a BEIR folder.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseSmallPlans, writeSmallSubsets } from "../../src/evaluation/labs/calibration-collections.js";
import { readCorpus, readQrels, readQueries } from "../../src/evaluation/beir/beir-files.js";

function corpusDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "calibration-collections-"));
  const docs = Array.from({ length: 60 }, (_, i) => JSON.stringify({ _id: `d${i}`, title: `Doc ${i}`, text: `text ${i}` }));
  fs.writeFileSync(path.join(dir, "corpus.jsonl"), docs.join("\n") + "\n");
  return dir;
}

describe("small collections for the calibration fit", () => {
  it("parses SIZExCOUNT lists and refuses anything else", () => {
    expect(parseSmallPlans("10x60,30x20")).toEqual([
      { size: 10, count: 60 },
      { size: 30, count: 20 },
    ]);
    for (const bad of ["10", "x3", "1x5", "10x0", "ten x 3"]) expect(() => parseSmallPlans(bad)).toThrow(/SIZExCOUNT/);
  });

  it("writes collections of the asked size holding their queries' answers, the same for a seed", async () => {
    const dir = corpusDir();
    const ids = Array.from({ length: 12 }, (_, i) => `q${i}`);
    const queries = new Map(ids.map((q) => [q, `question ${q}`]));
    const qrels = new Map(ids.map((q, i) => [q, new Map([[`d${i}`, 1]])]));
    const subsets = await writeSmallSubsets(dir, "train", [{ size: 10, count: 3 }, { size: 20, count: 1 }], ids, queries, qrels);
    expect(subsets.map((s) => [s.size, s.queryIds.length])).toEqual([[10, 1], [10, 1], [10, 1], [20, 2]]);
    for (const s of subsets) {
      const docs: string[] = [];
      for await (const d of readCorpus(s.dir)) docs.push(d.id);
      expect(new Set(docs).size).toBe(s.size);
      const judged = await readQrels(s.dir, "train");
      expect([...judged.keys()].sort()).toEqual([...s.queryIds].sort());
      for (const q of s.queryIds) for (const d of judged.get(q)!.keys()) expect(docs).toContain(d);
      expect([...(await readQueries(s.dir)).keys()].sort()).toEqual([...s.queryIds].sort());
    }
    const again = await writeSmallSubsets(dir, "train", [{ size: 10, count: 3 }, { size: 20, count: 1 }], ids, queries, qrels);
    expect(again.map((s) => s.queryIds)).toEqual(subsets.map((s) => s.queryIds));
    for (const d of [dir, path.dirname(subsets[0]!.dir), path.dirname(again[0]!.dir)]) fs.rmSync(d, { recursive: true, force: true });
  });
});
