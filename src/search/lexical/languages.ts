// A collection's language (issue 28 item 5): which analyzer its chunks are indexed with and its
// queries analysed with. "en" (and no language at all) is the default English Porter analyzer,
// the analysis every index held before languages existed; "auto" detects each document's
// language when it is indexed (detect-language.ts). docs/decisions.md, "Languages".
import { DEFAULT_ANALYZER, type Analyzer } from "./analyze.js";
import { detectLanguage } from "./detect-language.js";
import {
  SEGMENTED_LANGUAGES,
  STEMMED_LANGUAGES,
  segmentingAnalyzer,
  stemmingAnalyzer,
  type SegmentedLanguage,
  type StemmedLanguage,
} from "./language-analyzers.js";

/** the ISO 639-1 codes a collection may name, besides "auto" */
export const LANGUAGES: readonly string[] = ["en", ...Object.keys(STEMMED_LANGUAGES), ...Object.keys(SEGMENTED_LANGUAGES)];
export const AUTO = "auto";
export const DEFAULT_LANGUAGE = "en";

/** a value a collection's `language` may take: a supported ISO 639-1 code or "auto" */
export const isLanguageSetting = (v: string): boolean => v === AUTO || LANGUAGES.includes(v);

const analyzers = new Map<string, Analyzer>([[DEFAULT_LANGUAGE, DEFAULT_ANALYZER]]);

/** The analyzer of one language (built once); an unknown code is English. */
export function analyzerFor(language: string): Analyzer {
  let a = analyzers.get(language);
  if (a) return a;
  if (language in STEMMED_LANGUAGES) a = stemmingAnalyzer(language as StemmedLanguage);
  else if (language in SEGMENTED_LANGUAGES) a = segmentingAnalyzer(language as SegmentedLanguage);
  else return DEFAULT_ANALYZER;
  analyzers.set(language, a);
  return a;
}

/** text read to detect a document's language: its opening is enough and keeps detection cheap */
const DETECT_CHARS = 2_000;

/**
 * The analyzer a document's chunks are indexed with under its collection's language: that
 * language's, or for "auto" the one of the language detected in the document's text (English
 * when it is too short or not a supported language).
 */
export function documentAnalyzer(language: string, text: () => string): Analyzer {
  if (language !== AUTO) return analyzerFor(language);
  return analyzerFor(detectLanguage(text().slice(0, DETECT_CHARS)) ?? DEFAULT_LANGUAGE);
}

/** A document's title and the opening of its chunks' text, as language detection reads it. */
export function openingOf(title: string, chunks: readonly { text: string }[]): string {
  let s = title;
  for (const c of chunks) {
    if (s.length >= DETECT_CHARS) break;
    s += "\n" + c.text;
  }
  return s;
}

/**
 * SQL (both stores) for the language a data source's documents are analysed with: the language of
 * a collection holding it (collections sharing a source agree: services/collections/language.ts),
 * NULL when none names one. Parameters: tenant, data source. The tenant is named for each table,
 * as Citus routes a statement to one shard only then (SQLite's "?" is bound twice for it).
 */
export const SOURCE_LANGUAGE_SQL = (p1: string, p2: string) =>
  `SELECT c.language FROM collection_sources cs JOIN collections c ON c.tenant_id = cs.tenant_id AND c.id = cs.collection_id
   WHERE cs.tenant_id = ${p1} AND c.tenant_id = ${p1} AND cs.data_source_id = ${p2} AND c.language IS NOT NULL ORDER BY c.created_at, c.id LIMIT 1`;

/** Every analyzer's terms of a word, each distinct term once: a query of an "auto" collection. */
const unionAnalyzer = (all: Analyzer[]): Analyzer => {
  const terms = (word: string) => [...new Set(all.flatMap((a) => a.terms(word)))];
  return { analyze: (text) => all.flatMap((a) => a.analyze(text)), term: (word) => terms(word)[0] ?? "", terms, parts: all };
};

let autoAnalyzer: Analyzer | null = null;

/**
 * The analyzer of a collection's queries: its language's. An "auto" collection's documents may
 * each be in another language, so its query asks for the terms of every language: the prefixes
 * keep them apart, so each chunk meets only the terms of the analyzer it was indexed with.
 */
export function queryAnalyzer(language: string | undefined): Analyzer {
  if (language === undefined || language === DEFAULT_LANGUAGE) return DEFAULT_ANALYZER;
  if (language !== AUTO) return analyzerFor(language);
  return (autoAnalyzer ??= unionAnalyzer(LANGUAGES.map(analyzerFor)));
}

/**
 * The analyzer whose terms these are, read from their language prefix (analyze-query.ts gives a
 * collection's phrases one analyzer's terms): the one a store verifies phrases with.
 */
export function analyzerOfTerms(phrases: readonly string[][]): Analyzer {
  const first = phrases[0]?.[0];
  const colon = first === undefined ? -1 : first.indexOf(":");
  return colon < 0 ? DEFAULT_ANALYZER : analyzerFor(first!.slice(0, colon));
}
