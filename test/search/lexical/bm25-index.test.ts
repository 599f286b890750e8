// The embedded store's BM25 index: MaxScore top-k against exhaustive scoring on random corpora,
// exact statistics after deletes, and FTS5's bm25() formula.
import { describe, expect, it } from "vitest";
import { packTf, type ChunkTerms } from "../../../src/search/lexical/analyze.js";
import { Bm25Index } from "../../../src/search/lexical/bm25-index.js";
import { idf, tfFactor } from "../../../src/search/lexical/bm25.js";
import type { LexicalWeights, QueryTerm } from "../../../src/search/lexical/types.js";

function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A chunk of Zipf-distributed terms over a vocabulary of `vocab` words. */
function randomChunk(rand: () => number, vocab: number): ChunkTerms {
  const counts = new Map<string, [number, number, number]>();
  let length = 0;
  const fieldLens = [1 + Math.floor(rand() * 6), Math.floor(rand() * 4), 5 + Math.floor(rand() * 120)];
  fieldLens.forEach((n, field) => {
    for (let i = 0; i < n; i++) {
      const w = `w${Math.floor(vocab ** rand()) - 1}`; // skewed: low ids frequent
      let c = counts.get(w);
      if (!c) counts.set(w, (c = [0, 0, 0]));
      c[field]++;
      length++;
    }
  });
  const terms = [...counts.keys()];
  return { terms, tfs: Uint16Array.from(terms.map((t) => packTf(...counts.get(t)!))), length };
}

function randomQuery(rand: () => number, vocab: number): QueryTerm[] {
  const n = 1 + Math.floor(rand() * 6);
  const terms = new Set<string>();
  for (let i = 0; i < n; i++) terms.add(`w${Math.floor(vocab ** rand()) - 1}`);
  return [...terms].map((term) => ({ term, count: rand() < 0.1 ? 2 : 1 }));
}

const W: LexicalWeights = { title: 2, headings: 1.5, body: 1 };

function expectSameTopK(a: { key: number; score: number }[], b: { key: number; score: number }[]): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(a[i]!.score).toBeCloseTo(b[i]!.score, 9);
  // keys agree except where neighbouring scores tie (then either order is a correct top-k)
  const kth = b.length ? b[b.length - 1]!.score : 0;
  const firm = (xs: { key: number; score: number }[]) => xs.filter((x) => Math.abs(x.score - kth) > 1e-9).map((x) => x.key).sort();
  expect(firm(a)).toEqual(firm(b));
}

/** Two indexes of the same chunks: equal statistics, and identical answers to 30 random queries over either source. */
function expectSameAnswers(a: Bm25Index, b: Bm25Index, rand: () => number): void {
  expect(a.docCount).toBe(b.docCount);
  expect(a.avgdl).toBe(b.avgdl);
  for (let q = 0; q < 30; q++) {
    const query = randomQuery(rand, 800);
    const allowed = new Uint8Array([1, q % 2]);
    expect(a.search(query, 10, W, allowed)).toEqual(b.search(query, 10, W, allowed));
  }
}

describe("Bm25Index", () => {
  it("MaxScore top-k equals exhaustive BM25 top-k on random corpora, with source filters", () => {
    for (let seed = 1; seed <= 6; seed++) {
      const rand = prng(seed);
      const vocab = 200 + Math.floor(rand() * 3000);
      const idx = new Bm25Index();
      const nDocs = 500 + Math.floor(rand() * 3000);
      for (let d = 0; d < nDocs; d++) idx.add(d * 3 + 7, Math.floor(rand() * 3), randomChunk(rand, vocab));
      if (seed % 2) idx.merge(); // half the corpora from the base segment, half from the delta
      for (let q = 0; q < 40; q++) {
        const query = randomQuery(rand, vocab);
        const k = [1, 5, 10, 100][q % 4]!;
        const allowed = q % 3 === 0 ? new Uint8Array([1, 0, 1]) : new Uint8Array([1, 1, 1]);
        expectSameTopK(idx.search(query, k, W, allowed), idx.exhaustive(query, k, W, allowed));
      }
    }
  });

  it("a bulk load answers exactly like chunk-by-chunk adds", () => {
    const rand = prng(9);
    const chunks = Array.from({ length: 2000 }, () => randomChunk(rand, 800));
    const one = new Bm25Index();
    chunks.forEach((c, i) => one.add(i + 1, i % 2, c));
    const bulk = new Bm25Index();
    bulk.bulkAdd(chunks.map((chunk, i) => ({ key: i + 1, source: i % 2, chunk })));
    expectSameAnswers(bulk, one, rand);
  });

  it("a load in parts (page by page, a repeated key skipped) answers exactly like one bulk load", () => {
    const rand = prng(11);
    const chunks = Array.from({ length: 2000 }, () => randomChunk(rand, 800)).map((chunk, i) => ({ key: i + 1, source: i % 2, chunk }));
    const bulk = new Bm25Index();
    bulk.bulkAdd(chunks);
    const parts = new Bm25Index();
    parts.startLoad();
    for (let i = 0; i < chunks.length; i += 300) parts.loadMore(chunks.slice(i, i + 310)); // pages overlap by 10 rows
    expect(() => parts.startLoad()).toThrow(/not loading/);
    parts.finishLoad();
    expect(() => parts.finishLoad()).toThrow(/without startLoad/);
    expectSameAnswers(parts, bulk, rand);
  });

  it("after deletes, statistics and scores equal those of a fresh index of the remaining chunks", () => {
    const rand = prng(42);
    const chunks = Array.from({ length: 3000 }, () => randomChunk(rand, 1500));
    const churned = new Bm25Index();
    chunks.forEach((c, i) => churned.add(i, 0, c));
    const removed = new Set<number>();
    for (let i = 0; i < chunks.length; i++) if (rand() < 0.4) removed.add(i);
    // deletes interleaved with merges: some land before, some after the compaction
    let n = 0;
    for (const i of removed) {
      churned.remove(i, chunks[i]!.terms);
      if (++n === 300) churned.merge();
    }
    const fresh = new Bm25Index();
    chunks.forEach((c, i) => removed.has(i) || fresh.add(i, 0, c));
    expect(churned.docCount).toBe(fresh.docCount);
    expect(churned.avgdl).toBe(fresh.avgdl);
    for (let t = 0; t < 1500; t++) expect(churned.df(`w${t}`)).toBe(fresh.df(`w${t}`));
    const all = new Uint8Array([1]);
    for (let q = 0; q < 50; q++) {
      const query = randomQuery(rand, 1500);
      expect(churned.search(query, 10, W, all)).toEqual(fresh.search(query, 10, W, all));
    }
  });

  it("scores like FTS5 bm25(): idf floor, weighted field frequencies, document length over all fields", () => {
    const idx = new Bm25Index();
    idx.add(1, 0, { terms: ["a", "b"], tfs: Uint16Array.from([packTf(1, 0, 2), packTf(0, 0, 1)]), length: 10 });
    idx.add(2, 0, { terms: ["b"], tfs: Uint16Array.from([packTf(0, 1, 0)]), length: 4 });
    idx.add(3, 0, { terms: ["c"], tfs: Uint16Array.from([packTf(0, 0, 1)]), length: 6 });
    const avgdl = 20 / 3;
    const [hit] = idx.search([{ term: "a", count: 1 }], 1, W, new Uint8Array([1]));
    expect(hit!.key).toBe(1);
    expect(hit!.score).toBeCloseTo(Math.log((3 - 1 + 0.5) / (1 + 0.5)) * tfFactor(1 * 2 + 2 * 1, 10, avgdl), 12);
    expect(idf(3, 2)).toBe(1e-6); // log(1.5/2.5) < 0: floored as FTS5 does
    const b = idx.search([{ term: "b", count: 1 }], 5, W, new Uint8Array([1]));
    expect(b.map((h) => h.key).sort()).toEqual([1, 2]);
  });

  it("ignores a chunk added twice and a removal of an unknown chunk", () => {
    const idx = new Bm25Index();
    const c: ChunkTerms = { terms: ["x"], tfs: Uint16Array.from([packTf(0, 0, 1)]), length: 3 };
    idx.add(5, 0, c);
    idx.add(5, 0, c);
    idx.remove(99, ["x"]);
    expect(idx.docCount).toBe(1);
    expect(idx.df("x")).toBe(1);
  });
});
