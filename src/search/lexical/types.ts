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
  /**
   * a query-time expansion's share of the term's BM25 weight (expand.ts: typo and prefix
   * alternatives score below the word as typed); absent = 1
   */
  weight?: number;
  /** the rule that added the term (absent: the user's own word) */
  rule?: ExpansionRule;
}

/** Query-time rules that add terms to the lexical query; explain names them per hit. */
export type ExpansionRule = "synonyms" | "typo" | "prefix";

/** A term's factor on its idf in BM25: how many words asked for it, times its expansion weight. */
export const termWeight = (q: QueryTerm): number => q.count * (q.weight ?? 1);

/** One term of the tenant's dictionary with its document frequency. */
export interface TermFrequency {
  term: string;
  df: number;
}

/**
 * A band of the tenant's term dictionary: terms (df > 0) starting with `prefix`, `minLength` to
 * `maxLength` characters long; at most `limit` of them, the most frequent first (ties by term).
 */
export interface TermRange {
  prefix: string;
  minLength: number;
  maxLength: number;
  limit: number;
}

/** What query expansion reads of a tenant's term dictionary, in one call (ChunkSearch.lexicalTerms). */
export interface TermLookup {
  /** terms whose document frequencies to report */
  terms: string[];
  ranges: TermRange[];
  /** language prefixes ("de:") to say whether the dictionary holds any live term under */
  present?: string[];
}

export interface TermAnswer {
  /** the tenant's live chunks (BM25's N) */
  docCount: number;
  /** df of each asked term that is in the dictionary (absent: not a key) */
  df: Map<string, number>;
  /** per range, in the order asked */
  ranges: TermFrequency[][];
  /** those of the lookup's `present` prefixes the dictionary holds a live term under */
  present?: string[];
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
