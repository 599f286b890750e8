// Query-time expansion of an analysed query through the tenant's term dictionary: typo tolerance
// (typos.ts) and prefix search (prefix.ts). Both add OR-ed terms that score below the word as
// typed, so exact matches rank first:
// - a typo alternative gets TYPO_WEIGHT[edits] of its BM25 weight, a completion PREFIX_WEIGHT;
// - when the word as typed is in the dictionary, an alternative's idf x weight is also capped at
//   that share of the word's own idf, so a rarer alternative never outweighs it.
// A word is typo-expanded only when its term is absent from the dictionary or rare (in at most
// RARE_SHARE of the chunks), and then only to terms at least MORE_COMMON times as frequent as the
// word itself: a misspelling is rarer than what it misspells, and common words stay as typed
// (docs/decisions.md, "Typo tolerance and prefix search").
// Words are corrected and completed in the query's languages (query-languages.ts): the
// collection's one language, or for an "auto" collection those its words and dictionary show.
import type { Analyzer } from "./analyze.js";
import { idf } from "./bm25.js";
import { cutStems, prefixApplies, prefixRange } from "./prefix.js";
import { evidenceTerms, languagePrefix, partsOf, presenceProbes, queryLanguages } from "./query-languages.js";
import { typoBudget, typoCandidates, typoLookups, typoRange, type TypoCandidate } from "./typos.js";
import type { ExpansionRule, LexicalQuery, QueryTerm, TermAnswer, TermLookup, TermRange } from "./types.js";

/** share of the BM25 weight an alternative with 1 or 2 edits keeps */
export const TYPO_WEIGHT: readonly number[] = [1, 0.9, 0.8];
export const PREFIX_WEIGHT = 0.6;
/** a term in at most this share of the chunks is rare */
export const RARE_SHARE = 0.001;
/** a present word's typo alternatives are at least this many times as frequent */
export const MORE_COMMON = 10;
/** typo alternatives kept per word: fewest edits first, then the most frequent */
export const MAX_TYPO_TERMS = 4;
/** words of one query corrected at most (the first ones): a pasted log line stays cheap */
export const MAX_TYPO_WORDS = 8;

export type TermLookupFn = (lookup: TermLookup) => Promise<TermAnswer>;

export interface ExpansionOptions {
  /** the user's words (normalised, as parsed), in order: the ones typo tolerance may correct */
  words: string[];
  typos: boolean;
  /** the last word being typed (normalised), completed as a prefix; null: none */
  prefixWord: string | null;
}

/** One word to correct in one language. */
interface Plan {
  word: string;
  term: string;
  budget: number;
  analyzer: Analyzer;
  range: number;
  lookups: string[];
}

const isRare = (df: number, docCount: number) => df === 0 || df <= RARE_SHARE * docCount;

type Alternative = TypoCandidate & { of: string };

/** Alternatives of one misspelt word in its languages: within the budget, more common than the word, fewest edits first. */
function typoTerms(plans: readonly Plan[], answer: TermAnswer): Alternative[] {
  return plans
    .flatMap((p) => {
      const own = answer.df.get(p.term) ?? 0;
      return typoCandidates(p.word, p.term, p.budget, answer.ranges[p.range]!, answer.df, p.analyzer)
        .filter((c) => own === 0 || c.df >= MORE_COMMON * own)
        .map((c) => ({ ...c, of: p.term }));
    })
    .sort((a, b) => a.edits - b.edits || b.df - a.df || (a.term < b.term ? -1 : 1))
    .slice(0, MAX_TYPO_TERMS);
}

/** Adds alternatives to the query: each term once (the user's own term wins), weight capped by the word's idf. */
class Additions {
  readonly terms: QueryTerm[];
  private readonly have: Set<string>;
  constructor(
    query: LexicalQuery,
    private readonly answer: TermAnswer,
  ) {
    this.terms = [...query.terms];
    this.have = new Set(query.terms.map((t) => t.term));
  }
  add(term: string, share: number, rule: ExpansionRule, of: string): void {
    if (this.have.has(term)) return;
    const n = this.answer.docCount;
    const own = this.answer.df.get(of) ?? 0;
    const df = this.answer.df.get(term) ?? 0;
    const cap = own > 0 && df > 0 ? Math.min(1, idf(n, own) / idf(n, df)) : 1;
    this.have.add(term);
    this.terms.push({ term, count: 1, weight: share * cap, rule });
  }
}

/**
 * The words to correct, one plan per word and language. A word that is a stop word or a common
 * term in one of the languages is a word of the query as typed: it is corrected in none.
 */
function planTypos(words: readonly string[], languages: readonly Analyzer[], first: TermAnswer, ranges: TermRange[]): Plan[][] {
  const plans: Plan[][] = [];
  for (const word of new Set(words)) {
    const budget = typoBudget(word);
    const terms = languages.map((a) => a.term(word));
    // "": a stop word, nothing to correct
    if (budget === 0 || terms.some((t) => t === "" || !isRare(first.df.get(t) ?? 0, first.docCount))) continue;
    if (plans.length === MAX_TYPO_WORDS) break;
    plans.push(languages.map((analyzer, i) => ({ word, term: terms[i]!, budget, analyzer, range: ranges.push(typoRange(terms[i]!, budget)) - 1, lookups: [] })));
  }
  return plans;
}

/** Completions of the typed word in one language: its cut stems and its band. */
interface Completion {
  typed: string;
  cut: string[];
  band: number;
}

function planCompletions(word: string | null, languages: readonly Analyzer[], ranges: TermRange[]): Completion[] {
  if (word === null) return [];
  return languages.map((a) => ({ typed: a.term(word), cut: cutStems(word, a), band: ranges.push(prefixRange(word, languagePrefix(a))) - 1 }));
}

/**
 * The query with typo alternatives of its rare or unknown words and completions of the word being
 * typed, read from the tenant's dictionary in two lookups (the words' frequencies, with an "auto"
 * collection's evidence of its languages, then the candidates); the query unchanged when neither
 * applies.
 */
export async function expandQuery(query: LexicalQuery, o: ExpansionOptions, analyzer: Analyzer, lookup: TermLookupFn): Promise<LexicalQuery> {
  const prefixWord = o.prefixWord !== null && prefixApplies(o.prefixWord) ? o.prefixWord : null;
  const typoWords = o.typos ? o.words.filter((w) => typoBudget(w) > 0) : [];
  if (typoWords.length === 0 && prefixWord === null) return query;
  const own = [...typoWords, ...(prefixWord ? [prefixWord] : [])];
  const parts = partsOf(analyzer);
  const first =
    parts.length > 1
      ? await lookup({ terms: evidenceTerms([...o.words, ...own], parts), ranges: [], present: presenceProbes(parts) })
      : await lookup({ terms: [...new Set(own.map((w) => analyzer.term(w)))], ranges: [] });
  const languages = queryLanguages(o.words, parts, first);
  const ranges: TermRange[] = [];
  const plans = planTypos(typoWords, languages, first, ranges);
  const completions = planCompletions(prefixWord, languages, ranges);
  if (plans.length === 0 && completions.length === 0) return query;
  for (const p of plans.flat()) p.lookups = typoLookups(p.word, p.term, p.budget, p.analyzer);
  const asked = new Set([...first.df.keys(), ...plans.flat().flatMap((p) => [p.term, ...p.lookups]), ...completions.flatMap((c) => [c.typed, ...c.cut])]);
  const answer = await lookup({ terms: [...asked], ranges });
  for (const band of answer.ranges) for (const t of band) answer.df.set(t.term, t.df);
  const out = new Additions(query, answer);
  for (const word of plans) for (const c of typoTerms(word, answer)) out.add(c.term, TYPO_WEIGHT[c.edits] ?? 0, "typo", c.of);
  for (const c of completions) {
    for (const t of c.cut) if (answer.df.has(t)) out.add(t, PREFIX_WEIGHT, "prefix", c.typed);
    for (const t of answer.ranges[c.band]!) out.add(t.term, PREFIX_WEIGHT, "prefix", c.typed);
  }
  return { terms: out.terms, phrases: query.phrases };
}
