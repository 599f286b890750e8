// A collection's synonyms (GET/PUT /collections/{id}/synonyms) as the lines a person edits: one
// group per line, terms separated by commas; one one-way mapping per line, `term => a, b`. Also
// the read-modify-write addition the Analytics page makes for a query that found nothing.
// No React here: unit-tested in test/console/search-filter.test.ts.

export interface SynonymSet {
  groups: string[][];
  mappings: Record<string, string[]>;
}

const terms = (line: string) =>
  line
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t.length > 0);

const lines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0);

export const groupsText = (set: SynonymSet) => set.groups.map((g) => g.join(", ")).join("\n");

export const mappingsText = (set: SynonymSet) =>
  Object.entries(set.mappings)
    .map(([k, vs]) => `${k} => ${vs.join(", ")}`)
    .join("\n");

/** A line of the mappings box that has no `=>`, by its 1-based number; null when all parse. */
export function badMappingLine(text: string): number | null {
  const all = text.split("\n");
  const i = all.findIndex((l) => l.trim() && !/^[^=]+=>/.test(l.trim()));
  return i < 0 ? null : i + 1;
}

/** The two boxes as the PUT body (blank lines skipped; a repeated mapping key merges its values). */
export function parseSynonyms(groups: string, mappings: string): SynonymSet {
  const out: SynonymSet = { groups: lines(groups).map(terms), mappings: {} };
  for (const l of lines(mappings)) {
    const at = l.indexOf("=>");
    if (at < 0) continue;
    const key = l.slice(0, at).trim();
    if (!key) continue;
    out.mappings[key] = [...new Set([...(out.mappings[key] ?? []), ...terms(l.slice(at + 2))])];
  }
  return out;
}

/**
 * `term` also finds `alternatives`: one way (a mapping, merged into the term's mapping) or both
 * ways (a group, merged into a group that already holds the term).
 */
export function addSynonym(set: SynonymSet, term: string, alternatives: string[], twoWay: boolean): SynonymSet {
  const t = term.trim();
  const alts = alternatives.map((a) => a.trim()).filter((a) => a && a.toLowerCase() !== t.toLowerCase());
  if (!twoWay) return { groups: set.groups, mappings: { ...set.mappings, [t]: [...new Set([...(set.mappings[t] ?? []), ...alts])] } };
  const at = set.groups.findIndex((g) => g.some((x) => x.toLowerCase() === t.toLowerCase()));
  if (at < 0) return { groups: [...set.groups, [t, ...new Set(alts)]], mappings: set.mappings };
  const merged = [...set.groups[at]];
  for (const a of alts) if (!merged.some((x) => x.toLowerCase() === a.toLowerCase())) merged.push(a);
  return { groups: set.groups.map((g, i) => (i === at ? merged : g)), mappings: set.mappings };
}
