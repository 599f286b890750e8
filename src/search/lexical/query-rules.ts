// The lexical query of a request with its query-time rules: synonyms (synonyms.ts), typo tolerance
// (typos.ts) and prefix search (prefix.ts). Synonyms need only the collection's table; typos and
// prefixes read the tenant's term dictionary through `lookup`. Each added term carries the rule
// that added it, so a store can say which rules a hit matched through (explain).
import { mayHaveTerm, type Analyzer } from "./analyze.js";
import { lexicalQueryOf } from "./analyze-query.js";
import { expandQuery, type TermLookupFn } from "./expand.js";
import { parseQuery } from "./parse-query.js";
import type { SynonymTable } from "./synonyms.js";
import { normalizeWord, tokenizeWords, wordNorms, type WordToken } from "./tokenize.js";
import type { LexicalQuery, ParsedQuery } from "./types.js";

export interface QueryRules {
  synonyms?: SynonymTable;
  /** typo tolerance on (the default) */
  typos: boolean;
  /** the last word is a prefix */
  prefix: boolean;
}

/**
 * The word being typed: the text's last word, unless the text ends after it (a space or
 * punctuation says the word is complete, as Meilisearch reads it).
 */
export function typedWord(text: string): string | null {
  return typedToken(text)?.norm ?? null;
}

/** typedWord's token, with where it starts in the text */
export function typedToken(text: string): WordToken | null {
  const tokens = tokenizeWords(text);
  const last = tokens[tokens.length - 1];
  return last && last.end === text.length ? last : null;
}

/** Terms first brought in by a synonym (no word of the user's own stems to them) carry the rule. */
function tagSynonyms(lexical: LexicalQuery, userWords: string[], analyzer: Analyzer): LexicalQuery {
  const own = new Set(userWords.flatMap((w) => analyzer.terms(w)));
  return { ...lexical, terms: lexical.terms.map((t) => (own.has(t.term) ? t : { ...t, rule: "synonyms" as const })) };
}

export async function lexicalQueryWithRules(
  text: string,
  analyzer: Analyzer,
  rules: QueryRules,
  lookup: TermLookupFn,
): Promise<{ parsed: ParsedQuery; lexical: LexicalQuery | null }> {
  const { parsed, lexical, synonymsApplied } = lexicalQueryOf(text, analyzer, rules.synonyms);
  if (!lexical) return { parsed, lexical };
  const words = parseQuery(text).terms;
  const tagged = synonymsApplied ? tagSynonyms(lexical, words, analyzer) : lexical;
  const prefixWord = rules.prefix ? typedWord(text) : null;
  return { parsed, lexical: await expandQuery(tagged, { words, typos: rules.typos, prefixWord }, analyzer, lookup) };
}

/**
 * The words of a text that matched a typo alternative or a completion (an index term of theirs,
 * under the analyzer the text was indexed with, is one those rules added): what a hit's snippet
 * highlights beside the query's own words.
 */
export function expandedWords(text: string, lexical: LexicalQuery | null, analyzer: Analyzer): string[] {
  const added = new Set(lexical?.terms.filter((t) => t.rule === "typo" || t.rule === "prefix").map((t) => t.term));
  if (added.size === 0) return [];
  // a sentence of Chinese, Japanese or Thai is one token: its words are the analyzer's cut of it
  const split = analyzer.split;
  const words = split ? tokenizeWords(text).flatMap((t) => split(t.raw).map((w) => normalizeWord(w.text))) : wordNorms(text);
  const may = mayHaveTerm(analyzer, added);
  return [...new Set(words)].filter((w) => may(w) && analyzer.terms(w).some((t) => added.has(t)));
}
