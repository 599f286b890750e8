// Answers a TermLookup (types.ts) from an in-memory index: the embedded store's side of the term
// dictionary that typo tolerance and prefix search read (expand.ts). PostgreSQL answers the same
// lookup in SQL over its lexical_df table; both cut a band with bandOf's rules.
import type { Bm25Index } from "./bm25-index.js";
import type { TermAnswer, TermFrequency, TermLookup, TermRange } from "./types.js";

/** Code points of a string (PostgreSQL's char_length), the unit of a band's lengths. */
export const charLength = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * A term's language prefix ("de:"; "" for English, whose terms carry none: languages.ts) and the
 * stem after it. Typo and prefix rules work on the stem and keep the prefix.
 */
export function termParts(term: string): { lang: string; stem: string } {
  const i = term.indexOf(":");
  return i < 0 ? { lang: "", stem: term } : { lang: term.slice(0, i + 1), stem: term.slice(i + 1) };
}

/** A band's terms: within its lengths, the `limit` most frequent, ties by term. */
export function bandOf(terms: Iterable<TermFrequency>, range: TermRange): TermFrequency[] {
  const kept: TermFrequency[] = [];
  for (const t of terms) {
    const n = charLength(t.term);
    if (n >= range.minLength && n <= range.maxLength) kept.push(t);
  }
  kept.sort((a, b) => b.df - a.df || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  return kept.slice(0, range.limit);
}

export function answerLookup(index: Bm25Index | undefined, lookup: TermLookup): TermAnswer {
  const present = lookup.present && { present: index ? lookup.present.filter((p) => !index.termsStartingWith(p).next().done) : [] };
  if (!index) return { docCount: 0, df: new Map(), ranges: lookup.ranges.map(() => []), ...present };
  const df = new Map<string, number>();
  for (const term of lookup.terms) {
    const n = index.df(term);
    if (n > 0) df.set(term, n);
  }
  return { docCount: index.docCount, df, ranges: lookup.ranges.map((r) => bandOf(index.termsStartingWith(r.prefix), r)), ...present };
}
