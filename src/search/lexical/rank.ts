// A query against one tenant's in-memory BM25 index: the terms through MaxScore top-k, then the
// phrases verified on the best candidates (phrases.ts).
import type { Analyzer, ChunkFields } from "./analyze.js";
import type { Bm25Index, IndexHit } from "./bm25-index.js";
import { PHRASE_POOL_FACTOR, boostPhrases } from "./phrases.js";
import type { LexicalQuery, LexicalWeights } from "./types.js";

/** The text of these chunks (by index key); missing keys are left out. */
export type FieldsOf = (keys: number[]) => Map<number, ChunkFields>;

/** Adds the phrases' scores to the candidates that hold every query term of some phrase, then re-sorts. */
function boostIndexHits(index: Bm25Index, hits: IndexHit[], query: LexicalQuery, w: LexicalWeights, fieldsOf: FieldsOf, analyzer: Analyzer): IndexHit[] {
  const pos = new Map(query.terms.map((q, i) => [q.term, i]));
  const needed = query.phrases.map((p) => p.map((x) => pos.get(x)).filter((i): i is number => i !== undefined));
  const cand = hits.filter((h) => needed.some((ix) => ix.every((i) => h.present[i])));
  if (cand.length === 0) return hits;
  const fields = fieldsOf(cand.map((h) => h.key));
  const textOf = (h: IndexHit) => {
    const f = fields.get(h.key);
    return f && { fields: f, length: index.lengthOf(h.key) };
  };
  return boostPhrases(hits, cand, textOf, query.phrases, index, w, analyzer);
}

/**
 * The `limit` best chunks for the query among sources marked in `allowed`, best first. `analyzer`
 * is the one the index was built with: phrases are found in the candidates' text through it.
 * `accept`: only these chunk keys are candidates (a search filter; Bm25Index.search).
 */
export function rankLexical(
  index: Bm25Index,
  allowed: Uint8Array,
  query: LexicalQuery,
  limit: number,
  w: LexicalWeights,
  fieldsOf: FieldsOf,
  analyzer: Analyzer,
  accept?: (key: number) => boolean,
): IndexHit[] {
  if (query.terms.length === 0 || limit <= 0) return [];
  const phrases = query.phrases.length > 0;
  let hits = index.search(query.terms, phrases ? limit * PHRASE_POOL_FACTOR : limit, w, allowed, accept);
  if (phrases) hits = boostIndexHits(index, hits, query, w, fieldsOf, analyzer);
  return hits.slice(0, limit);
}
