// A collection's language (issue 28 item 5) as the collection service checks it: a supported
// ISO 639-1 code or "auto", and one language for every collection that shares a data source,
// because a source's chunks are indexed once, with one analyzer (docs/decisions.md, "Languages").
import type { CollectionCatalog } from "../../store/content-store.js";
import type { CollectionLanguage } from "../../store/content-types.js";
import { AUTO, DEFAULT_LANGUAGE, LANGUAGES, isLanguageSetting } from "../../search/lexical/languages.js";
import { ValidationError, conflict } from "../errors.js";

/** the language a stored value means (null: English, the default) */
export const effectiveLanguage = (stored: string | null | undefined): string => stored ?? DEFAULT_LANGUAGE;

/** A requested language, or a 422 naming the value and the supported ones. */
export function checkLanguage(value: string | null | undefined): string | undefined {
  if (value == null) return undefined;
  if (isLanguageSetting(value)) return value;
  throw new ValidationError([
    {
      type: "language",
      loc: ["body", "language"],
      msg: `'${value}' is not a supported language. Use one of ${[...LANGUAGES, AUTO].map((l) => `'${l}'`).join(", ")} ('auto' detects each document's language).`,
      input: value,
    },
  ]);
}

/**
 * A 409 when another collection holding one of the sources has another language: the source's
 * chunks can be analysed only one way. `others`: the sources' other collections (adapted-sources.ts otherCollections).
 */
export function checkSharedSources(others: readonly CollectionLanguage[], language: string): void {
  for (const r of others) {
    if (effectiveLanguage(r.language) === language) continue;
    throw conflict(
      `Data source '${r.data_source_id}' is also in collection '${r.collection_id}', whose language is '${effectiveLanguage(r.language)}'; ` +
        `a data source is indexed in one language. Give both collections the same language, or use a separate data source.`,
    );
  }
}

/** A 409 when a new data source would join collections of different languages. */
export async function checkOneLanguage(content: CollectionCatalog, tenantId: string, collectionIds: string[]): Promise<void> {
  if (collectionIds.length < 2) return;
  const seen = new Map<string, string>();
  for (const id of collectionIds) seen.set(effectiveLanguage((await content.getCollection(tenantId, id))?.language), id);
  if (seen.size < 2) return;
  const [[a, ca], [b, cb]] = [...seen.entries()] as [[string, string], [string, string]];
  throw conflict(
    `Collections '${ca}' ('${a}') and '${cb}' ('${b}') have different languages; a data source is indexed in one language. ` +
      `Create the source in collections of one language, or give them the same language.`,
  );
}

/**
 * The sources whose documents must be analysed again after a change: all of them when the
 * language changed, added ones unless they join an English collection, removed ones unless they
 * leave one (they go back to the language of their other collections, or English).
 */
export function sourcesToReanalyse(before: { language: string; ids: string[] }, after: { language: string; ids: string[] }): string[] {
  const out = new Set<string>();
  const old = new Set(before.ids);
  const now = new Set(after.ids);
  for (const id of after.ids) {
    if (before.language !== after.language || (!old.has(id) && after.language !== DEFAULT_LANGUAGE)) out.add(id);
  }
  if (before.language !== DEFAULT_LANGUAGE) for (const id of before.ids) if (!now.has(id)) out.add(id);
  return [...out];
}
