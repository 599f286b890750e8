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

/** most groups and mappings a set holds, and terms a group or a mapping (as the Synonyms schema) */
const MAX_ENTRIES = 1000;
const MAX_TERMS = 50;

/**
 * `add` merged into `set`: a group equal to one already there (same terms in any order) is not
 * repeated, and a mapping's values join those the key already has. 422 past the schema's sizes.
 */
export function mergeSynonyms(set: SynonymSet, add: SynonymSet): SynonymSet {
  const keyOf = (g: string[]) => JSON.stringify([...g].sort());
  const seen = new Set(set.groups.map(keyOf));
  const groups = [...set.groups, ...add.groups.filter((g) => !seen.has(keyOf(g)))];
  const mappings = { ...set.mappings };
  for (const [k, v] of Object.entries(add.mappings)) mappings[k] = [...new Set([...(mappings[k] ?? []), ...v])];
  const issues: FieldIssue[] = [];
  if (groups.length > MAX_ENTRIES) issues.push({ type: "too_many", loc: ["body", "queries"], msg: `the collection would have ${groups.length} synonym groups; at most ${MAX_ENTRIES}: remove some with PUT /collections/{id}/synonyms first`, input: null });
  if (Object.keys(mappings).length > MAX_ENTRIES) issues.push({ type: "too_many", loc: ["body", "queries"], msg: `the collection would have ${Object.keys(mappings).length} synonym mappings; at most ${MAX_ENTRIES}`, input: null });
  for (const [k, v] of Object.entries(mappings)) {
    if (v.length > MAX_TERMS) issues.push({ type: "too_many", loc: ["body", "synonym_of"], msg: `the mapping of "${k}" would have ${v.length} terms; at most ${MAX_TERMS}`, input: k });
  }
  if (issues.length) throw new ValidationError(issues);
  return { groups, mappings };
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
    /** Adds groups and mappings to the set (mergeSynonyms) and answers the whole set as stored. */
    async add(p: Principal, id: string, add: SynonymSet): Promise<SynonymSet> {
      const tenantId = tenantOf(p).id;
      checkSet(add);
      const settings = await settingsOf(tenantId, id);
      const set = mergeSynonyms(synonymSetOf(settings.synonyms), add);
      await content.updateCollection(tenantId, id, { settings: { ...settings, synonyms: set } });
      return set;
    },
  };
}

export type SynonymService = ReturnType<typeof createSynonymService>;
