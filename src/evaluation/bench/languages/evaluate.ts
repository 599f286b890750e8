// hit@1 of the language bench sets (types.ts) through the lexical core the SQLite store runs
// (Bm25Index, rankLexical): each set under the English analysis every collection had before
// languages, under its own language, and all sets together in one "auto" collection (each
// document's language detected, the query asking for every language's terms).
import { analyzeChunk, DEFAULT_ANALYZER, type Analyzer, type ChunkFields } from "../../../search/lexical/analyze.js";
import { lexicalQueryOf } from "../../../search/lexical/analyze-query.js";
import { Bm25Index } from "../../../search/lexical/bm25-index.js";
import { rankLexical } from "../../../search/lexical/rank.js";
import { analyzerOfTerms, analyzerFor, documentAnalyzer, queryAnalyzer } from "../../../search/lexical/languages.js";
import { detectLanguage } from "../../../search/lexical/detect-language.js";
import { DEFAULT_LEXICAL_WEIGHTS } from "../../../search/engine.js";
import type { LanguageSet } from "./types.js";

export interface LanguageScores {
  language: string;
  /** hit@1 with the English analysis (no language set) */
  english: number;
  /** hit@1 with the set's own language */
  own: number;
  /** hit@1 with every set in one "auto" collection */
  auto: number;
  /** share of the set's documents detected as its language */
  detected: number;
}

const fieldsOf = (text: string): ChunkFields => ({ title: "", headings: "", body: text });

/** An index of these documents (keys 0..n-1), each analysed with the analyzer it is given. */
export function indexOf(docs: string[], analyzerOf: (doc: string) => Analyzer) {
  const index = new Bm25Index();
  docs.forEach((d, i) => index.add(i, 0, analyzeChunk(fieldsOf(d), analyzerOf(d))));
  const fields = (keys: number[]) => new Map(keys.map((k) => [k, fieldsOf(docs[k]!)]));
  return { index, fields };
}

/** The share of questions whose expected document (its key) ranks first. */
function hitAt1(docs: string[], questions: { text: string; key: number }[], analyzerOf: (doc: string) => Analyzer, query: Analyzer): number {
  const { index, fields } = indexOf(docs, analyzerOf);
  const allowed = new Uint8Array([1]);
  let hits = 0;
  for (const q of questions) {
    const lexical = lexicalQueryOf(q.text, query).lexical;
    const top = lexical ? rankLexical(index, allowed, lexical, 1, DEFAULT_LEXICAL_WEIGHTS, fields, analyzerOfTerms(lexical.phrases)) : [];
    if (top[0]?.key === q.key) hits++;
  }
  return hits / questions.length;
}

export function evaluateLanguages(sets: LanguageSet[]): LanguageScores[] {
  const all = sets.flatMap((s) => s.docs);
  const offsets = sets.map((_, i) => sets.slice(0, i).reduce((n, s) => n + s.docs.length, 0));
  return sets.map((set, si) => {
    const own = set.questions.map((text, key) => ({ text, key }));
    const english = hitAt1(set.docs, own, () => DEFAULT_ANALYZER, DEFAULT_ANALYZER);
    const mine = hitAt1(set.docs, own, () => analyzerFor(set.language), queryAnalyzer(set.language));
    const pooled = set.questions.map((text, key) => ({ text, key: offsets[si]! + key }));
    const auto = hitAt1(all, pooled, (d) => documentAnalyzer("auto", () => d), queryAnalyzer("auto"));
    const detected = set.docs.filter((d) => (detectLanguage(d) ?? "en") === set.language).length / set.docs.length;
    return { language: set.language, english, own: mine, auto, detected };
  });
}
