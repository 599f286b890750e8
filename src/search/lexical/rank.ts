// A query against one tenant's in-memory BM25 index: the terms through MaxScore top-k, then the
// phrases verified on the best candidates (phrases.ts).
import type { Analyzer, ChunkFields } from "./analyze.js";
import type { Bm25Index, IndexHit } from "./bm25-index.js";
import { PHRASE_POOL_FACTOR, boostPhrases } from "./phrases.js";
import type { ExpansionRule, LexicalQuery, LexicalWeights } from "./types.js";

/** a hit as stores return it (the store interface's Scored) */
export interface ScoredHit {
  chunkId: string;
  score: number;
  rules?: ExpansionRule[];
}

/** The text of these chunks (by index key); missing keys are left out. */
export type FieldsOf = (keys: number[]) => Map<number, ChunkFields>;

/** The candidates that hold every query term of some phrase: only their text is read. */
function phraseCandidates(hits: IndexHit[], query: LexicalQuery): IndexHit[] {
  const pos = new Map(query.terms.map((q, i) => [q.term, i]));
  const needed = query.phrases.map((p) => p.map((x) => pos.get(x)).filter((i): i is number => i !== undefined));
  return hits.filter((h) => needed.some((ix) => ix.every((i) => h.present[i])));
}

/** Adds the phrases' scores to the candidates (their text in `fields`), then re-sorts. */
function boostIndexHits(index: Bm25Index, hits: IndexHit[], cand: IndexHit[], query: LexicalQuery, w: LexicalWeights, fields: Map<number, ChunkFields>, analyzer: Analyzer): IndexHit[] {
  if (cand.length === 0) return hits;
  const textOf = (h: IndexHit) => {
    const f = fields.get(h.key);
    return f && { fields: f, length: index.lengthOf(h.key) };
  };
  return boostPhrases(hits, cand, textOf, query.phrases, index, w, analyzer);
}

/** BM25's hits (a deeper list when phrases will re-rank it) and the phrase candidates among them. */
function firstPass(index: Bm25Index, allowed: Uint8Array, query: LexicalQuery, limit: number, w: LexicalWeights, accept?: (key: number) => boolean) {
  const hits = index.search(query.terms, query.phrases.length > 0 ? limit * PHRASE_POOL_FACTOR : limit, w, allowed, accept);
  return { hits, cand: query.phrases.length > 0 ? phraseCandidates(hits, query) : [] };
}

/** The first pass's hits with the phrases scored in the candidates' text, cut to `limit`. */
function secondPass(index: Bm25Index, pass: { hits: IndexHit[]; cand: IndexHit[] }, query: LexicalQuery, limit: number, w: LexicalWeights, fields: Map<number, ChunkFields>, analyzer: Analyzer): IndexHit[] {
  return boostIndexHits(index, pass.hits, pass.cand, query, w, fields, analyzer).slice(0, limit);
}

const keysOf = (hits: IndexHit[]) => hits.map((h) => h.key);

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
  const pass = firstPass(index, allowed, query, limit, w, accept);
  return secondPass(index, pass, query, limit, w, pass.cand.length ? fieldsOf(keysOf(pass.cand)) : new Map(), analyzer);
}

/** rankLexical where the candidates' text is read asynchronously (a database client). */
export async function rankLexicalAsync(
  index: Bm25Index,
  allowed: Uint8Array,
  query: LexicalQuery,
  limit: number,
  w: LexicalWeights,
  fieldsOf: (keys: number[]) => Promise<Map<number, ChunkFields>>,
  analyzer: Analyzer,
): Promise<IndexHit[]> {
  if (query.terms.length === 0 || limit <= 0) return [];
  const pass = firstPass(index, allowed, query, limit, w);
  return secondPass(index, pass, query, limit, w, pass.cand.length ? await fieldsOf(keysOf(pass.cand)) : new Map(), analyzer);
}

/** Hits as a store returns them: the chunk id as a string, and the expansion rules its terms matched. */
export function scoredHits(hits: IndexHit[], query: LexicalQuery): ScoredHit[] {
  return hits.map((h) => {
    const rules = [...new Set(query.terms.flatMap((q, i) => (q.rule && h.present[i] ? [q.rule] : [])))];
    return rules.length > 0 ? { chunkId: String(h.key), score: h.score, rules } : { chunkId: String(h.key), score: h.score };
  });
}
