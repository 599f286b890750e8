// User query -> ParsedQuery: the dialect-free lexical query, parsed once per request; the engine
// analyses it for the stores (analyze-query.ts) and the snippets highlight its words (snippet.ts).
//
// Users type natural language, paste code and error messages, and use punctuation that query
// languages read as syntax (`"`, `*`, `-`, `:`, `^`, `(`, `)`, AND/OR/NOT/NEAR). We do not try to
// honour that syntax: a search box is not a query language, and half-honoured operators fail in
// surprising ways. Instead the query is cut into normalised words (OR-ed by the stores, so BM25
// ranks chunks that match more and rarer words higher) and phrases.
//
// Two kinds of phrase are boosts beside their own words:
// - text the user put in quotes ("machine learning"; also “smart” quotes and «guillemets»);
// - a whitespace-free word that splits into several tokens (ERR_CONN_RESET, foo.bar(), v2.3.1,
//   state-of-the-art), so the exact identifier outranks documents with the parts scattered.
// An unbalanced quote is ignored (its text is searched as plain words).

import { tokenizeWords } from "./tokenize.js";
import type { ParsedQuery } from "./types.js";

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

/** Nothing in the query is searchable (only punctuation, emoji, whitespace). */
export function isEmptyQuery(q: ParsedQuery): boolean {
  return q.terms.length === 0 && q.phrases.length === 0;
}
