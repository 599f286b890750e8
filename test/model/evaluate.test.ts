// The model evaluation's plumbing: SciFact passages are chunked as the service ingests them (one
// passage per whole abstract read the model differently from the service), and a fusion weight
// given to scoreLists is the one the hybrid list is ranked with.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lexicalRuns, scoreLists } from "../../src/evaluation/bench/model/evaluate.js";
import { scifactSet, type EvalSet } from "../../src/evaluation/bench/model/sets.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-model-eval-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("model evaluation", () => {
  it("chunks a long BEIR abstract into several passages of its document", async () => {
    const long = Array.from({ length: 120 }, (_, i) => `Sentence ${i} says that cells divide under stress number ${i}.`).join(" ");
    fs.writeFileSync(path.join(dir, "corpus.jsonl"), `${JSON.stringify({ _id: "d1", title: "Long", text: long })}\n${JSON.stringify({ _id: "d2", title: "Short", text: "A short abstract." })}\n`);
    fs.writeFileSync(path.join(dir, "queries.jsonl"), `${JSON.stringify({ _id: "q1", text: "cells divide" })}\n`);
    fs.mkdirSync(path.join(dir, "qrels"), { recursive: true });
    fs.writeFileSync(path.join(dir, "qrels", "test.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t1\n");
    const set = await scifactSet(dir, "test");
    const d1 = set.passages.filter((p) => p.doc === "d1");
    expect(d1.length).toBeGreaterThan(1);
    expect(d1.every((p) => p.title === "Long")).toBe(true);
    expect(set.passages.filter((p) => p.doc === "d2")).toHaveLength(1);
    expect(set.queries).toHaveLength(1);
  });

  it("ranks the hybrid list with the fusion weights it is given", () => {
    const set: EvalSet = {
      name: "t",
      passages: ["a", "b", "c"].map((doc) => ({ doc, title: doc, headings: [], body: doc })),
      queries: [{ text: "q", relevant: new Map([["b", 1]]), group: "g" }],
    };
    // lexical prefers passage 0 (a), the vector list passage 1 (b, the relevant one)
    const lexical = [[{ id: "0", score: 9 }, { id: "1", score: 1 }, { id: "2", score: 0.5 }]];
    const vector = [[{ id: "1", score: 0.9 }, { id: "0", score: 0.1 }, { id: "2", score: 0 }]];
    const lexicalOnly = scoreLists(set, lexical, vector, { lexicalWeight: 1, vectorWeight: 0 });
    const vectorOnly = scoreLists(set, lexical, vector, { lexicalWeight: 0, vectorWeight: 1 });
    expect(lexicalOnly.hybrid.ndcg10).toBeCloseTo(lexicalOnly.lexical.ndcg10, 10);
    expect(vectorOnly.hybrid.ndcg10).toBe(1);
    expect(lexicalOnly.hybrid.ndcg10).toBeLessThan(1);
  });

  it("gives each query its lexical coverage (adaptive fusion's signal) and ranks it with its own fusion", () => {
    const set: EvalSet = {
      name: "t",
      passages: ["gears pulleys", "levers hooks", "springs coils", "wheels rims", "axles hubs", "belts chains"].map((body, i) => ({ doc: String(i), title: "", headings: [], body })),
      queries: [
        { text: "gears pulleys", relevant: new Map([["0", 1]]), group: "g" },
        { text: "gears zeppelins", relevant: new Map([["0", 1]]), group: "g" },
        { text: "zeppelins", relevant: new Map([["0", 1]]), group: "g" },
      ],
    };
    const { lists, coverage } = lexicalRuns(set);
    // both words in the best passage (of average length, so BM25 gives each its idf): full; one
    // of two rare words: partial; nothing matched: 0
    expect(coverage[0]).toBeCloseTo(1, 9);
    expect(coverage[1]).toBeGreaterThan(0);
    expect(coverage[1]).toBeLessThan(1);
    expect(coverage[2]).toBe(0);
    expect(lists[2]).toEqual([]);
    // query 0 fused lexically only, query 1 by vectors only: each hybrid list follows its own weights
    const vector = set.queries.map(() => [{ id: "3", score: 0.9 }, { id: "0", score: 0.1 }]);
    const perQuery = scoreLists(set, lists, vector, (q) => (q === 0 ? { lexicalWeight: 1, vectorWeight: 0 } : { lexicalWeight: 0, vectorWeight: 1 }));
    expect(perQuery.hybrid.ndcg10).toBeCloseTo((1 + 1 / Math.log2(3) + 1 / Math.log2(3)) / 3, 10);
  });
});
