// Per-collection synonyms (issue 28 item 3), applied to the parsed query before analysis, so a
// change is searchable at once and nothing is reindexed. A match of a synonym key in the query's
// words adds each alternative's words as extra OR-ed terms (BM25 scores them as any other word)
// and a multi-word alternative also as a phrase, so "nyc" finds "New York" as written first.
// The expanded words also reach the snippets' highlights.
//
// Keys and alternatives go through the same parse as the user's text (case folding, diacritics,
// stop words), so "New York", "new york" and "NEW-YORK" are one key.
import { MAX_QUERY_TERMS, parseQuery } from "./parse-query.js";
import type { ParsedQuery } from "./types.js";

/** What a collection stores and the API shows: groups (each term finds the others) and one-way mappings. */
export interface SynonymSet {
  groups: string[][];
  mappings: Record<string, string[]>;
}

/** key (its normalised words joined by a space) -> alternatives, each its normalised words */
export type SynonymTable = ReadonlyMap<string, readonly (readonly string[])[]>;

/** the longest key looked for in a query, in words */
export const MAX_SYNONYM_WORDS = 8;
/** extra terms an expansion may add beyond the query's own cap */
const MAX_EXPANSION_TERMS = 64;

/** An entry's normalised words: what the query parser makes of it (empty when nothing is searchable). */
export function synonymWords(text: string): string[] {
  return parseQuery(text).terms;
}

export function compileSynonyms(set: SynonymSet): SynonymTable {
  const table = new Map<string, string[][]>();
  const add = (from: string[], to: string[]) => {
    if (from.length === 0 || to.length === 0 || from.length > MAX_SYNONYM_WORDS) return;
    const key = from.join(" ");
    if (key === to.join(" ")) return;
    const list = table.get(key) ?? [];
    if (!list.some((alt) => alt.join(" ") === to.join(" "))) list.push(to);
    table.set(key, list);
  };
  for (const group of set.groups) {
    const members = group.map(synonymWords);
    for (const a of members) for (const b of members) add(a, b);
  }
  for (const [key, values] of Object.entries(set.mappings)) {
    const from = synonymWords(key);
    for (const v of values) add(from, synonymWords(v));
  }
  return table;
}

/**
 * The query with the alternatives of every synonym key found among its words (consecutive, as
 * parsed: stop words aside), longest keys first at each position; `applied` says whether any was.
 */
export function expandSynonyms(query: ParsedQuery, table: SynonymTable | undefined): { query: ParsedQuery; applied: boolean } {
  if (!table || table.size === 0) return { query, applied: false };
  const words = query.terms;
  const terms = [...words];
  const have = new Set(terms);
  const phrases = [...query.phrases];
  const havePhrase = new Set(phrases.map((p) => p.join(" ")));
  const cap = Math.max(words.length, MAX_QUERY_TERMS) + MAX_EXPANSION_TERMS;
  let applied = false;
  for (let i = 0; i < words.length; i++) {
    for (let n = Math.min(MAX_SYNONYM_WORDS, words.length - i); n >= 1; n--) {
      const alternatives = table.get(words.slice(i, i + n).join(" "));
      if (!alternatives) continue;
      applied = true;
      for (const alt of alternatives) {
        for (const w of alt) if (!have.has(w) && terms.length < cap) (have.add(w), terms.push(w));
        const key = alt.join(" ");
        if (alt.length >= 2 && !havePhrase.has(key)) (havePhrase.add(key), phrases.push([...alt]));
      }
    }
  }
  return { query: { terms, phrases }, applied };
}
