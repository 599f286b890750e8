// An in-memory lexical index over a few rows, for tests of query parsing and ranking that need no
// database.
import { analyzeChunk, DEFAULT_ANALYZER, type ChunkFields } from "../../../src/search/lexical/analyze.js";
import { Bm25Index } from "../../../src/search/lexical/bm25-index.js";
import { rankLexical } from "../../../src/search/lexical/rank.js";
import { lexicalQueryOf } from "../../../src/search/lexical/analyze-query.js";
import type { LexicalWeights } from "../../../src/search/lexical/types.js";

export const EQUAL_WEIGHTS: LexicalWeights = { title: 1, headings: 1, body: 1 };

export function memoryIndex(rows: [number, string, string][]): { index: Bm25Index; fields: Map<number, ChunkFields> } {
  const index = new Bm25Index();
  const fields = new Map<number, ChunkFields>();
  for (const [key, title, body] of rows) {
    const f = { title, headings: "", body };
    fields.set(key, f);
    index.add(key, 0, analyzeChunk(f, DEFAULT_ANALYZER));
  }
  return { index, fields };
}

/** Ranks a user query over rows [key, title, body]; returns the keys best first. */
export function memoryLexicalSearch(rows: [number, string, string][], weights = EQUAL_WEIGHTS, limit = 100): (query: string) => number[] {
  const { index, fields } = memoryIndex(rows);
  const all = new Uint8Array([1]);
  const fieldsOf = (keys: number[]) => new Map(keys.map((k) => [k, fields.get(k)!]));
  return (query) => {
    const lexical = lexicalQueryOf(query, DEFAULT_ANALYZER).lexical;
    return lexical ? rankLexical(index, all, lexical, limit, weights, fieldsOf, DEFAULT_ANALYZER).map((h) => h.key) : [];
  };
}
