// The analyzers of languages other than the default English (analyze.ts DEFAULT_ANALYZER):
// Snowball stemmers with the language's stop words for European languages, and word segmentation
// through Intl.Segmenter for scripts written without spaces (Chinese, Japanese, Thai).
//
// Every term such an analyzer makes carries its language as a prefix ("de:hund"). A tenant's
// lexical index holds the chunks of all its collections in one vocabulary; the prefix keeps the
// vocabularies apart, so a query term analysed for German only meets chunks analysed for German,
// and English terms (no prefix) stay exactly the terms indexes held before languages existed.
// The prefix ends in ":", which no token contains (tokenize.ts keeps letters, digits and marks).
import snowball from "snowball-stemmers";
import stopwords from "stopword";
import { DEFAULT_ANALYZER, type Analyzer } from "./analyze.js";
import { normalizeWord, tokenizeWords } from "./tokenize.js";

/** Snowball algorithm and stop word list (ISO 639-3, the stopword package's keys) per language. */
export const STEMMED_LANGUAGES = {
  de: { algorithm: "german", stop: "deu" },
  fr: { algorithm: "french", stop: "fra" },
  es: { algorithm: "spanish", stop: "spa" },
  it: { algorithm: "italian", stop: "ita" },
  pt: { algorithm: "portuguese", stop: "por" },
  nl: { algorithm: "dutch", stop: "nld" },
  sv: { algorithm: "swedish", stop: "swe" },
  ru: { algorithm: "russian", stop: "rus" },
  da: { algorithm: "danish", stop: "dan" },
  fi: { algorithm: "finnish", stop: "fin" },
  no: { algorithm: "norwegian", stop: "nob" },
} as const;

/** Languages whose text is cut into words by Intl.Segmenter, with their stop word lists. */
export const SEGMENTED_LANGUAGES = { zh: { stop: "zho" }, ja: { stop: "jpn" }, th: { stop: "tha" } } as const;

export type StemmedLanguage = keyof typeof STEMMED_LANGUAGES;
export type SegmentedLanguage = keyof typeof SEGMENTED_LANGUAGES;

const CACHE_MAX = 100_000;

/** Stop words as the tokenizer folds words (lower case, Latin diacritics removed), so they meet folded tokens. */
function stopSet(key: string): Set<string> {
  const list = stopwords[key] ?? [];
  return new Set(list.map(normalizeWord));
}

/** memoised word -> term (vocabularies repeat heavily); cleared when full */
function memo(f: (word: string) => string[]): (word: string) => string[] {
  const cache = new Map<string, string[]>();
  return (word) => {
    let t = cache.get(word);
    if (t === undefined) {
      t = f(word);
      if (cache.size >= CACHE_MAX) cache.clear();
      cache.set(word, t);
    }
    return t;
  };
}

/** An analyzer from a function that turns one folded word into its terms (none for a stop word). */
function analyzerOf(language: string, terms: (word: string) => string[]): Analyzer {
  return {
    analyze: (text) => tokenizeWords(text).flatMap((t) => terms(t.norm)),
    terms,
    term: (word) => terms(word)[0] ?? "",
    language,
  };
}

/**
 * Snowball stems of folded words. Queries reach the analyzer folded (diacritics removed), so the
 * text is stemmed folded too: both sides of a match are cut the same way.
 */
export function stemmingAnalyzer(language: StemmedLanguage): Analyzer {
  const { algorithm, stop } = STEMMED_LANGUAGES[language];
  const stemmer = snowball.newStemmer(algorithm);
  const stops = stopSet(stop);
  const prefix = `${language}:`;
  return analyzerOf(
    language,
    memo((word) => {
      if (stops.has(word)) return [];
      const s = stemmer.stem(word);
      return [prefix + (s.length > 0 ? s : word)];
    }),
  );
}

// Han, Hiragana, Katakana, Thai: the scripts written without spaces between words
const UNSPACED_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/**
 * Words of Chinese, Japanese or Thai through Intl.Segmenter (ICU's dictionaries); a token of
 * another script (a Latin product name in Chinese text) is stemmed as English text is.
 */
export function segmentingAnalyzer(language: SegmentedLanguage): Analyzer {
  const segmenter = new Intl.Segmenter(language, { granularity: "word" });
  const stops = stopSet(SEGMENTED_LANGUAGES[language].stop);
  const prefix = `${language}:`;
  const analyzer = analyzerOf(
    language,
    memo((word) => {
      if (!UNSPACED_RE.test(word)) return [prefix + DEFAULT_ANALYZER.term(word)];
      const out: string[] = [];
      for (const s of segmenter.segment(word)) {
        if (s.isWordLike && !stops.has(s.segment)) out.push(prefix + s.segment);
      }
      return out;
    }),
  );
  // the words of a token as terms() cuts them, stop words included (a highlight may mark them)
  const split = (token: string) =>
    UNSPACED_RE.test(token) ? [...segmenter.segment(token)].filter((s) => s.isWordLike).map((s) => ({ text: s.segment, index: s.index })) : [{ text: token, index: 0 }];
  return { ...analyzer, split };
}

/** Whether a word holds a letter of a script written without spaces (its "words" are a segmenter's cut). */
export const isUnspaced = (word: string): boolean => UNSPACED_RE.test(word);
