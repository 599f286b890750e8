// Word tokenisation shared by the analyzer (analyze.ts), the query parser (parse-query.ts) and
// the snippet highlighter, so that index terms, query terms and highlighted words are cut the
// same way.
//
// It approximates FTS5's `unicode61 remove_diacritics 2` tokenizer: letters and digits are token
// characters, everything else (spaces, punctuation, symbols, emoji, `_`) separates tokens; case is
// folded and Latin diacritics are removed. Combining marks are kept inside a token (FTS5 would
// split some scripts at them), which keeps words of those scripts whole.

export interface WordToken {
  /** the token as written in the text */
  raw: string;
  /** folded form: lower case, Latin diacritics removed */
  norm: string;
  /** UTF-16 offsets into the tokenised string, end exclusive */
  start: number;
  end: number;
}

// \p{M} keeps a base letter and its combining marks (e.g. "e\u0301") in one token.
const TOKEN_RE = /[\p{L}\p{N}\p{M}]+/gu;
// The Combining Diacritical Marks block: what remove_diacritics strips for Latin text. Other
// scripts' marks (Devanagari vowel signs, ...) carry meaning and stay.
const LATIN_DIACRITICS_RE = /[\u0300-\u036f]/g;

/** Case-fold and strip Latin diacritics; NFC afterwards so Hangul and friends recompose. */
export function normalizeWord(word: string): string {
  if (isAscii(word)) return word.toLowerCase();
  return word.normalize("NFD").replace(LATIN_DIACRITICS_RE, "").normalize("NFC").toLowerCase();
}

// ASCII needs no Unicode normalisation (NFD and NFC leave it as it is, it has no diacritics), and
// most text and queries are ASCII: this path skips two normalisations and a regex per word, which
// were a fifth of a search request's CPU (snippets, phrase checks) and of lexical indexing.
function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** [A-Za-z0-9] */
const isAsciiWordChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

export function tokenizeWords(text: string): WordToken[] {
  const tokens: WordToken[] = [];
  if (isAscii(text)) {
    // the same cut as TOKEN_RE on ASCII: its letters and digits are [A-Za-z0-9], nothing else is
    // \p{L}\p{N}\p{M}; scanned by hand and lower-cased once (a third faster than a regex: every
    // word of every snippet's text goes through here)
    const lower = text.toLowerCase();
    const n = text.length;
    for (let i = 0; i < n; ) {
      while (i < n && !isAsciiWordChar(text.charCodeAt(i))) i++;
      if (i === n) break;
      const start = i;
      while (i < n && isAsciiWordChar(text.charCodeAt(i))) i++;
      tokens.push({ raw: text.slice(start, i), norm: lower.slice(start, i), start, end: i });
    }
    return tokens;
  }
  for (const m of text.matchAll(TOKEN_RE)) {
    const raw = m[0];
    const norm = normalizeWord(raw);
    // A token made only of stray combining marks folds to nothing: not searchable.
    if (norm.length === 0 || !/[\p{L}\p{N}]/u.test(norm)) continue;
    const start = m.index ?? 0;
    tokens.push({ raw, norm, start, end: start + raw.length });
  }
  return tokens;
}

const ASCII_LOWER_TOKEN_RE = /[a-z0-9]+/g;

/**
 * The folded forms of tokenizeWords(text), without their offsets: what the index analyses. On
 * ASCII text one lower-casing of the whole text and one match, no token objects (analysing the
 * candidates' text for a query's phrases was a tenth of a hybrid request's CPU).
 */
export function wordNorms(text: string): string[] {
  if (isAscii(text)) return text.toLowerCase().match(ASCII_LOWER_TOKEN_RE) ?? [];
  return tokenizeWords(text).map((t) => t.norm);
}

/**
 * A light English suffix stripper for highlight matching only ("running", "runs", "run" all
 * become "run"; "studies" and "study" become "study"). Deliberately not Porter: FTS5's porter
 * tokenizer already decides what matches; highlighting just needs to find those words again, and
 * a few rules cover the common inflections without pulling in a stemmer library. Expects a
 * normalised (lower-case) word; words of 3 characters or fewer are returned unchanged.
 */
export function lightStem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith("ies") && w.length > 4) {
    w = w.slice(0, -3) + "y";
  } else if (w.endsWith("sses")) {
    w = w.slice(0, -2);
  } else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) {
    w = w.slice(0, -1);
  }
  for (const suffix of ["ing", "ed"]) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      // running -> runn -> run, stopped -> stopp -> stop; but keep "ll"/"ss"/"zz" (called, passed).
      if (/([^aeiouylsz])\1$/.test(w)) w = w.slice(0, -1);
      // studied -> studi -> study, so it meets "study"/"studies".
      else if (w.endsWith("i")) w = w.slice(0, -1) + "y";
      break;
    }
  }
  // make/making/makes -> mak: drop a final silent "e" so both sides of a comparison agree.
  if (w.length > 3 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}
