// Phrases (quoted text, split identifiers such as ERR_CONN_RESET) scored as FTS5 scored a quoted
// phrase: BM25 of the phrase's occurrences with the field weights. Indexes hold no positions, so
// every backend ranks the terms first (PHRASE_POOL_FACTOR x the results asked for), reads the text
// of the candidates that may contain a phrase, and adds the phrases' scores here.
import { analyzeFields, mayHaveTerm, type Analyzer, type ChunkFields } from "./analyze.js";
import { idf, tfFactor } from "./bm25.js";
import { wordNorms } from "./tokenize.js";
import type { LexicalWeights } from "./types.js";

/** Candidates taken from the term ranking per result when phrases may reorder them. */
export const PHRASE_POOL_FACTOR = 2;

/** The tenant's statistics, read in the same snapshot as the term scores. */
export interface LexicalStatistics {
  /** live chunks (BM25's N) */
  readonly docCount: number;
  /** their average length */
  readonly avgdl: number;
  /** live chunks containing the term */
  df(term: string): number;
}

/** A candidate's text and length (BM25's document length), as the backend read them. */
export interface CandidateText {
  fields: ChunkFields;
  length: number;
}

export function countPhrase(tokens: string[], phrase: string[]): number {
  let n = 0;
  outer: for (let i = 0; i + phrase.length <= tokens.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (tokens[i + j] !== phrase[j]) continue outer;
    n++;
  }
  return n;
}

/** stands for a word that can be no phrase term: no analyzer makes a term of it */
const NOT_A_TERM = "\u0000";

/**
 * How a candidate's fields become what the phrase check counts: their index terms in order,
 * except that where the analyzer keeps a word's first character, a word that starts as no phrase
 * term does is NOT_A_TERM rather than stemmed (most words of a text are such).
 */
function phraseTokenizer(analyzer: Analyzer, phrases: readonly string[][]): (fields: ChunkFields) => string[][] {
  if (!analyzer.keepsFirstCharacter) return (fields) => analyzeFields(fields, analyzer);
  const may = mayHaveTerm(analyzer, phrases.flat());
  const terms = (text: string) => {
    const words = wordNorms(text);
    for (let i = 0; i < words.length; i++) words[i] = may(words[i]!) ? analyzer.term(words[i]!) : NOT_A_TERM;
    return words;
  };
  return (fields) => [terms(fields.title), terms(fields.headings), terms(fields.body)];
}

/**
 * Adds each phrase's BM25 contribution to the candidates that contain it (scores change in place;
 * a candidate without text is left as it is), then returns `hits` best first, equal scores in
 * their order.
 */
export function boostPhrases<T extends { score: number }>(
  hits: T[],
  candidates: readonly T[],
  textOf: (hit: T) => CandidateText | undefined,
  phrases: string[][],
  stats: LexicalStatistics,
  w: LexicalWeights,
  analyzer: Analyzer,
): T[] {
  // A phrase occurs in at most as many chunks as its rarest word: that df bounds its idf from below.
  const weights = phrases.map((p) => {
    const df = Math.min(...p.map((x) => stats.df(x)));
    return df > 0 ? idf(stats.docCount, df) : 0;
  });
  const tokenize = phraseTokenizer(analyzer, phrases);
  for (const h of candidates) {
    const text = textOf(h);
    if (!text) continue;
    const tokens = tokenize(text.fields);
    phrases.forEach((p, pi) => {
      if (weights[pi] === 0) return;
      const [ct, ch, cb] = tokens.map((t) => countPhrase(t, p));
      const freq = ct! * w.title + ch! * w.headings + cb! * w.body;
      if (freq > 0) h.score += weights[pi]! * tfFactor(freq, text.length, stats.avgdl);
    });
  }
  return hits
    .map((h, i) => ({ h, i }))
    .sort((a, b) => b.h.score - a.h.score || a.i - b.i)
    .map((x) => x.h);
}
