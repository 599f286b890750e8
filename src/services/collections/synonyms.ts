// A collection's synonyms (issue 28 item 3): GET and PUT /collections/{id}/synonyms. They are kept
// as the collection's `settings.synonyms`, beside its other search settings, so they travel with
// backups and exports and PATCH /collections can set them too; a search reads them with the rest
// of the collection's settings, compiled once per distinct set (synonymTableOf).
import { compileSynonyms, synonymWords, type SynonymSet, type SynonymTable } from "../../search/lexical/synonyms.js";
import type { CollectionCatalog } from "../../store/content-store.js";
import type { Json } from "../../store/content-types.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import { notFound, ValidationError, type FieldIssue } from "../errors.js";

/** The stored form as the API shows it; anything else (a hand-edited row) reads as none. */
export function synonymSetOf(v: unknown): SynonymSet {
  const none: SynonymSet = { groups: [], mappings: {} };
  if (!v || typeof v !== "object" || Array.isArray(v)) return none;
  const { groups, mappings } = v as Record<string, unknown>;
  const strings = (a: unknown): a is string[] => Array.isArray(a) && a.every((x) => typeof x === "string");
  return {
    groups: Array.isArray(groups) ? groups.filter(strings) : [],
    mappings:
      mappings && typeof mappings === "object" && !Array.isArray(mappings)
        ? Object.fromEntries(Object.entries(mappings).filter((e): e is [string, string[]] => strings(e[1])))
        : {},
  };
}

// Compiled tables by their stored JSON: a collection's set is compiled once, not per search.
const compiled = new Map<string, SynonymTable>();
const COMPILED_KEPT = 256;

/** `settings.synonyms` as the engine's table; undefined when the collection has none. */
export function synonymTableOf(v: unknown): SynonymTable | undefined {
  const set = synonymSetOf(v);
  if (set.groups.length === 0 && Object.keys(set.mappings).length === 0) return undefined;
  const key = JSON.stringify(set);
  let table = compiled.get(key);
  if (!table) {
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, (table = compileSynonyms(set)));
  }
  return table;
}

/**
 * Entries with nothing searchable in them ("?!", only punctuation) would silently never match:
 * a 422 naming each, so the caller can fix its list. A group needs two entries that differ.
 */
function checkSet(set: SynonymSet): void {
  const issues: FieldIssue[] = [];
  const empty = (text: string, loc: (string | number)[]) => {
    if (synonymWords(text).length === 0) issues.push({ type: "synonym_empty", loc, msg: "Has no searchable word; use letters or digits", input: text });
  };
  set.groups.forEach((g, i) => {
    g.forEach((t, j) => empty(t, ["body", "groups", i, j]));
    if (new Set(g.map((t) => synonymWords(t).join(" "))).size < 2) {
      issues.push({ type: "synonym_group_size", loc: ["body", "groups", i], msg: "A group needs at least two different terms", input: g });
    }
  });
  for (const [key, values] of Object.entries(set.mappings)) {
    empty(key, ["body", "mappings", key]);
    values.forEach((v, j) => empty(v, ["body", "mappings", key, j]));
  }
  if (issues.length) throw new ValidationError(issues);
}

export function createSynonymService(deps: { store: { content: Pick<CollectionCatalog, "getCollection" | "updateCollection"> } }) {
  const content = deps.store.content;
  async function settingsOf(tenantId: string, id: string): Promise<Json> {
    const c = await content.getCollection(tenantId, id);
    if (!c) throw notFound("Collection", id);
    return c.settings;
  }
  return {
    async get(p: Principal, id: string): Promise<SynonymSet> {
      return synonymSetOf((await settingsOf(tenantOf(p).id, id)).synonyms);
    },
    /** Replaces the whole set; the next search uses it (nothing is reindexed). */
    async put(p: Principal, id: string, body: Partial<SynonymSet>): Promise<SynonymSet> {
      const tenantId = tenantOf(p).id;
      const set: SynonymSet = { groups: body.groups ?? [], mappings: body.mappings ?? {} };
      checkSet(set);
      const settings = await settingsOf(tenantId, id);
      await content.updateCollection(tenantId, id, { settings: { ...settings, synonyms: set } });
      return set;
    },
  };
}

export type SynonymService = ReturnType<typeof createSynonymService>;
