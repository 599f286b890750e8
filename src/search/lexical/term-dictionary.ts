// Answers a TermLookup (types.ts) from an in-memory index: the embedded store's side of the term
// dictionary that typo tolerance and prefix search read (expand.ts). PostgreSQL answers the same
// lookup in SQL over its lexical_df table; both cut a band with indexBand's rules.
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

/**
 * The terms of one prefix, most frequent first (ties by term), with their document frequencies
 * and lengths in parallel arrays: bands are cut from it without a sort.
 */
interface RankedPrefix {
  terms: string[];
  dfs: Uint32Array;
  lengths: Uint32Array;
}

const byFrequency = (a: TermFrequency, b: TermFrequency) => b.df - a.df || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);

/** prefixes kept ranked per index: the letters typo bands start with, and recent typed prefixes */
const RANKED_PREFIXES = 64;
const ranked = new WeakMap<Bm25Index, { generation: number; prefixes: Map<string, RankedPrefix> }>();

/**
 * A prefix's terms, most frequent first, kept until the index changes. Ranking the band of
 * a query word's first letter (thousands of terms) on every search was 4 % of a SciFact hybrid
 * request's CPU, most of its words being rare and so typo-expanded. Terms are the index's own
 * strings, so a kept prefix costs 16 bytes a term (a tenant's whole vocabulary at most, as
 * first-letter bands cover it).
 */
function rankedPrefix(index: Bm25Index, prefix: string): RankedPrefix {
  let held = ranked.get(index);
  if (!held || held.generation !== index.generation) ranked.set(index, (held = { generation: index.generation, prefixes: new Map() }));
  let r = held.prefixes.get(prefix);
  if (r) return r;
  const sorted = [...index.termsStartingWith(prefix)].sort(byFrequency);
  r = { terms: sorted.map((t) => t.term), dfs: Uint32Array.from(sorted, (t) => t.df), lengths: Uint32Array.from(sorted, (t) => charLength(t.term)) };
  if (held.prefixes.size >= RANKED_PREFIXES) held.prefixes.delete(held.prefixes.keys().next().value!);
  held.prefixes.set(prefix, r);
  return r;
}

/** A band's terms: those starting with its prefix, within its lengths, the `limit` most frequent, ties by term. */
export function indexBand(index: Bm25Index, range: TermRange): TermFrequency[] {
  const { terms, dfs, lengths } = rankedPrefix(index, range.prefix);
  const out: TermFrequency[] = [];
  for (let i = 0; i < terms.length && out.length < range.limit; i++) {
    const n = lengths[i]!;
    if (n >= range.minLength && n <= range.maxLength) out.push({ term: terms[i]!, df: dfs[i]! });
  }
  return out;
}

export function answerLookup(index: Bm25Index | undefined, lookup: TermLookup): TermAnswer {
  const present = lookup.present && { present: index ? lookup.present.filter((p) => !index.termsStartingWith(p).next().done) : [] };
  if (!index) return { docCount: 0, df: new Map(), ranges: lookup.ranges.map(() => []), ...present };
  const df = new Map<string, number>();
  for (const term of lookup.terms) {
    const n = index.df(term);
    if (n > 0) df.set(term, n);
  }
  return { docCount: index.docCount, df, ranges: lookup.ranges.map((r) => indexBand(index, r)), ...present };
}
