// Prefix search (issue 28 item 4, `prefix: true`): the last word of a query being typed stands for
// the index terms it may complete to. The dictionary holds stems, so a word completes to a term in
// two ways: the term starts with the word ("kube" -> "kubernet"), or the word already runs past
// the term's end into a suffix the stemmer cuts ("replicati" -> "replic", as "replication"
// stems); the second is checked by stemming the word completed with a common suffix, so "paint"
// does not complete to "pain".
import type { Analyzer } from "./analyze.js";
import { charLength, termParts } from "./term-dictionary.js";
import type { TermRange } from "./types.js";

/** shorter words are not completed: a single letter completes to everything */
export const MIN_PREFIX_LENGTH = 2;
/** completions added for the word: the most frequent */
export const MAX_COMPLETIONS = 10;
/** terms this long (characters) are the longest the stores keep */
const MAX_TERM_LENGTH = 1000;
/** a stem this short is never taken as the word's cut */
const MIN_CUT_LENGTH = 3;

// English suffixes the Porter stemmer removes, for the cut-stem check; other languages' words
// complete through the first way only.
const SUFFIXES = [
  "s", "es", "ed", "ing", "ings", "ion", "ions", "ation", "ations", "ational", "al", "ally", "ly",
  "ment", "ments", "ness", "ize", "ized", "izes", "izing", "ization", "er", "ers", "ive", "ively",
  "ous", "ful", "able", "ible", "ance", "ence", "ity", "ities", "ism", "ist", "ists", "ic", "ical",
  "ate", "ated", "ates", "ating", "ator", "ators", "y", "ies", "ied",
];

export const prefixApplies = (word: string): boolean => charLength(word) >= MIN_PREFIX_LENGTH;

/** The language prefix of the analyzer's terms ("" for English): completions are read among them. */
export const languageOf = (word: string, analyzer: Analyzer): string => termParts(analyzer.term(word)).lang;

/** The dictionary band of the word's completions: longer terms of its language starting with it. */
export function prefixRange(word: string, lang: string): TermRange {
  return { prefix: lang + word, minLength: charLength(lang + word) + 1, maxLength: MAX_TERM_LENGTH, limit: MAX_COMPLETIONS };
}

/**
 * Stems the word runs past: t, a proper prefix of the word, such that the word completed with
 * some suffix stems to t. They are looked up; those in the dictionary complete the word too.
 */
export function cutStems(word: string, analyzer: Analyzer): string[] {
  const out: string[] = [];
  const lang = languageOf(word, analyzer);
  for (let n = MIN_CUT_LENGTH; n < word.length; n++) {
    const stem = word.slice(0, n);
    const typed = word.slice(n);
    if (SUFFIXES.some((s) => s.startsWith(typed) && analyzer.term(stem + s) === lang + stem)) out.push(lang + stem);
  }
  return out;
}
