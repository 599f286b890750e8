// User query -> SQLite FTS5 MATCH expression that can never be a syntax error.
//
// Users type natural language, paste code and error messages, and use punctuation that FTS5
// reads as syntax (`"`, `*`, `-`, `:`, `^`, `(`, `)`, AND/OR/NOT/NEAR). We do not try to honour
// that syntax: a search box is not a query language, and half-honoured operators fail in
// surprising ways. Instead every term is put in double quotes (inside quotes FTS5 sees only a
// string, which its tokenizer re-tokenises exactly as at index time, porter stemming included)
// and the terms are OR-ed, so BM25 ranks documents that match more (and rarer) terms higher.
//
// Two kinds of phrase are OR-ed in as extra boost terms, each beside its own words:
// - text the user put in quotes ("machine learning"; also “smart” quotes and «guillemets»);
// - a whitespace-free word that splits into several tokens (ERR_CONN_RESET, foo.bar(), v2.3.1,
//   state-of-the-art), so the exact identifier outranks documents with the parts scattered.
// An unbalanced quote is ignored (its text is searched as plain words).

import { tokenizeWords } from "./tokenize.js";

/**
 * Compact English stop list (Lucene's default set plus pronouns, auxiliaries and question words).
 * Stop words add little to BM25 (low IDF) but make the OR query match almost every document,
 * which is slow. A query made only of stop words keeps them (see parseQuery).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a", "an", "and", "are", "as", "at", "be", "been", "being", "but", "by", "can", "could", "did",
  "do", "does", "for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in",
  "into", "is", "it", "its", "me", "my", "no", "not", "of", "on", "or", "our", "s", "she", "should",
  "so", "such", "t", "than", "that", "the", "their", "them", "then", "there", "these", "they",
  "this", "those", "to", "was", "we", "were", "what", "when", "where", "which", "who", "whom",
  "why", "will", "with", "would", "you", "your",
]);

/** Caps keep a pasted 2,000-character query from becoming a 400-way OR. */
export const MAX_QUERY_TERMS = 64;
export const MAX_QUERY_PHRASES = 8;
export const MAX_PHRASE_TOKENS = 32;

export interface ParsedQuery {
  /** distinct normalised single-word terms, in order of first appearance */
  terms: string[];
  /** distinct phrases (2+ normalised tokens each), user-quoted first, in order of appearance */
  phrases: string[][];
}

const OPEN_QUOTES = new Set(['"', "“", "„", "«"]);
const CLOSE_QUOTES = new Set(['"', "”", "“", "»"]);

interface Segment {
  text: string;
  quoted: boolean;
}

/** Split on balanced quotes; the text after an unmatched opening quote counts as unquoted. */
function splitQuoted(query: string): Segment[] {
  const segments: Segment[] = [];
  let i = 0;
  let plainStart = 0;
  while (i < query.length) {
    const ch = query[i];
    if (ch !== undefined && OPEN_QUOTES.has(ch)) {
      let j = i + 1;
      while (j < query.length && !CLOSE_QUOTES.has(query[j] ?? "")) j++;
      if (j < query.length) {
        if (i > plainStart) segments.push({ text: query.slice(plainStart, i), quoted: false });
        segments.push({ text: query.slice(i + 1, j), quoted: true });
        i = j + 1;
        plainStart = i;
        continue;
      }
    }
    i++;
  }
  if (plainStart < query.length) segments.push({ text: query.slice(plainStart), quoted: false });
  return segments;
}

export function parseQuery(query: string): ParsedQuery {
  const words: string[] = [];
  const userPhrases: string[][] = [];
  const compoundPhrases: string[][] = [];

  for (const segment of splitQuoted(query)) {
    const tokens = tokenizeWords(segment.text).map((t) => t.norm);
    words.push(...tokens);
    if (segment.quoted) {
      if (tokens.length >= 2) userPhrases.push(tokens.slice(0, MAX_PHRASE_TOKENS));
      continue;
    }
    // Compound words: a run of non-whitespace that the tokenizer cuts into several tokens.
    for (const chunk of segment.text.split(/\s+/)) {
      const parts = tokenizeWords(chunk).map((t) => t.norm);
      if (parts.length >= 2) compoundPhrases.push(parts.slice(0, MAX_PHRASE_TOKENS));
    }
  }

  const onlyStopWords = words.every((w) => STOP_WORDS.has(w));
  const terms = dedupe(words.filter((w) => onlyStopWords || !STOP_WORDS.has(w))).slice(0, MAX_QUERY_TERMS);

  const seen = new Set<string>();
  const phrases: string[][] = [];
  for (const phrase of [...userPhrases, ...compoundPhrases]) {
    const key = phrase.join(" ");
    if (seen.has(key)) continue;
    seen.add(key);
    phrases.push(phrase);
    if (phrases.length >= MAX_QUERY_PHRASES) break;
  }
  return { terms, phrases };
}

function dedupe(values: string[]): string[] {
  return [...new Set(values)];
}

/** An FTS5 string: inside double quotes only a doubled quote is special. */
function quote(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/**
 * The MATCH expression for a user query, or null when nothing in it is searchable (only
 * punctuation, emoji, whitespace). Every term and phrase is quoted and they are OR-ed.
 */
export function buildFtsQuery(query: string): string | null {
  const { terms, phrases } = parseQuery(query);
  const parts = [...terms.map(quote), ...phrases.map((p) => quote(p.join(" ")))];
  return parts.length === 0 ? null : parts.join(" OR ");
}

/**
 * The normalised terms to highlight: the single words, then the phrases (space-joined), so a
 * highlighter can mark "ERR_CONN_RESET" or a quoted phrase as one span.
 */
export function queryTerms(query: string): string[] {
  const { terms, phrases } = parseQuery(query);
  return dedupe([...terms, ...phrases.map((p) => p.join(" "))]);
}
