// The tokenizer of Quarry's own static embedding model: text -> a bag of word stems.
//
// Words are runs of letters and digits, case-folded, Latin diacritics removed, Porter-stemmed (the
// `stemmer` package), so "configuring", "configured" and "configuration" meet where the training
// text and the collection use different forms. Identifiers are also cut at their case and digit
// boundaries ("createReadStream" gives "createreadstream", "creat", "read", "stream"), so a
// plain-language question can meet an API name. The cut is part of the model's contract: a model
// file records TOKENIZER_VERSION, and a change here must bump it (vectors of another cut are not
// comparable).
import { stemmer } from "stemmer";

export const TOKENIZER_VERSION = 1;

/** Longer tokens are hashes, base64 or minified code: noise for a word model. */
export const MAX_TOKEN_LENGTH = 32;

const ASCII_WORD_RE = /[A-Za-z0-9]+/g;
const WORD_RE = /[\p{L}\p{N}\p{M}]+/gu;
const LATIN_DIACRITICS_RE = /[\u0300-\u036f]/g;
/** lower->Upper, UPPER->Upper lower (HTTPServer -> HTTP Server), letter<->digit */
const PART_RE = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\x00-\x7f]+/g;

const stems = new Map<string, string>();
const STEM_CACHE_MAX = 100_000;

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

function fold(word: string): string {
  if (isAscii(word)) return word.toLowerCase();
  return word.normalize("NFD").replace(LATIN_DIACRITICS_RE, "").normalize("NFC").toLowerCase();
}

/** Porter stem of a folded word (non-ASCII words come back as they are); memoised. */
export function stemWord(folded: string): string {
  let s = stems.get(folded);
  if (s === undefined) {
    s = isAscii(folded) ? stemmer(folded) || folded : folded;
    if (stems.size >= STEM_CACHE_MAX) stems.clear();
    stems.set(folded, s);
  }
  return s;
}

/** The parts of an identifier-like word, or none when it is one plain word. */
function identifierParts(raw: string): string[] {
  if (!isAscii(raw)) return [];
  const parts = raw.match(PART_RE);
  return parts && parts.length > 1 ? parts.filter((p) => p.length > 1) : [];
}

/** Calls `fn` with each token of the text in order (a word's stem, then its identifier parts' stems) and the folded word it came from. */
export function forEachToken(text: string, fn: (token: string, word: string) => void): void {
  const re = isAscii(text) ? ASCII_WORD_RE : WORD_RE;
  for (const m of text.matchAll(re)) {
    const raw = m[0];
    if (raw.length > MAX_TOKEN_LENGTH) continue;
    const folded = fold(raw);
    if (!/[\p{L}\p{N}]/u.test(folded)) continue;
    fn(stemWord(folded), folded);
    for (const part of identifierParts(raw)) {
      const word = part.toLowerCase();
      fn(stemWord(word), word);
    }
  }
}

/** The model's tokens of a text, in order: each word's stem, then its identifier parts' stems. */
export function modelTokens(text: string): string[] {
  const out: string[] = [];
  forEachToken(text, (t) => out.push(t));
  return out;
}
