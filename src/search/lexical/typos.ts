// Typo tolerance (issue 28 item 4): which index terms a misspelt query word may stand for.
//
// Budget as Meilisearch's defaults: a word of 5+ characters tolerates one edit, 9+ two; an edit is
// an insertion, deletion, substitution or transposition of neighbours (optimal string alignment).
// As in Meilisearch, an edit of the first letter counts twice: one-edit words keep their first
// letter, and that is what makes the search cheap: candidates are read from the band of the
// dictionary that starts with the same letter and has a length within the budget.
//
// The dictionary holds stems, so the stem of the word is compared with the stems. A typo in a
// suffix can hide the suffix from the stemmer ("replicaton" stays "replicaton", 4 edits from
// "replic"), so the word's own one-edit spellings near its end are stemmed too, and those whose
// stem the stemmer cut (replicaton -> replication -> replic) are looked up as they are.
import type { Analyzer } from "./analyze.js";
import { isUnspaced } from "./language-analyzers.js";
import { charLength, termParts } from "./term-dictionary.js";
import type { TermRange } from "./types.js";

export const ONE_TYPO_LENGTH = 5;
export const TWO_TYPOS_LENGTH = 9;
/** candidates read per band: the most frequent first */
const BAND_LIMIT = 5_000;
/** how far from the end a suffix typo is looked for (Porter's longest suffixes are 7 letters) */
const SUFFIX_SPAN = 7;
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
/** letters a Cyrillic word's suffix typo is looked for with (Russian, folded: lower case) */
const CYRILLIC = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя";

/**
 * Edits a normalised word may carry: 0, 1 or 2 by its length in characters; none for a word with a
 * digit (numbers, codes, versions), nor for one of a script written without spaces (Chinese,
 * Japanese, Thai): its token is a run of several words, and its words are a few characters long.
 */
export function typoBudget(word: string): number {
  if (/\p{N}/u.test(word) || isUnspaced(word)) return 0;
  const n = charLength(word);
  return n >= TWO_TYPOS_LENGTH ? 2 : n >= ONE_TYPO_LENGTH ? 1 : 0;
}

// editDistance runs for every term of a band (up to BAND_LIMIT per misspelt word), so it reuses
// these buffers: code points of both strings and three rows of the table.
let codesA: Int32Array = new Int32Array(64);
let codesB: Int32Array = new Int32Array(64);
let rows = new Int32Array(3 * 65);

/** Code points of `s` into `buf` (a larger copy when it is short); the buffer and the count. */
function codePointsOf(s: string, buf: Int32Array): [Int32Array, number] {
  if (buf.length < s.length) buf = new Int32Array(s.length * 2);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.codePointAt(i)!;
    buf[n++] = c;
    if (c > 0xffff) i++;
  }
  return [buf, n];
}

/**
 * Optimal string alignment distance of a and b (code points), or max + 1 as soon as it must
 * exceed max. Only the cells within `max` of the diagonal are computed (a path through any other
 * cell costs more than max), and rows whose minimum passes max end the computation.
 */
export function editDistance(a: string, b: string, max: number): number {
  let m: number;
  let n: number;
  [codesA, m] = codePointsOf(a, codesA);
  [codesB, n] = codePointsOf(b, codesB);
  if (Math.abs(m - n) > max) return max + 1;
  const s = codesA;
  const t = codesB;
  const over = max + 1;
  const w = n + 2;
  if (rows.length < 3 * w) rows = new Int32Array(6 * w);
  // rows i-2, i-1 and i of the table, in turn at offsets 0, w and 2w; a row's cells just outside
  // its band hold max + 1, so the next row reads them as too far
  let prev2 = 0;
  let prev = w;
  let row = 2 * w;
  for (let j = 0; j <= n; j++) rows[prev + j] = j <= max ? j : over;
  rows[prev + n + 1] = over;
  for (let i = 1; i <= m; i++) {
    const lo = Math.max(1, i - max);
    const hi = Math.min(n, i + max);
    rows[row + lo - 1] = lo === 1 ? Math.min(i, over) : over;
    if (hi < n) rows[row + hi + 1] = over;
    let best = rows[row + lo - 1]!;
    for (let j = lo; j <= hi; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let v = Math.min(rows[prev + j]! + 1, rows[row + j - 1]! + 1, rows[prev + j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) v = Math.min(v, rows[prev2 + j - 2]! + 1);
      rows[row + j] = v;
      if (v < best) best = v;
    }
    if (best > max) return over;
    [prev2, prev, row] = [prev, row, prev2];
  }
  return Math.min(rows[prev + n]!, over);
}

const firstLetter = (term: string) => {
  const { lang, stem } = termParts(term);
  return lang + ([...stem][0] ?? "");
};

/** The dictionary band a term's same-first-letter candidates are in (its language's terms only). */
export function typoRange(term: string, budget: number): TermRange {
  const n = charLength(term);
  return { prefix: firstLetter(term), minLength: Math.max(1, n - budget), maxLength: n + budget, limit: BAND_LIMIT };
}

const alphabetOf = (word: string) => [...new Set([...ALPHABET, ...(/\p{Script=Cyrillic}/u.test(word) ? CYRILLIC : ""), ...word])];

/**
 * Terms to look up exactly: the stems of the word's one-edit spellings near its end that the
 * stemmer cut (a suffix typo), and with a budget of 2 the term with its first letter edited.
 */
export function typoLookups(word: string, term: string, budget: number, analyzer: Analyzer): string[] {
  const out = new Set<string>();
  const w = [...word];
  const letters = alphabetOf(word);
  const consider = (v: string) => {
    const stem = analyzer.term(v);
    if (stem !== "" && termParts(stem).stem !== v && stem !== term) out.add(stem);
  };
  for (let i = Math.max(1, w.length - SUFFIX_SPAN); i <= w.length; i++) {
    const head = w.slice(0, i).join("");
    const rest = w.slice(i);
    if (rest.length > 0) consider(head + rest.slice(1).join("")); // deletion
    if (rest.length > 1) consider(head + rest[1] + rest[0] + rest.slice(2).join("")); // transposition
    for (const c of letters) {
      consider(head + c + rest.join("")); // insertion
      if (rest.length > 0 && rest[0] !== c) consider(head + c + rest.slice(1).join("")); // substitution
    }
  }
  if (budget >= 2) {
    const { lang, stem } = termParts(term);
    const t = [...stem];
    const tail = t.slice(1).join("");
    out.add(lang + tail);
    if (t.length > 1) out.add(lang + t[1]! + t[0]! + t.slice(2).join(""));
    for (const c of alphabetOf(stem)) {
      if (c !== t[0]) out.add(lang + c + tail);
      out.add(lang + c + stem);
    }
  }
  out.delete(term);
  return [...out];
}

/** A dictionary term the word may stand for, with the edits it takes. */
export interface TypoCandidate {
  term: string;
  edits: number;
  df: number;
}

/**
 * The word's candidates: same-first-letter terms of the band within the budget, and the looked-up
 * terms found (a suffix typo counts one edit, an edited first letter two).
 */
export function typoCandidates(
  word: string,
  term: string,
  budget: number,
  band: readonly { term: string; df: number }[],
  df: ReadonlyMap<string, number>,
  analyzer: Analyzer,
): TypoCandidate[] {
  const found = new Map<string, TypoCandidate>();
  const add = (c: TypoCandidate) => {
    const had = found.get(c.term);
    if (c.edits <= budget && (!had || had.edits > c.edits)) found.set(c.term, c);
  };
  // the band shares the term's first letter
  for (const b of band) if (b.term !== term) add({ term: b.term, edits: editDistance(term, b.term, budget), df: b.df });
  const first = firstLetter(term);
  for (const t of typoLookups(word, term, budget, analyzer)) {
    const n = df.get(t);
    if (n === undefined) continue;
    add({ term: t, edits: firstLetter(t) === first ? Math.min(1, budget) : 2, df: n });
  }
  return [...found.values()];
}
