// An in-memory instance of the embedded store's lexical index over a few rows, for tests of
// query parsing and ranking that need no database.
import { analyzeChunk, type ChunkFields } from "../../../src/search/lexical/analyze.js";
import { Bm25Index } from "../../../src/search/lexical/bm25-index.js";
import { rankLexical } from "../../../src/search/lexical/rank.js";
import { parseQuery } from "../../../src/search/lexical/parse-query.js";
import type { LexicalWeights } from "../../../src/search/lexical/types.js";

export const EQUAL_WEIGHTS: LexicalWeights = { title: 1, headings: 1, body: 1 };

export function memoryIndex(rows: [number, string, string][]): { index: Bm25Index; fields: Map<number, ChunkFields> } {
  const index = new Bm25Index();
  const fields = new Map<number, ChunkFields>();
  for (const [key, title, body] of rows) {
    const f = { title, headings: "", body };
    fields.set(key, f);
    index.add(key, 0, analyzeChunk(f));
  }
  return { index, fields };
}

/** Ranks a user query over rows [key, title, body]; returns the keys best first. */
export function memoryLexicalSearch(rows: [number, string, string][], weights = EQUAL_WEIGHTS, limit = 100): (query: string) => number[] {
  const { index, fields } = memoryIndex(rows);
  const all = new Uint8Array([1]);
  return (query) =>
    rankLexical(index, all, parseQuery(query), limit, weights, (keys) => new Map(keys.map((k) => [k, fields.get(k)!]))).map((h) => h.key);
}
