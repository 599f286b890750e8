// The lexical core's shapes: the query as parsed from the user's text, the query as the stores
// score it, and the field weights BM25 applies. Backend-neutral: both stores take these.

/**
 * A lexical query, free of any engine's syntax (parse-query.ts cuts user text into it).
 * Terms are OR-ed; each phrase adds a boost to chunks that contain it as written.
 */
export interface ParsedQuery {
  /** distinct normalised single-word terms (case folded, diacritics removed), in order of first appearance */
  terms: string[];
  /** distinct phrases (2+ normalised tokens each), user-quoted first, in order of appearance */
  phrases: string[][];
}

/** BM25 multiplies each field's term frequencies by its weight. */
export interface LexicalWeights {
  title: number;
  headings: number;
  body: number;
}

export interface QueryTerm {
  term: string;
  /** how many query words stem to this term (each counts, as each quoted FTS5 term did) */
  count: number;
}

/**
 * The query as the stores score it: a ParsedQuery through the analyzer (analyze-query.ts). Terms
 * are OR-ed under BM25; each phrase adds BM25 of its occurrences to the chunks that contain it.
 */
export interface LexicalQuery {
  /** distinct index terms, in order of first appearance */
  terms: QueryTerm[];
  /** phrases as index terms, 2+ each */
  phrases: string[][];
}
