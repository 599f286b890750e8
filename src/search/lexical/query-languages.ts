// The languages a query's words are corrected and completed in (typo tolerance and prefix search,
// expand.ts). A collection with one language has its analyzer's. An "auto" collection's documents
// are each analysed in the language detected for them, and its query asks for the terms of every
// language (languages.ts queryAnalyzer); a misspelt word matches none of them, so which
// vocabulary to correct it in must come from the rest of the query and from the dictionary:
// - present: the languages detection may give a document (detect-language.ts DETECTABLE: an
//   auto collection's documents are in no other), English and each other one with a live term in
//   the tenant's dictionary (one probe of its prefix's range);
// - shown: a present language counts the query's words that are its stop words or whose term in
//   it is in the dictionary; the languages counting the most words are taken; when no word counts
//   for any (a query of one misspelt word), English and the other present ones;
// - at most MAX_QUERY_LANGUAGES of those (English kept), the likeliest by franc's ranking of the
//   query's words:
//   a word's suffix typos cost a few hundred stems per language (typos.ts typoLookups), 5 to 30
//   ms a word in a Snowball language, so correcting in all twelve would cost a query up to 0.3 s.
// Franc alone does not choose: on the language bench's misspelt questions its first guess among
// twelve languages is right 2 times in 3 (1 in 2 for a lone word), its three first 9 in 10.
// docs/decisions.md, "Typos and prefixes in auto collections".
import type { Analyzer } from "./analyze.js";
import { DETECTABLE, rankLanguages } from "./detect-language.js";
import type { TermAnswer } from "./types.js";

/** languages a query of an auto collection is corrected and completed in, at most */
export const MAX_QUERY_LANGUAGES = 3;

/** The prefix of an analyzer's terms: "" for English (languages.ts keeps English unprefixed). */
export const languagePrefix = (a: Analyzer): string => (a.language === undefined || a.language === "en" ? "" : `${a.language}:`);

/** The analyzers of a query's languages: the union's parts, or the analyzer itself. */
export const partsOf = (a: Analyzer): readonly Analyzer[] => a.parts ?? [a];

/** The union's languages an auto collection's documents may be in. */
const detectable = (parts: readonly Analyzer[]) => parts.filter((a) => DETECTABLE.includes(a.language ?? "en"));

/** Prefixes to probe for presence: every prefixed language of the union a document may be in. */
export const presenceProbes = (parts: readonly Analyzer[]): string[] => detectable(parts).map(languagePrefix).filter((p) => p !== "");

/** The terms the choice reads the frequencies of: each word's terms in every language a document may be in. */
export const evidenceTerms = (words: readonly string[], parts: readonly Analyzer[]): string[] => [
  ...new Set(words.flatMap((w) => detectable(parts).flatMap((a) => a.terms(w)))),
];

/** Whether the word is one of the language's: its stop word, or its terms are all in the dictionary. */
function shows(a: Analyzer, word: string, answer: TermAnswer): boolean {
  const terms = a.terms(word);
  return terms.every((t) => (answer.df.get(t) ?? 0) > 0);
}

/**
 * The languages to correct and complete the words in: of the present ones, those most of the
 * words show, or English and the others when the words show none; the MAX_QUERY_LANGUAGES
 * likeliest of them (English kept). `answer` holds the frequencies of evidenceTerms and the presence of presenceProbes.
 */
export function queryLanguages(words: readonly string[], parts: readonly Analyzer[], answer: TermAnswer): Analyzer[] {
  if (parts.length <= 1) return [...parts];
  const present = new Set(answer.present ?? []);
  const candidates = detectable(parts).filter((a) => languagePrefix(a) === "" || present.has(languagePrefix(a)));
  let best = 0;
  let chosen: Analyzer[] = [];
  const distinct = [...new Set(words)];
  for (const a of candidates) {
    const n = distinct.filter((w) => shows(a, w, answer)).length;
    if (n > best) [best, chosen] = [n, [a]];
    else if (n === best && n > 0) chosen.push(a);
  }
  if (best > 0) return likeliest(chosen, distinct, MAX_QUERY_LANGUAGES);
  // no word shows a language: English (the default, its stemmer the cheapest) and the likeliest others
  const english = candidates.filter((a) => languagePrefix(a) === "");
  return [...english, ...likeliest(candidates.filter((a) => languagePrefix(a) !== ""), distinct, MAX_QUERY_LANGUAGES - english.length)];
}

/** The `max` languages franc ranks first for the words (all of them when no more than `max`). */
function likeliest(languages: Analyzer[], words: readonly string[], max: number): Analyzer[] {
  if (languages.length <= max) return languages;
  const order = rankLanguages(words.join(" "), languages.map((a) => a.language ?? "en"));
  return order.slice(0, max).map((l) => languages.find((a) => (a.language ?? "en") === l)!);
}
