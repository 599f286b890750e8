// A parsed query against one tenant's BM25 index: the words through MaxScore top-k, then the
// phrases (quoted text, split identifiers such as ERR_CONN_RESET) verified on the best candidates
// and scored as FTS5 scored a quoted phrase: BM25 of the phrase's occurrences with the field
// weights. The index holds no positions; the candidates' text is re-read and re-analysed instead.
import type { LexicalWeights, ParsedQuery, QueryTerm } from "./types.js";
import { analyzeText, stem, type ChunkFields } from "./analyze.js";
import { idf, tfFactor } from "./bm25.js";
import type { Bm25Index, IndexHit } from "./bm25-index.js";

/** Candidates taken from the index per result when phrases may reorder them. */
export const PHRASE_POOL_FACTOR = 2;

/** Query words stemmed and grouped: each distinct index term once, with how many words gave it. */
export function queryTerms(query: ParsedQuery): QueryTerm[] {
  const out = new Map<string, QueryTerm>();
  for (const word of query.terms) {
    const term = stem(word);
    const q = out.get(term);
    if (q) q.count++;
    else out.set(term, { term, count: 1 });
  }
  return [...out.values()];
}

export function countPhrase(tokens: string[], phrase: string[]): number {
  let n = 0;
  outer: for (let i = 0; i + phrase.length <= tokens.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (tokens[i + j] !== phrase[j]) continue outer;
    n++;
  }
  return n;
}

export type FieldsOf = (keys: number[]) => Map<number, ChunkFields>;

/** Adds each phrase's BM25 contribution to the candidates that contain it, then re-sorts. */
function boostPhrases(index: Bm25Index, hits: IndexHit[], terms: QueryTerm[], phrases: string[][], w: LexicalWeights, fieldsOf: FieldsOf): IndexHit[] {
  const pos = new Map(terms.map((q, i) => [q.term, i]));
  const needed = phrases.map((p) => p.map((x) => pos.get(x)).filter((i): i is number => i !== undefined));
  const cand = hits.filter((h) => needed.some((ix) => ix.every((i) => h.present[i])));
  if (cand.length === 0) return hits;
  const n = index.docCount;
  const avgdl = index.avgdl;
  // A phrase occurs in at most as many chunks as its rarest word: that df bounds its idf from below.
  const weights = phrases.map((p) => {
    const df = Math.min(...p.map((x) => index.df(x)));
    return df > 0 ? idf(n, df) : 0;
  });
  const fields = fieldsOf(cand.map((h) => h.key));
  for (const h of cand) {
    const f = fields.get(h.key);
    if (!f) continue;
    const tokens = [analyzeText(f.title), analyzeText(f.headings), analyzeText(f.body)];
    phrases.forEach((p, pi) => {
      if (weights[pi] === 0) return;
      const [ct, ch, cb] = tokens.map((t) => countPhrase(t, p));
      const freq = ct! * w.title + ch! * w.headings + cb! * w.body;
      if (freq > 0) h.score += weights[pi]! * tfFactor(freq, index.lengthOf(h.key), avgdl);
    });
  }
  return hits
    .map((h, i) => ({ h, i }))
    .sort((a, b) => b.h.score - a.h.score || a.i - b.i)
    .map((x) => x.h);
}

/** The `limit` best chunks for the query among sources marked in `allowed`, best first. */
export function rankLexical(
  index: Bm25Index,
  allowed: Uint8Array,
  query: ParsedQuery,
  limit: number,
  w: LexicalWeights,
  fieldsOf: FieldsOf,
): IndexHit[] {
  const terms = queryTerms(query);
  if (terms.length === 0 || limit <= 0) return [];
  const phrases = query.phrases.map((p) => p.map(stem)).filter((p) => p.length >= 2);
  let hits = index.search(terms, phrases.length ? limit * PHRASE_POOL_FACTOR : limit, w, allowed);
  if (phrases.length) hits = boostPhrases(index, hits, terms, phrases, w, fieldsOf);
  return hits.slice(0, limit);
}
