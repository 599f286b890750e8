// A collection's language as the console names it (issue 28 items 5 and 7; docs/decisions.md,
// "Languages"): the API's ISO 639-1 codes, each with its English name, and "auto". The API has
// no route listing them, so test/console/search-filter.test.ts holds this list equal to the
// server's (src/search/lexical/languages.ts): a language added there fails that test until it is
// named here.

export const AUTO = "auto";
export const DEFAULT_LANGUAGE = "en";

/** every code a collection may name but "auto", English (the default) first, then by name */
export const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  en: "English",
  zh: "Chinese",
  da: "Danish",
  nl: "Dutch",
  fi: "Finnish",
  fr: "French",
  de: "German",
  it: "Italian",
  ja: "Japanese",
  no: "Norwegian",
  pt: "Portuguese",
  ru: "Russian",
  es: "Spanish",
  sv: "Swedish",
  th: "Thai",
};

/** the select's values, in the order it offers them */
export const LANGUAGE_CHOICES: readonly string[] = [...Object.keys(LANGUAGE_NAMES), AUTO];

/** "German (de)", "Detect per document (auto)"; an unknown code as itself */
export function languageLabel(code: string): string {
  if (code === AUTO) return "Detect per document (auto)";
  const name = LANGUAGE_NAMES[code];
  return name ? `${name} (${code})` : code;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** What a saved language set off: "re-indexing 3 documents", or nothing when no document waits. */
export function reindexText(reindex: { documents: number } | null | undefined): string | null {
  if (!reindex || reindex.documents === 0) return null;
  return `re-indexing ${plural(reindex.documents, "document")}`;
}

/**
 * A 409's detail with the ids it quotes ('col_…', 'ds_…') replaced by the names a person sees
 * on this page, so "also in collection 'x1'" reads "also in collection “Manuals”".
 */
export function withNames(detail: string, names: ReadonlyMap<string, string>): string {
  return detail.replace(/'([^'\s]+)'/g, (quoted, id: string) => {
    const name = names.get(id);
    return name === undefined ? quoted : `“${name}”`;
  });
}
