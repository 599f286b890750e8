// The languages a query's words are corrected and completed in (typo tolerance and prefix search,
// expand.ts). A collection with one language has its analyzer's. An "auto" collection's documents
// are each analysed in the language detected for them, and its query asks for the terms of every
// language (languages.ts queryAnalyzer); a misspelt word matches none of them, so which
// vocabulary to correct it in must come from the rest of the query and from the dictionary:
// - present: English, and each other language with a live term in the tenant's dictionary (one
//   probe of its prefix's range);
// - shown: a present language counts the query's words that are its stop words or whose term in
//   it is in the dictionary; the languages counting the most words are taken, every present one
//   when no word counts for any (a query of one misspelt word).
// Detecting the query's language (franc, as documents are) was not taken: it needs 10 characters
// and reads a query of two or three words, one of them misspelt, no better than chance.
// docs/decisions.md, "Typos and prefixes in auto collections".
import type { Analyzer } from "./analyze.js";
import type { TermAnswer } from "./types.js";

/** The prefix of an analyzer's terms: "" for English (languages.ts keeps English unprefixed). */
export const languagePrefix = (a: Analyzer): string => (a.language === undefined || a.language === "en" ? "" : `${a.language}:`);

/** The analyzers of a query's languages: the union's parts, or the analyzer itself. */
export const partsOf = (a: Analyzer): readonly Analyzer[] => a.parts ?? [a];

/** Prefixes to probe for presence: every prefixed language of the union. */
export const presenceProbes = (parts: readonly Analyzer[]): string[] => parts.map(languagePrefix).filter((p) => p !== "");

/** The terms the choice reads the frequencies of: each word's terms in every language. */
export const evidenceTerms = (words: readonly string[], parts: readonly Analyzer[]): string[] => [
  ...new Set(words.flatMap((w) => parts.flatMap((a) => a.terms(w)))),
];

/** Whether the word is one of the language's: its stop word, or its terms are all in the dictionary. */
function shows(a: Analyzer, word: string, answer: TermAnswer): boolean {
  const terms = a.terms(word);
  return terms.every((t) => (answer.df.get(t) ?? 0) > 0);
}

/**
 * The languages to correct and complete the words in: of the present ones, those most of the
 * words show, or all present ones when the words show none. `answer` holds the frequencies of
 * evidenceTerms and the presence of presenceProbes.
 */
export function queryLanguages(words: readonly string[], parts: readonly Analyzer[], answer: TermAnswer): Analyzer[] {
  if (parts.length <= 1) return [...parts];
  const present = new Set(answer.present ?? []);
  const candidates = parts.filter((a) => languagePrefix(a) === "" || present.has(languagePrefix(a)));
  let best = 0;
  let chosen: Analyzer[] = [];
  const distinct = [...new Set(words)];
  for (const a of candidates) {
    const n = distinct.filter((w) => shows(a, w, answer)).length;
    if (n > best) [best, chosen] = [n, [a]];
    else if (n === best && n > 0) chosen.push(a);
  }
  return best > 0 ? chosen : candidates;
}
