// Text analysis of the lexical index (both stores): the same cut as the FTS5 tokenizer it replaced
// (`porter unicode61 remove_diacritics 2`): letter/digit runs, case folded, Latin diacritics
// removed (tokenize.ts), then Porter-stemmed (the `stemmer` package: Porter 1980, as
// FTS5's porter tokenizer). Chunks and queries go through the same functions, so a query term
// meets exactly the index terms its word was cut into.
import { stemmer } from "stemmer";
import { wordNorms } from "./tokenize.js";

const stemCache = new Map<string, string>();
const STEM_CACHE_MAX = 200_000;

/** Porter stem of a normalised (folded) word; memoised because vocabularies repeat heavily. */
function stem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    // stemmer only rewrites ASCII suffixes; other scripts come back unchanged.
    s = stemmer(word);
    if (s.length === 0) s = word;
    if (stemCache.size >= STEM_CACHE_MAX) stemCache.clear();
    stemCache.set(word, s);
  }
  return s;
}

/** The index terms of a text, in order (one per token). */
function analyzeText(text: string): string[] {
  const words = wordNorms(text);
  for (let i = 0; i < words.length; i++) words[i] = stem(words[i]!);
  return words;
}

/**
 * How text becomes index terms. A chunk's fields and the query's words go through the same
 * analyzer, and a store verifies phrases with the one it indexed with, so a query word meets
 * exactly the terms its word was cut into in the text.
 */
export interface Analyzer {
  /** the index terms of a text, in order (one per token) */
  analyze(text: string): string[];
  /** the index term of one normalised word (a parsed query's words are normalised already) */
  term(word: string): string;
  /**
   * the index terms of one normalised query word: one for English, none for another language's
   * stop word, several where a language cuts the word further (Chinese, Japanese, Thai)
   */
  terms(word: string): string[];
  /**
   * analyze(text) is term(word) of each of the text's words (wordNorms), and a term starts with its
   * word's first character (a suffix stemmer): phrase checks then stem only the words that start as
   * a phrase's terms do. Absent: not known, every word is analysed.
   */
  keepsFirstCharacter?: boolean;
  /** ISO 639-1 code of the analyzer's language (absent on an "auto" collection's union) */
  language?: string;
  /** an "auto" collection's query analyzer: the language analyzers whose terms it unions */
  parts?: readonly Analyzer[];
  /**
   * the words the analyzer finds inside one token of text, with their UTF-16 offsets in it, for
   * scripts written without spaces (a highlight marks a word inside a sentence); absent: the token
   * is one word
   */
  split?(token: string): { text: string; index: number }[];
}

/**
 * Whether a word may have one of `terms` as its term: where the analyzer keeps first characters,
 * only a word starting as one of them does; elsewhere any word. Lets a check of a text against a
 * few terms skip analysing most of its words.
 */
export function mayHaveTerm(analyzer: Analyzer, terms: Iterable<string>): (word: string) => boolean {
  if (!analyzer.keepsFirstCharacter) return () => true;
  const firsts = new Set(Array.from(terms, (t) => t.charCodeAt(0)));
  return (word) => firsts.has(word.charCodeAt(0));
}

/** The analyzer both stores index with: English, Porter stems, as FTS5's porter tokenizer. */
export const DEFAULT_ANALYZER: Analyzer = { analyze: analyzeText, term: stem, terms: (word) => [stem(word)], language: "en", keepsFirstCharacter: true };

// Term frequencies are packed per field in 16 bits: title 3 bits, headings 3 bits, body 10 bits.
// BM25 saturates long before these caps (7, 7, 1023 occurrences in one chunk).
export const TITLE_SHIFT = 13;
export const HEADINGS_SHIFT = 10;
export const MAX_TITLE_TF = 7;
export const MAX_HEADINGS_TF = 7;
export const MAX_BODY_TF = 1023;

export function packTf(title: number, headings: number, body: number): number {
  return (
    (Math.min(title, MAX_TITLE_TF) << TITLE_SHIFT) | (Math.min(headings, MAX_HEADINGS_TF) << HEADINGS_SHIFT) | Math.min(body, MAX_BODY_TF)
  );
}

/** What the index stores of one chunk: its distinct terms, their packed field counts, its length. */
export interface ChunkTerms {
  /** distinct terms, in order of first appearance */
  terms: string[];
  /** packed field frequencies (packTf), parallel to terms */
  tfs: Uint16Array;
  /** tokens in all fields together (BM25's document length, as FTS5 counts it) */
  length: number;
}

/** The fields of a chunk as the lexical index sees them. */
export interface ChunkFields {
  title: string;
  /** heading path joined into one string */
  headings: string;
  body: string;
}

/** The fields' index terms: title, headings and body, in that order. */
export const analyzeFields = (fields: ChunkFields, analyzer: Analyzer): [string[], string[], string[]] => [
  analyzer.analyze(fields.title),
  analyzer.analyze(fields.headings),
  analyzer.analyze(fields.body),
];

export function analyzeChunk(fields: ChunkFields, analyzer: Analyzer): ChunkTerms {
  const counts = new Map<string, [number, number, number]>();
  const parts = analyzeFields(fields, analyzer);
  parts.forEach((tokens, field) => {
    for (const t of tokens) {
      let c = counts.get(t);
      if (!c) counts.set(t, (c = [0, 0, 0]));
      c[field]++;
    }
  });
  const terms = [...counts.keys()];
  const tfs = new Uint16Array(terms.length);
  terms.forEach((t, i) => {
    const c = counts.get(t)!;
    tfs[i] = packTf(c[0], c[1], c[2]);
  });
  return { terms, tfs, length: parts[0]!.length + parts[1]!.length + parts[2]!.length };
}

/** Heading path as one field, joined as the chunk's breadcrumb is shown. */
export const headingsField = (path: string[]): string => path.join(" \u203a ");
