// Search-result snippets: the best window of a chunk around the query terms, plus the matched
// words as they are written, for the UI to mark.
//
// Matching: text and terms are tokenised the same way as the query (lexical/tokenize.ts); a text
// word matches a term word when their folded forms are equal or their light stems are equal
// (lightStem: "running" ~ "runs" ~ "run"). That approximates the index's Porter matching closely enough
// to find the words that made the document match, without a stemmer dependency. A multi-word term
// ("machine learning", "err conn reset") matches consecutive words and is highlighted as one span.
// Text indexed in another language (the hit's analyzer, SnippetOptions.analyzer) matches by that
// analyzer's terms instead of light stems ("Häuser" meets "Haus" in German), and a sentence of a
// script written without spaces is cut into the analyzer's words first, so a Chinese word is
// found inside it; a query word the analyzer cuts into several words matches each of them, and
// all of them in a row as one span.
//
// Window: whitespace is collapsed to single spaces first (snippets are shown on one line). The
// window with the most distinct terms wins, the earliest on a tie; about a third of the spare room
// goes before the first match so it reads in context. Cuts fall on spaces (never mid-word) and are
// marked with "…" (not counted in maxChars). One exception: a single word longer than the window
// (a URL, a hash) is cut inside the word, since the alternative is no snippet at all.

import type { Analyzer } from "./lexical/analyze.js";
import { lightStem, normalizeWord, tokenizeWords, type WordToken } from "./lexical/tokenize.js";
import type { ParsedQuery } from "./lexical/types.js";

export interface SnippetOptions {
  /** maximum characters of snippet text, excluding the "…" marks; default 240 */
  maxChars?: number;
  /** the analyzer the text was indexed with; absent or English: light English stems */
  analyzer?: Analyzer;
}

/** How a text is cut into words and what makes two words the same (besides equal folded forms). */
interface Words {
  tokens(text: string): WordToken[];
  key(norm: string): string;
  /**
   * what every word of this key starts with (absent: nothing known): a text word that does not
   * start so is passed over without computing its key
   */
  keyHead?(key: string): string;
}

// lightStem only cuts a word's ending and may rewrite the last letter of what it keeps
// (studies -> study), so a word starts with its key less the key's last letter; a key of one or two
// letters is the start of its word itself (only a doubled last letter is cut that short: anning -> an)
const ENGLISH: Words = { tokens: tokenizeWords, key: lightStem, keyHead: (key) => (key.length <= 2 ? key : key.slice(0, -1)) };

/** Words as an analyzer of another language sees them: its cut of unspaced scripts, its terms. */
function analyzerWords(a: Analyzer): Words {
  const split = a.split;
  return {
    tokens: (text) =>
      split
        ? tokenizeWords(text).flatMap((t) =>
            split(t.raw).map((w) => ({ raw: w.text, norm: normalizeWord(w.text), start: t.start + w.index, end: t.start + w.index + w.text.length })),
          )
        : tokenizeWords(text),
    // a stop word has no term: it matches only its own folded form
    key: (norm) => a.terms(norm).join(" ") || "\u0000" + norm,
  };
}

const wordsOf = (a: Analyzer | undefined): Words => (a === undefined || (a.language === "en" && !a.split) ? ENGLISH : analyzerWords(a));

export interface Snippet {
  snippet: string;
  /** matched words/phrases inside the snippet as written (original case), distinct, in order */
  highlights: string[];
}

export const DEFAULT_SNIPPET_CHARS = 240;
const ELLIPSIS = "…";

/** A word of a term: its folded form, its key, and what a text word of that key starts with. */
interface PatternWord {
  norm: string;
  stem: string;
  head: string;
}

interface TermPattern {
  key: string;
  /** keys this term stands for when matched: itself, plus its words when it is a phrase */
  covers: string[];
  words: PatternWord[];
}

interface Match {
  start: number;
  end: number;
  covers: string[];
}

function buildPatterns(terms: readonly string[], cut: Words): TermPattern[] {
  const patterns: TermPattern[] = [];
  const seen = new Set<string>();
  const add = (words: TermPattern["words"]) => {
    const key = words.map((w) => w.norm).join(" ");
    if (seen.has(key)) return;
    seen.add(key);
    const covers = words.length > 1 ? [key, ...words.map((w) => w.norm)] : [key];
    patterns.push({ key, covers, words });
  };
  for (const term of terms) {
    const words = cut.tokens(term).map((t) => {
      const stem = cut.key(t.norm);
      return { norm: t.norm, stem, head: cut.keyHead?.(stem) ?? "" };
    });
    if (words.length === 0) continue;
    add(words);
    // one word of the query the analyzer cut further: the index matched each of its words
    if (words.length > 1 && tokenizeWords(term).length === 1) for (const w of words) add([w]);
  }
  return patterns;
}

/**
 * Whether the text's token i is the pattern word: equal folded forms or equal keys. A token's key is
 * computed only when needed (most tokens of a text meet no query word), once.
 */
function tokenMatcher(tokens: readonly WordToken[], cut: Words) {
  const keys: (string | undefined)[] = new Array(tokens.length);
  return (i: number, word: PatternWord): boolean => {
    const norm = tokens[i]!.norm;
    if (norm === word.norm) return true;
    if (!norm.startsWith(word.head)) return false;
    return (keys[i] ??= cut.key(norm)) === word.stem;
  };
}

/**
 * The patterns a token may start, by the token's first character where a key's head gives it
 * (English), else every pattern: most tokens of a text start no pattern and are passed over at
 * one lookup.
 */
function patternsByFirst(patterns: readonly TermPattern[]): (norm: string) => readonly TermPattern[] {
  if (patterns.some((p) => p.words[0]!.head === "")) return () => patterns;
  const byFirst = new Map<number, TermPattern[]>();
  for (const p of patterns) {
    const c = p.words[0]!.head.charCodeAt(0);
    let list = byFirst.get(c);
    if (!list) byFirst.set(c, (list = []));
    list.push(p);
  }
  return (norm) => byFirst.get(norm.charCodeAt(0)) ?? [];
}

/** All term occurrences; longer matches win over shorter ones they overlap. */
function findMatches(tokens: readonly WordToken[], patterns: readonly TermPattern[], cut: Words): Match[] {
  const matches = tokenMatcher(tokens, cut);
  const startable = patternsByFirst(patterns);
  const found: (Match & { length: number })[] = [];
  for (let i = 0; i < tokens.length; i++) {
    for (const p of startable(tokens[i]!.norm)) {
      if (i + p.words.length > tokens.length) continue;
      let ok = true;
      for (let k = 0; k < p.words.length && ok; k++) ok = matches(i + k, p.words[k]!);
      if (!ok) continue;
      found.push({ start: tokens[i]!.start, end: tokens[i + p.words.length - 1]!.end, covers: p.covers, length: p.words.length });
    }
  }
  found.sort((a, b) => a.start - b.start || b.length - a.length);
  const kept: Match[] = [];
  let coveredUntil = -1;
  for (const m of found) {
    if (m.start < coveredUntil) continue;
    kept.push({ start: m.start, end: m.end, covers: m.covers });
    coveredUntil = m.end;
  }
  return kept;
}

/** Move a cut off the middle of a surrogate pair (emoji and other astral characters). */
function safeCut(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return index > 0 && index < text.length && code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}

function leadSnippet(clean: string, maxChars: number): string {
  if (clean.length <= maxChars) return clean;
  const space = clean.lastIndexOf(" ", maxChars);
  const end = space > 0 ? space : safeCut(clean, maxChars);
  return clean.slice(0, end).trimEnd() + ELLIPSIS;
}

/**
 * The normalised terms to highlight: the single words, then the phrases (space-joined), so
 * "ERR_CONN_RESET" or a quoted phrase is marked as one span.
 */
export function highlightTerms(query: ParsedQuery): string[] {
  return [...new Set([...query.terms, ...query.phrases.map((p) => p.join(" "))])];
}

export function makeSnippet(text: string, terms: readonly string[], opts: SnippetOptions = {}): Snippet {
  const maxChars = Math.max(1, Math.floor(opts.maxChars ?? DEFAULT_SNIPPET_CHARS));
  const clean = text.replace(/\s+/g, " ").trim();
  if (clean.length === 0) return { snippet: "", highlights: [] };

  const cut = wordsOf(opts.analyzer);
  const matches = findMatches(cut.tokens(clean), buildPatterns(terms, cut), cut);
  if (matches.length === 0) return { snippet: leadSnippet(clean, maxChars), highlights: [] };

  // Best window: starts at a match, holds the most distinct terms; earliest wins ties.
  let bestIndex = 0;
  let bestCount = -1;
  let bestLastEnd = 0;
  for (let i = 0; i < matches.length; i++) {
    const anchor = matches[i];
    if (!anchor) continue;
    const limit = anchor.start + maxChars;
    const keys = new Set<string>();
    let lastEnd = anchor.end;
    for (let j = i; j < matches.length; j++) {
      const m = matches[j];
      if (!m || (j > i && m.end > limit)) break;
      m.covers.forEach((k) => keys.add(k));
      lastEnd = Math.max(lastEnd, m.end);
    }
    if (keys.size > bestCount) {
      bestCount = keys.size;
      bestIndex = i;
      bestLastEnd = lastEnd;
    }
  }
  const anchor = matches[bestIndex] ?? { start: 0, end: 0, covers: [] };
  const first = anchor.start;
  const slack = Math.max(0, maxChars - (bestLastEnd - first));

  let start = Math.max(0, first - Math.floor(slack / 3));
  if (start + maxChars >= clean.length) start = Math.max(0, clean.length - maxChars);
  if (clean[start] === " ") start++;
  if (start > 0 && clean[start - 1] !== " ") {
    // Mid-word: skip forward to the next word if that keeps the anchor, else back to this word's start.
    const next = clean.indexOf(" ", start);
    if (next !== -1 && next + 1 <= first) {
      start = next + 1;
    } else {
      const back = clean.lastIndexOf(" ", start - 1);
      start = back === -1 ? 0 : back + 1;
      if (first - start > maxChars) start = safeCut(clean, first);
    }
  }

  let end = Math.min(clean.length, start + maxChars);
  if (end < clean.length && clean[end] !== " " && clean[end - 1] !== " ") {
    const back = clean.lastIndexOf(" ", end - 1);
    // No space after the anchor inside the window: the anchor's word is longer than the window.
    end = back >= anchor.end ? back : safeCut(clean, end);
  }

  const body = clean.slice(start, end).trim();
  const snippet = (start > 0 ? ELLIPSIS : "") + body + (end < clean.length ? ELLIPSIS : "");
  const highlights: string[] = [];
  for (const m of matches) {
    if (m.start < start || m.end > end) continue;
    const surface = clean.slice(m.start, m.end);
    if (!highlights.includes(surface)) highlights.push(surface);
  }
  return { snippet, highlights };
}
